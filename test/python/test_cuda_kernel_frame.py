"""The CUDA target's kernel frame without a GPU: any MLIR name prints CUDA that compiles (kernel,
value and reserved names mangled), scalar parameters and ``regcopy.multiple_of``, and shared
memory (the ``shared.dyn`` carve-up, its alignment and the 48 KiB / 227 KiB limits), each
compiled with NVRTC for sm_90."""

from __future__ import annotations

from pathlib import Path

import pytest
from regcopy_backend.cuda.printer import CudaEmitError, print_cuda
from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
from regcopy_tools.regcopy_run import RunInputError
from xdsl.parser import Parser

from regcopy_dialect.context import regcopy_context
from cuda_helpers import LAUNCH, lower, lower_text, sass_ops

REPO = Path(__file__).resolve().parents[2]


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
    from regcopy_backend.cuda.kernel_info import kernel_info, kernels

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
    from regcopy_backend.cuda.kernel_info import kernel_info, kernels

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
    from regcopy_backend.cuda.kernel_info import (
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
    ("%x: f32 {regcopy.divisibility = 4 : i64}", "only integer and index arguments"),
    ("%x: index {regcopy.divisibility = 0 : i64}", "must be >= 1, got 0")])
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
    from regcopy_backend.cuda.kernel_info import kernel_info, kernels

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
    from regcopy_backend.cuda.kernel_info import kernel_info, kernels
    from regcopy_backend.cuda.shared_memory import SharedMemoryError

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
    from regcopy_backend.cuda.names import RESERVED_NAMES

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
