"""The CUDA target (docs/ir.md) without a GPU: print, compile with NVRTC for sm_90 (no warnings),
count the vector transfers in the PTX, and check the SASS (nvdisasm) for 128-bit shared/global
accesses and no local memory (LDL/STL)."""

from __future__ import annotations

import re
from collections import Counter
from functools import cache
from pathlib import Path

import pytest
from hypothesis_profiles import PROFILE
from regcopy_backend.cuda.printer import CudaEmitError, UnsupportedOpError, print_cuda
from regcopy_backend.cuda.arith import float_literal
from regcopy_backend.cuda.nvrtc import SM90A_MARKER, NvrtcError, compile_cuda, disassemble
from regcopy_tools.regcopy_run import RunInputError

from cuda_helpers import LAUNCH, lower, lower_text, sass_ops
from sass_batch import batched_sass

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "examples").glob("*.mlir"))
THOROUGH = PROFILE != "ci"
from cases import ALIGNMENT_CASE, ALL_CASES, GpuCase, analyse_case  # noqa: E402
from ldmatrix_cases import LDMATRIX_GPU_CASES  # noqa: E402

# ---- every example: lowered, printed, compiled cleanly, no local memory ---------------------

ALONE = {"gemm_hopper.mlir", "gemm.mlir", "gemm_any_k.mlir", "softmax.mlir"}
"""The examples whose NVRTC compile costs more than a disassembly (a second of CPU or more):
their SASS comes from their own compile (as does that of an sm_90a module); that of the
others, and of the seed rows' kernels, from one compile and one disassembly of them all
(``sass_batch``)."""
SEED_KERNELS = REPO / "test" / "gpu" / "kernels"


@cache
def printed(path: Path) -> str:
    return print_cuda(lower(path))


@cache
def _batched_listings() -> dict[Path, str]:
    """The SASS of every example not in ``ALONE`` and of every seed row's kernel, by path."""
    paths = [p for p in EXAMPLES if not alone(p)]
    paths += [SEED_KERNELS / f"seed_{t}_k{k}.mlir" for t, k, _ in SEED_ROWS]
    listings = batched_sass([printed(p) for p in paths])
    return {p: "".join(parts.values()) for p, parts in zip(paths, listings, strict=True)}


def alone(path: Path) -> bool:
    """Whether ``path``'s SASS comes from its own compile (``ALONE``, or sm_90a-only)."""
    return path.name in ALONE or printed(path).startswith(SM90A_MARKER)


def listing_of(path: Path, cubin: bytes) -> str:
    """The SASS of ``path``'s kernels (``cubin``: its own compile)."""
    return disassemble(cubin) if alone(path) else _batched_listings()[path]


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_compiles_without_warnings(path: Path) -> None:
    source = printed(path)
    compiled = compile_cuda(source)
    assert compiled.log == "", compiled.log
    assert 'extern "C" __global__' in source
    listing = listing_of(path, compiled.cubin)
    sass = sass_ops(listing)
    assert not any(op.startswith(("LDL", "STL")) for op in sass), sass
    wide = {op for op in sass if op.startswith(("LDS.128", "STS.128")) or ".128" in op}
    # 16-byte cp.async (LDGSTS ... .128) is a 128-bit access too (sass_ops reads it as LDG)
    wide |= set(re.findall(r"\bLDGSTS\S*\.128\b", listing))
    assert wide, f"no 128-bit access in the SASS of {path.name}: {sass}"


# ---- the seed table: exactly `rounds` 128-bit transfers per copy ----------------------------

SEED_ROWS = [("f32", 8, 2), ("f32", 16, 4), ("f16", 8, 1), ("f16", 16, 2)]


@pytest.mark.parametrize("dtype,k,rounds", SEED_ROWS, ids=[f"{t}_k{k}" for t, k, _ in SEED_ROWS])
def test_seed_row_vector_transfers(dtype: str, k: int, rounds: int) -> None:
    """S -> R is `rounds` ld.shared.v4.u32 (one uint4 each), R -> S is `rounds`
    st.shared.v4.u32; the scalar fill/drain loops of the kernel are not vectorized (their
    thread stride is 32 elements), so these are the copies' accesses and nothing else's."""
    path = SEED_KERNELS / f"seed_{dtype}_k{k}.mlir"
    compiled = compile_cuda(printed(path))
    assert compiled.log == ""
    ptx = Counter(re.findall(r"^\s*((?:ld|st)\.shared\.v\d\.\w+)", compiled.ptx, re.M))
    assert ptx == {"ld.shared.v4.u32": rounds, "st.shared.v4.u32": rounds}
    sass = sass_ops(listing_of(path, compiled.cubin))
    assert sass["LDS.128"] == rounds and sass["STS.128"] == rounds, sass
    assert not any(op.startswith(("LDL", "STL")) for op in sass), sass


# ---- the GPU cases, up to (not including) the launch ----------------------------------------


@pytest.mark.parametrize("case", [*ALL_CASES, *LDMATRIX_GPU_CASES, ALIGNMENT_CASE], ids=lambda c: c.name)
def test_gpu_case_compiles_with_expected_plan(case: GpuCase) -> None:
    """Every GPU kernel lowers to its expected (vec, rounds) plan and compiles cleanly with no
    LDL/STL (a copy B1-B4 may also be rejected: then it stays unlowered, by design): by
    ptxas's local-memory warning (test_cuda_lit_cases shows on a kernel that spills that it
    names exactly the kernels whose SASS has them), and in the SASS under
    ``REGCOPY_HYPOTHESIS=thorough``."""
    result, prepared = analyse_case(case, sass=THOROUGH)
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
     "%w = math.sin %v : f32\nmemref.store %w, %a[%c0] : memref<8xf32, #regcopy.mem<global>>",
     "math.sin", "not supported"),
    ("%v = memref.load %h[%c0] : memref<8xf16, #regcopy.mem<global>>\n"
     "%w = arith.mulf %v, %v : f16\nmemref.store %w, %h[%c0] : memref<8xf16, #regcopy.mem<global>>",
     "arith.mulf", "f16"),
    ("%m = memref.alloc() : memref<8xf32>\n%v = memref.load %m[%c0] : memref<8xf32>\n"
     "memref.store %v, %a[%c0] : memref<8xf32, #regcopy.mem<global>>",
     "memref.alloc", "not supported"),
    ("%v = vector.load %h[%c0] : memref<8xf16, #regcopy.mem<global>>, vector<4xf16>\n"
     "%w = math.exp %v : vector<4xf16>\n"
     "vector.store %w, %h[%c0] : memref<8xf16, #regcopy.mem<global>>, vector<4xf16>",
     "math.exp", "vectors of f32 lanes"),
])
def test_unsupported_op_is_named(body: str, op: str, words: str) -> None:
    text = (f"func.func @bad(%a: memref<8xf32, #regcopy.mem<global>>, "
            f"%h: memref<8xf16, #regcopy.mem<global>>) {LAUNCH} {{\n"
            f"%c0 = arith.constant 0 : index\n{body}\nfunc.return\n}}")
    with pytest.raises(CudaEmitError) as err:
        print_cuda(lower_text(text))
    message = str(err.value)
    head = message.splitlines()[0]  # file:line:col: error: '<op>' op ...
    assert head.split(": error: ", 1)[-1].startswith(f"'{op}' op") and words in message, message


def test_unlowered_copy_is_named() -> None:
    from regcopy_tools.regcopy_run import build_context
    from xdsl.parser import Parser

    text = (REPO / "examples" / "seed_demo.mlir").read_text()
    module = Parser(build_context(), text, "seed_demo.mlir").parse_module()
    with pytest.raises(UnsupportedOpError, match=r"'regcopy\.copy' op is not lowered"):
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
