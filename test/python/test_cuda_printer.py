"""The CUDA target (SPEC §4) without a GPU: print, compile with NVRTC for sm_90 (no warnings),
count the vector transfers in the PTX, and check the SASS (nvdisasm) for 128-bit shared/global
accesses and no local memory (LDL/STL)."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

import pytest
from regcopy_backend.cuda import CudaEmitError, UnsupportedOpError, print_cuda
from regcopy_backend.cuda_arith import float_literal
from regcopy_backend.nvrtc import NvrtcError, compile_cuda, disassemble
from regcopy_tools.regcopy_run import RunInputError, parse_and_lower
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from regcopy_dialect.context import regcopy_context

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "examples").glob("*.mlir"))
sys.path.insert(0, str(REPO / "test" / "gpu"))
from cases import ALIGNMENT_CASE, ALL_CASES, GpuCase, analyse_case  # noqa: E402
from ldmatrix_cases import LDMATRIX_GPU_CASES  # noqa: E402

LAUNCH = "attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>}"


def lower(path: Path) -> ModuleOp:
    return parse_and_lower(path.read_text(), str(path))


def lower_text(text: str) -> ModuleOp:
    return parse_and_lower(text, "test.mlir", passes="")


def sass_ops(sass: str) -> Counter[str]:
    return Counter(re.findall(r"\b((?:LDS|STS|LDG|STG|LDL|STL)(?:\.[A-Z0-9]+)*)", sass))


# ---- every example: lowered, printed, compiled cleanly, no local memory ---------------------


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_compiles_without_warnings(path: Path) -> None:
    source = print_cuda(lower(path))
    compiled = compile_cuda(source)
    assert compiled.log == "", compiled.log
    assert 'extern "C" __global__' in source
    sass = sass_ops(disassemble(compiled.cubin))
    assert not any(op.startswith(("LDL", "STL")) for op in sass), sass
    wide = {op for op in sass if op.startswith(("LDS.128", "STS.128")) or ".128" in op}
    assert wide, f"no 128-bit access in the SASS of {path.name}: {sass}"


# ---- the seed table: exactly `rounds` 128-bit transfers per copy ----------------------------

SEED_ROWS = [("f32", 8, 2), ("f32", 16, 4), ("f16", 8, 1), ("f16", 16, 2)]


@pytest.mark.parametrize("dtype,k,rounds", SEED_ROWS, ids=[f"{t}_k{k}" for t, k, _ in SEED_ROWS])
def test_seed_row_vector_transfers(dtype: str, k: int, rounds: int) -> None:
    """S -> R is `rounds` ld.shared.v4.u32 (one uint4 each), R -> S is `rounds`
    st.shared.v4.u32; the scalar fill/drain loops of the kernel are not vectorized (their
    thread stride is 32 elements), so these are the copies' accesses and nothing else's."""
    path = REPO / "test" / "gpu" / "kernels" / f"seed_{dtype}_k{k}.mlir"
    compiled = compile_cuda(print_cuda(lower(path)))
    assert compiled.log == ""
    ptx = Counter(re.findall(r"^\s*((?:ld|st)\.shared\.v\d\.\w+)", compiled.ptx, re.M))
    assert ptx == {"ld.shared.v4.u32": rounds, "st.shared.v4.u32": rounds}
    sass = sass_ops(disassemble(compiled.cubin))
    assert sass["LDS.128"] == rounds and sass["STS.128"] == rounds, sass
    assert not any(op.startswith(("LDL", "STL")) for op in sass), sass


# ---- the GPU cases, up to (not including) the launch ----------------------------------------


@pytest.mark.parametrize("case", [*ALL_CASES, *LDMATRIX_GPU_CASES, ALIGNMENT_CASE], ids=lambda c: c.name)
def test_gpu_case_compiles_with_expected_plan(case: GpuCase) -> None:
    """Every GPU kernel lowers to its expected (vec, rounds) plan and compiles cleanly with no
    LDL/STL (a copy B1-B4 may also be rejected: then it stays unlowered, by design)."""
    result, prepared = analyse_case(case)
    assert result.ok, f"{result.status}: {result.details}"
    if prepared is not None:
        assert result.plan == list(case.plan)
        assert result.local_accesses == 0


# ---- hand-lowered IR (independent of the pass) ----------------------------------------------

HAND_LOWERED = f"""
func.func @s2r(%S: memref<32x8xf32, #regcopy.mem<global>>, %O: memref<32x8xf32, #regcopy.mem<global>>) {LAUNCH} {{
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %lane = "gpu.lane_id"() : () -> index
  %c8 = arith.constant 8 : index
  %base = arith.muli %lane, %c8 : index
  %s = regcopy.storage %S : memref<32x8xf32, #regcopy.mem<global>> -> memref<256xf32, #regcopy.mem<global>>
  %o = regcopy.storage %O : memref<32x8xf32, #regcopy.mem<global>> -> memref<256xf32, #regcopy.mem<global>>
  %r = regcopy.storage %R : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<8xf32, #regcopy.mem<local>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  scf.for %f = %c0 to %c2 step %c1 {{
    %d = arith.muli %f, %c4 : index
    %off = arith.addi %base, %d : index
    %v = vector.load %s[%off] : memref<256xf32, #regcopy.mem<global>>, vector<4xf32>
    vector.store %v, %r[%d] : memref<8xf32, #regcopy.mem<local>>, vector<4xf32>
  }}
  scf.for %f = %c0 to %c2 step %c1 {{
    %d = arith.muli %f, %c4 : index
    %off = arith.addi %base, %d : index
    %v = vector.load %r[%d] : memref<8xf32, #regcopy.mem<local>>, vector<4xf32>
    vector.store %v, %o[%off] : memref<256xf32, #regcopy.mem<global>>, vector<4xf32>
  }}
  func.return
}}
"""


def test_hand_lowered_copy() -> None:
    source = print_cuda(lower_text(HAND_LOWERED))
    assert ("void __launch_bounds__(32) s2r(float* __restrict__ S, float* __restrict__ O)"
            in source)
    assert "alignas(16) float R[8];" in source
    assert "const int lane = (int)(threadIdx.x % 32);" in source
    assert source.count("#pragma unroll\n  for (int f") == 2
    assert "const uint4 v = *reinterpret_cast<const uint4*>(&S[off]);" in source
    assert "*reinterpret_cast<uint4*>(&R[d]) = v;" in source
    compiled = compile_cuda(source)
    assert compiled.log == ""
    ptx = Counter(re.findall(r"^\s*((?:ld|st)\.global(?:\.nc)?\.v\d\.\w+)", compiled.ptx, re.M))
    assert ptx == {"ld.global.nc.v4.u32": 2, "st.global.v4.u32": 2}
    assert "LDL" not in disassemble(compiled.cubin)


def test_vector_transfer_types() -> None:
    body = "\n".join(
        f"  %v{n} = vector.load %g[%c0] : memref<64xi8, #regcopy.mem<global>>, vector<{n}xi8>\n"
        f"  vector.store %v{n}, %g[%c{n}] : memref<64xi8, #regcopy.mem<global>>, vector<{n}xi8>"
        for n in (16, 8, 4, 2, 1))
    consts = "\n".join(f"  %c{n} = arith.constant {n * 2} : index" for n in (0, 16, 8, 4, 2, 1))
    text = (f"func.func @t(%g: memref<64xi8, #regcopy.mem<global>>) {LAUNCH} {{\n{consts}\n"
            f"{body}\n  func.return\n}}")
    source = print_cuda(lower_text(text))
    for n, t in ((16, "uint4"), (8, "uint2"), (4, "uint32_t"), (2, "uint16_t"), (1, "uint8_t")):
        assert f"const {t} v{n} = *reinterpret_cast<const {t}*>(&g[0]);" in source
        assert f"*reinterpret_cast<{t}*>(&g[{n * 2}]) = v{n};" in source
    assert compile_cuda(source).log == ""


ELEMENT_TYPES = ["f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "ui8", "f8E4M3FN",
                 "f8E5M2"]


@pytest.mark.parametrize("t", ELEMENT_TYPES)
def test_element_types_compile(t: str) -> None:
    g = f"memref<32x8x{t}, #regcopy.mem<global>>"
    s = f"memref<32x8x{t}, #regcopy.mem<shared>>"
    text = f"""func.func @copy_{t}(%a: {g}, %b: {g}) {LAUNCH} {{
  %S = memref.alloca() : {s}
  %lane = "gpu.lane_id"() : () -> index
  %c3 = arith.constant 3 : index
  %v = memref.load %a[%lane, %c3] : {g}
  memref.store %v, %S[%lane, %c3] : {s}
  "gpu.barrier"() : () -> ()
  %w = memref.load %S[%lane, %c3] : {s}
  memref.store %w, %b[%lane, %c3] : {g}
  func.return
}}"""
    compiled = compile_cuda(print_cuda(lower_text(text)))
    assert compiled.log == ""


ARITH = f"""
func.func @arith(%a: memref<64xi32, #regcopy.mem<global>>, %x: memref<64xf32, #regcopy.mem<global>>, %y: memref<64xf64, #regcopy.mem<global>>) {LAUNCH} {{
  %t = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %b = "gpu.block_id"() <{{dimension = #gpu<dim z>}}> : () -> index
  %bd = "gpu.block_dim"() <{{dimension = #gpu<dim y>}}> : () -> index
  %gd = "gpu.grid_dim"() <{{dimension = #gpu<dim x>}}> : () -> index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant -7 : index
  %0 = arith.addi %t, %c3 : index
  %1 = arith.subi %0, %b : index
  %2 = arith.muli %1, %bd : index
  %3 = arith.divsi %2, %c3 : index
  %4 = arith.divui %3, %c3 : index
  %5 = arith.remsi %4, %c7 : index
  %6 = arith.remui %5, %c3 : index
  %7 = arith.floordivsi %c7, %6 : index
  %8 = arith.ceildivsi %7, %c3 : index
  %9 = arith.andi %8, %gd : index
  %10 = arith.ori %9, %c3 : index
  %11 = arith.xori %10, %t : index
  %12 = arith.shli %11, %c3 : index
  %13 = arith.shrsi %12, %c3 : index
  %14 = arith.shrui %13, %c3 : index
  %15 = arith.minsi %14, %c3 : index
  %16 = arith.maxsi %15, %t : index
  %17 = arith.minui %16, %c3 : index
  %18 = arith.maxui %17, %t : index
  %lt = arith.cmpi ult, %18, %c3 : index
  %19 = arith.select %lt, %18, %t : index
  %i = arith.index_cast %19 : index to i32
  %c63 = arith.constant 63 : index
  %k = arith.andi %19, %c63 : index
  memref.store %i, %a[%k] : memref<64xi32, #regcopy.mem<global>>
  %f = memref.load %x[%k] : memref<64xf32, #regcopy.mem<global>>
  %half = arith.constant 0.5 : f32
  %inf = arith.constant 0x7F800000 : f32
  %f1 = arith.addf %f, %half : f32
  %f2 = arith.mulf %f1, %f1 : f32
  %f3 = arith.subf %f2, %half : f32
  %f4 = arith.divf %f3, %inf : f32
  %f5 = arith.negf %f4 : f32
  %f6 = arith.maxnumf %f5, %half : f32
  %d = arith.extf %f6 : f32 to f64
  %e = arith.sitofp %i : i32 to f64
  %d2 = arith.addf %d, %e : f64
  memref.store %f6, %x[%k] : memref<64xf32, #regcopy.mem<global>>
  memref.store %d2, %y[%k] : memref<64xf64, #regcopy.mem<global>>
  func.return
}}
"""


def test_arith_and_gpu_ops_compile_cleanly() -> None:
    source = print_cuda(lower_text(ARITH))
    for text in ("(int)blockIdx.z", "(int)blockDim.y", "(int)gridDim.x", "(unsigned int)",
                 "0.5f", "__int_as_float(0x7f800000)", "fmaxf(", "(double)",
                 # scalar float math rounds after each op (test_cuda_scalar_float.py)
                 "f1 = __fadd_rn(f, 0.5f);", "f2 = __fmul_rn(f1, f1);",
                 "f3 = __fsub_rn(f2, 0.5f);", "f4 = f3 / __int_as_float(0x7f800000);",
                 "d2 = __dadd_rn(d, e);"):
        assert text in source, text
    compiled = compile_cuda(source)
    assert compiled.log == "", compiled.log


def test_index64_for_2_pow_31_elements() -> None:
    text = f"""func.func @big(%a: memref<65536x32768xf32, #regcopy.mem<global>>) {LAUNCH} {{
  %t = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %c4096 = arith.constant 4096 : index
  %r = arith.muli %t, %c4096 : index
  %c1 = arith.constant 1 : index
  %v = memref.load %a[%r, %c1] : memref<65536x32768xf32, #regcopy.mem<global>>
  memref.store %v, %a[%r, %t] : memref<65536x32768xf32, #regcopy.mem<global>>
  func.return
}}"""
    source = print_cuda(lower_text(text))
    assert "const long long t = (long long)threadIdx.x;" in source
    assert "const long long r = t * 4096LL;" in source
    # the row offset r * 32768 is 64-bit math (lower-layout-access makes it index arithmetic)
    row = re.search(r"const long long (\w+) = r \* 32768LL;", source)
    assert row is not None, source
    assert re.search(rf"const long long (\w+) = {row[1]} \+ 1LL;\n.*= a\[\1\];", source)
    assert compile_cuda(source).log == ""
    small = print_cuda(lower_text(text.replace("65536x32768", "65535x32768")))
    assert "long long" not in small.split("\n\n", 1)[1]


# ---- errors: a clear message naming the op --------------------------------------------------


@pytest.mark.parametrize("body,op,words", [
    ("%v = vector.load %a[%c0] : memref<8xf32, #regcopy.mem<global>>, vector<3xf32>\n"
     "vector.store %v, %a[%c0] : memref<8xf32, #regcopy.mem<global>>, vector<3xf32>",
     "vector.load", "12 bytes"),
    ("%v = memref.load %a[%c0] : memref<8xf32, #regcopy.mem<global>>\n"
     "%w = math.sqrt %v : f32\nmemref.store %w, %a[%c0] : memref<8xf32, #regcopy.mem<global>>",
     "math.sqrt", "not supported"),
    ("%v = memref.load %h[%c0] : memref<8xf16, #regcopy.mem<global>>\n"
     "%w = arith.mulf %v, %v : f16\nmemref.store %w, %h[%c0] : memref<8xf16, #regcopy.mem<global>>",
     "arith.mulf", "f16"),
    ("%m = memref.alloc() : memref<8xf32>\n%v = memref.load %m[%c0] : memref<8xf32>\n"
     "memref.store %v, %a[%c0] : memref<8xf32, #regcopy.mem<global>>",
     "memref.alloc", "not supported"),
    ("%c1 = arith.constant 1 : index\n%z = arith.constant 0.0 : f32\n"
     "%s = scf.for %i = %c0 to %c1 step %c1 iter_args(%acc = %z) -> (f32) {\n"
     "  scf.yield %acc : f32\n}\nmemref.store %s, %a[%c0] : memref<8xf32, #regcopy.mem<global>>",
     "scf.for", "iter_args"),
])
def test_unsupported_op_is_named(body: str, op: str, words: str) -> None:
    text = (f"func.func @bad(%a: memref<8xf32, #regcopy.mem<global>>, "
            f"%h: memref<8xf16, #regcopy.mem<global>>) {LAUNCH} {{\n"
            f"%c0 = arith.constant 0 : index\n{body}\nfunc.return\n}}")
    with pytest.raises(CudaEmitError) as err:
        print_cuda(lower_text(text))
    message = str(err.value)
    assert message.startswith(f"'{op}' op") and words in message, message


def test_unlowered_copy_is_named() -> None:
    from regcopy_tools.regcopy_run import build_context
    from xdsl.parser import Parser

    text = (REPO / "examples" / "seed_demo.mlir").read_text()
    module = Parser(build_context(), text, "seed_demo.mlir").parse_module()
    with pytest.raises(UnsupportedOpError, match="'regcopy.copy' op is not lowered"):
        print_cuda(module)


def test_non_kernel_func_is_a_device_function() -> None:
    text = """func.func @helper(%a: memref<8xf32, #regcopy.mem<shared>>, %i: index) {
  %v = memref.load %a[%i] : memref<8xf32, #regcopy.mem<shared>>
  %c1 = arith.constant 1 : index
  memref.store %v, %a[%c1] : memref<8xf32, #regcopy.mem<shared>>
  func.return
}"""
    source = print_cuda(lower_text(text))
    assert 'extern "C" __device__ void helper(float* __restrict__ a, int i) {' in source
    assert "a[1] = v;" in source
    assert compile_cuda(source).log == ""


def test_kernel_parameter_must_be_global() -> None:
    text = (f"func.func @k(%a: memref<8xf32, #regcopy.mem<shared>>) {LAUNCH} {{\n"
            "func.return\n}")
    with pytest.raises(CudaEmitError, match="kernel parameter a is a shared buffer"):
        print_cuda(lower_text(text))


def test_nvrtc_error_carries_the_log() -> None:
    with pytest.raises(NvrtcError, match="undefined"):
        compile_cuda('extern "C" __global__ void k() { nope = 1; }')


def test_bad_input_to_run_pipeline_is_one_diagnostic() -> None:
    with pytest.raises(RunInputError, match=r"test.mlir:1:"):
        lower_text("func.func @x(")


def test_float_literals_are_exact() -> None:
    assert float_literal(0.1, single=False) == "0.1"
    assert float_literal(float("-inf"), single=True) == "__int_as_float(0xff800000)"
    assert float_literal(1.5, single=True) == "1.5f"


# ---- names: any MLIR name prints CUDA that compiles -----------------------------------------

NAMED_KERNEL = """func.func @{name}(%{arg}: memref<64xf32, #regcopy.mem<global>>, %n: index) {launch} {{
  %{local} = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %i = arith.addi %{local}, %n : index
  %v = memref.load %{arg}[%{local}] : memref<64xf32, #regcopy.mem<global>>
  memref.store %v, %{arg}[%i] : memref<64xf32, #regcopy.mem<global>>
  func.return
}}"""


def named_kernel(name: str, arg: str = "a", local: str = "t") -> str:
    return NAMED_KERNEL.format(name=name, arg=arg, local=local, launch=LAUNCH)


@pytest.mark.parametrize("name,c_name", [
    ("class", "k_class"), ("rc_f16", "k_rc_f16"), ('"a-b"', "a_b"), ("__x", "k_x"),
    ('"my kernel"', "my_kernel"), ("_Foo", "k_Foo"), ("sqrtf", "k_sqrtf"), ("min", "k_min"),
    ("rc_smem", "k_rc_smem"), ("a.b$c", "a_b_c"), ('"9lives"', "k_9lives"),
    ("plain_name", "plain_name")])
def test_kernel_names_are_mangled_to_compile(name: str, c_name: str) -> None:
    from regcopy_backend.kernel_info import kernel_info, kernels

    module = lower_text(named_kernel(name))
    source = print_cuda(module)
    assert f"void __launch_bounds__(32) {c_name}(float* __restrict__ a, int n)" in source
    compiled = compile_cuda(source)
    assert compiled.log == "", compiled.log
    assert f".entry {c_name}(" in compiled.ptx
    (info,) = [kernel_info(f) for f in kernels(module)]
    assert (info.name, info.c_name, info.symbol) == (name.strip('"'), c_name, c_name)


@pytest.mark.parametrize("arg,local,c_arg,c_local", [
    ("class", "int", "arg_class", "v_int"), ("__p", "_T", "arg_p", "v_T"),
    ("rc_f16", "rc_smem", "arg_rc_f16", "v_rc_smem"),
    ("uint4", "threadIdx", "arg_uint4", "v_threadIdx"), ("a.b", "float4", "a_b", "v_float4")])
def test_value_names_are_mangled_to_compile(arg: str, local: str, c_arg: str,
                                            c_local: str) -> None:
    source = print_cuda(lower_text(named_kernel("k", arg, local)))
    assert f"k(float* __restrict__ {c_arg}, int n) {{" in source
    assert f"const int {c_local} = (int)threadIdx.x;" in source
    compiled = compile_cuda(source)
    assert compiled.log == "", compiled.log


def test_colliding_kernel_names_stay_distinct() -> None:
    from regcopy_backend.kernel_info import kernel_info, kernels

    text = "\n".join(named_kernel(n) for n in ('"a-b"', "a_b", '"a b"', "k_class", "class"))
    module = lower_text(text)
    source = print_cuda(module)
    infos = [kernel_info(f) for f in kernels(module)]
    assert [i.c_name for i in infos] == ["a_b_1", "a_b", "a_b_2", "k_class", "k_class_1"]
    compiled = compile_cuda(source)
    assert compiled.log == ""
    for info in infos:
        assert f".entry {info.c_name}(" in compiled.ptx


# ---- scalar parameters and regcopy.multiple_of ----------------------------------------------


def test_scalar_parameters_and_multiple_of() -> None:
    from regcopy_backend.kernel_info import (
        KernelParam,
        ScalarParam,
        kernel_info,
        kernels,
    )

    text = f"""func.func @scal(%a: memref<256xf32, #regcopy.mem<global>>,
        %k: index {{regcopy.divisibility = 64 : i64}}, %m: i32, %u: ui8, %w: i64) {LAUNCH} {{
  %t = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %k2 = regcopy.multiple_of %k, 64 : index
  %c4 = arith.constant 4 : index
  %c4m = regcopy.multiple_of %c4, 4 : index
  %i = arith.addi %t, %k2 : index
  %j = arith.addi %i, %c4m : index
  %v = memref.load %a[%j] : memref<256xf32, #regcopy.mem<global>>
  memref.store %v, %a[%t] : memref<256xf32, #regcopy.mem<global>>
  func.return
}}"""
    module = lower_text(text)
    source = print_cuda(module)
    assert ("scal(float* __restrict__ a, int k, int m, unsigned char u, long long w)"
            in source)
    assert "const int i = t + k;" in source  # multiple_of is the value itself
    assert "a[i + 4]" in source or "const int j = i + 4;" in source
    assert "multiple_of" not in source
    assert compile_cuda(source).log == ""
    (info,) = [kernel_info(f) for f in kernels(module)]
    assert [type(p) for p in info.params] == [KernelParam, *[ScalarParam] * 4]
    assert [(p.name, p.ctype, str(p.dtype), p.divisibility) for p in info.scalars] == [
        ("k", "int", "int32", 64), ("m", "int", "int32", None),
        ("u", "unsigned char", "uint8", None), ("w", "long long", "int64", None)]
    assert [p.name for p in info.buffers] == ["a"]


@pytest.mark.parametrize("param,words", [
    ("%x: f16", "kernel parameters are global memrefs, integers"),
    ("%x: f32 {regcopy.divisibility = 4 : i64}", "integer and index arguments only"),
    ("%x: index {regcopy.divisibility = 0 : i64}", "must be an integer >= 1")])
def test_bad_scalar_parameter_is_one_diagnostic(param: str, words: str) -> None:
    """The printer's own check (for modules built in Python that skip ``regcopy-opt``'s
    verification, which refuses the broken promises earlier)."""
    text = f"func.func @k({param}) {LAUNCH} {{\n  func.return\n}}"
    with pytest.raises(CudaEmitError) as err:
        print_cuda(Parser(regcopy_context(), text, "test.mlir").parse_module())
    assert str(err.value).startswith("'func.func' op kernel @k") and words in str(err.value)


@pytest.mark.parametrize("param,words", [
    ("%x: f32 {regcopy.divisibility = 4 : i64}", "only integer and index arguments"),
    ("%x: index {regcopy.divisibility = 0 : i64}", "must be >= 1, got 0")])
def test_broken_promise_is_a_verifier_error(param: str, words: str) -> None:
    text = f"func.func @k({param}) {LAUNCH} {{\n  func.return\n}}"
    with pytest.raises(RunInputError) as err:
        lower_text(text)
    assert "does not verify" in str(err.value) and words in str(err.value)


# ---- shared memory: shared.dyn carve-up and the limits --------------------------------------

DYN = REPO / "test" / "backend" / "cuda-shared-dyn-192k.mlir"


def test_192k_shared_dyn_kernel_compiles() -> None:
    from regcopy_backend.kernel_info import kernel_info, kernels

    module = lower(DYN)
    (info,) = [kernel_info(f) for f in kernels(module)]
    assert (info.static_shared_bytes, info.dynamic_shared_bytes) == (0, 196608)
    compiled = compile_cuda(print_cuda(module))
    assert compiled.log == ""
    sass = sass_ops(disassemble(compiled.cubin))
    assert sass["LDS.128"] == 8 and sass["STS.128"] == 8, sass
    assert not any(op.startswith(("LDL", "STL")) for op in sass), sass


def shared_kernel(*buffers: tuple[str, str, str]) -> str:
    allocas = "\n".join(f"  %{n} = memref.alloca() : memref<{shape}xf32, #regcopy.mem<{space}>>"
                        for n, shape, space in buffers)
    stores = "\n".join(f"  memref.store %v, %{n}[{', '.join(['%c0'] * len(shape.split('x')))}]"
                       f" : memref<{shape}xf32, #regcopy.mem<{space}>>"
                       for n, shape, space in buffers)
    return (f"func.func @smem(%a: memref<8xf32, #regcopy.mem<global>>) {LAUNCH} {{\n"
            f"{allocas}\n  %c0 = arith.constant 0 : index\n"
            f"  %v = memref.load %a[%c0] : memref<8xf32, #regcopy.mem<global>>\n{stores}\n"
            "  func.return\n}")


def test_dynamic_offsets_are_128_byte_aligned() -> None:
    text = shared_kernel(("A", "3", "shared.dyn"), ("B", "40", "shared"),
                         ("C", "33", "shared.dyn"), ("D", "1", "shared.dyn"))
    source = print_cuda(lower_text(text))
    assert "reinterpret_cast<float*>(rc_smem + 0)" in source
    assert "reinterpret_cast<float*>(rc_smem + 128)" in source  # 12 bytes, rounded up
    assert "reinterpret_cast<float*>(rc_smem + 384)" in source  # 128 + 132 -> 384
    assert "__shared__ alignas(128) float B[40];" in source
    assert compile_cuda(source, options=("--diag-suppress=550",)).log == ""  # B: set, unread


def test_static_shared_over_48k_suggests_shared_dyn() -> None:
    text = shared_kernel(("A", "8192", "shared"), ("B", "4097", "shared"))
    with pytest.raises(CudaEmitError) as err:
        print_cuda(lower_text(text))
    message = str(err.value)
    assert "static shared memory is 49156 bytes (%A (32768 bytes), %B (16388 bytes))" in message
    assert "49152-byte (48 KiB)" in message and "#regcopy.mem<shared.dyn>" in message
    assert "ptxas" not in message


def test_shared_over_227k_is_refused() -> None:
    from regcopy_backend.kernel_info import kernel_info, kernels
    from regcopy_backend.shared_memory import SharedMemoryError

    ok = shared_kernel(("A", "58112", "shared.dyn"))  # exactly 227 KiB
    assert compile_cuda(print_cuda(lower_text(ok))).log == ""
    text = shared_kernel(("A", "57344", "shared.dyn"), ("B", "1024", "shared"))
    with pytest.raises(CudaEmitError) as err:
        print_cuda(lower_text(text))
    message = str(err.value)
    assert ("kernel smem: shared memory is 233472 bytes (%A (229376 bytes), %B (4096 bytes);"
            in message)
    assert "over the 232448-byte per-block limit of sm_90" in message
    with pytest.raises(SharedMemoryError, match="233472 bytes"):
        kernel_info(kernels(lower_text(text))[0])


def test_every_reserved_name_is_mangled_to_compile() -> None:
    """One module with a kernel named after each reserved name (keywords, CUDA built-ins,
    the printer's own names) and a parameter named likewise: NVRTC compiles it cleanly."""
    from regcopy_backend.cuda_names import RESERVED_NAMES

    names = sorted(RESERVED_NAMES)
    text = "\n".join(
        f'func.func @"{n}"(%{n}: memref<8xf32, #regcopy.mem<global>>, %{n}_: index) {LAUNCH}'
        f" {{\n  %c0 = arith.constant 0 : index\n  %i = arith.addi %{n}_, %c0 : index\n"
        f"  %v = memref.load %{n}[%i] : memref<8xf32, #regcopy.mem<global>>\n"
        f"  memref.store %v, %{n}[%c0] : memref<8xf32, #regcopy.mem<global>>\n  func.return\n}}"
        for n in names)
    source = print_cuda(lower_text(text))
    compiled = compile_cuda(source)
    assert compiled.log == "", compiled.log
    assert compiled.ptx.count(".entry ") == len(names) > 300
