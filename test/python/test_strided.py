"""Strided global buffers, ``memref<?x?xT, strided<[?, 1]>>`` (a view with a runtime row
stride): the verifier's accepted and refused forms and the ``regcopy.stride_divisibility``
promise, the interpreter on numpy views at ragged sizes and odd leading dimensions (the copy
equals numpy slicing, the gaps between rows untouched), the runner's checks and launch
parameters (no GPU needed), ``regcopy-run --arg X=AxB:S``, cp.async from a view and the
SASS of an aligned-stride copy."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from functools import cache

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from regcopy_backend.cuda.kernel_info import kernel_info, kernels
from regcopy_backend.cuda.printer import print_cuda
from regcopy_backend.interpreter.driver import launch, make_interpreter
from regcopy_backend.runtime.cpu_run import run_on_cpu, to_buffer
from regcopy_backend.runtime.runner import (
    ArgumentError,
    check_arguments,
    launch_arguments,
)
from regcopy_passes import lower
from strided_cases import (
    ELEMENTS,
    G,
    async_view_copy,
    grid_for,
    parent,
    view_copy,
    view_type,
)
from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, ModuleOp
from xdsl.parser import Parser

from regcopy_dialect.context import regcopy_context
from regcopy_dialect.diagnostics import first_invalid_op
from regcopy_dialect.regcopy import storage_type

# ---- the verifier --------------------------------------------------------------------------


def _kernel(args: str) -> func.FuncOp:
    text = f"func.func @k({args}) {{\n  func.return\n}}"
    module = Parser(regcopy_context(), text).parse_module()
    kernel = module.body.block.first_op
    assert isinstance(kernel, func.FuncOp)
    return kernel


@pytest.mark.parametrize("args", [
    f"%A: {view_type('f32')}",
    f"%A: {view_type('f32')} {{regcopy.stride_divisibility = array<i64: 8, 1>}}",
    (f"%A: memref<?x100xf16, strided<[4096, 1]>, {G}> {{regcopy.stride_divisibility = "
     "array<i64: 64, 1>}"),
    f"%A: memref<64x64xf32, strided<[?, 1]>, {G}>",
    f"%A: memref<64x64xf32, strided<[64, 1]>, {G}>",
    (f"%A: memref<?x?x?xi8, strided<[?, ?, 1]>, {G}> {{regcopy.stride_divisibility = "
     "array<i64: 16, 16, 1>, regcopy.divisibility = array<i64: 1, 1, 16>}"),
])
def test_accepted_forms(args: str) -> None:
    assert first_invalid_op(_kernel(args)) is None


@pytest.mark.parametrize(("args", "message"), [
    ("%S: memref<64x64xf32, strided<[?, 1]>, #regcopy.mem<shared>>",
     "strided<[?, 1]> on a non-global buffer: strided layouts are for global buffers"),
    (f"%A: memref<?x?xf32, strided<[?, 1], offset: ?>, {G}>",
     "strided<[?, 1]> with offset ?: a strided buffer starts at its pointer"),
    (f"%A: memref<?x?xf32, strided<[?, 2]>, {G}>",
     "strided<[?, 2]>: the innermost stride must be 1 (rows are contiguous)"),
    (f"%A: memref<?x?xf32, strided<[0, 1]>, {G}>", "stride 0 of dim 0 must be >= 1 or ?"),
    (f"%A: memref<?x100xf32, strided<[64, 1]>, {G}>",
     "stride 64 of dim 0 is below 100 (extent 100 x stride 1 of dim 1): rows would overlap"),
    (f"%A: memref<?x?xf32, {G}> {{regcopy.stride_divisibility = array<i64: 4, 1>}}",
     ("regcopy.stride_divisibility on argument #0 (%A) of type memref<?x?xf32, "
      "#regcopy.mem<global>>: only memref arguments with a strided<[...]> layout")),
    (f"%A: {view_type('f32')} {{regcopy.stride_divisibility = array<i64: 4>}}",
     "has 1 entries for 2 strides; give one per dimension, such as array<i64: 8, 1>"),
    (f"%A: {view_type('f32')} {{regcopy.stride_divisibility = array<i64: 0, 1>}}",
     "entry 0 of argument #0 (%A) must be >= 1 (1: no promise), got 0"),
    (f"%A: {view_type('f32')} {{regcopy.stride_divisibility = array<i64: 4, 2>}}",
     "entry 1 of argument #0 (%A) is 2, which does not divide the static stride 1"),
    (f"%A: {view_type('f32')} {{regcopy.stride_divisibility = 4 : i64}}",
     "must be an array with one divisor per stride, such as array<i64: 8, 1>, got 4 : i64"),
    ("%i: index {regcopy.stride_divisibility = array<i64: 4, 1>}",
     "only memref arguments with a strided<[...]> layout have strides to promise"),
])
def test_refused_forms_are_one_line(args: str, message: str) -> None:
    bad = first_invalid_op(_kernel(args))
    assert bad is not None
    error = str(bad[1])
    assert message in error
    assert "\n" not in error


def test_regcopy_opt_refuses_with_a_location(tmp_path) -> None:
    src = tmp_path / "bad.mlir"
    src.write_text(f"func.func @k(%A: memref<?x?xf32, strided<[?, 2]>, {G}>) {{\n"
                   "  func.return\n}\n")
    proc = subprocess.run([sys.executable, "-m", "regcopy_tools.regcopy_opt", str(src)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    first = proc.stderr.splitlines()[0]
    assert re.match(r".*bad\.mlir:1:1: error: .*innermost stride must be 1", first), first


def test_the_python_builder_makes_strided_types() -> None:
    from regcopy_dialect import global_buffer_type

    assert str(global_buffer_type([None, None], "f32", strides=[None, 1])) == view_type("f32")
    assert str(global_buffer_type([None, 100], "f16", strides=[4096, 1])) == \
        f"memref<?x100xf16, strided<[4096, 1]>, {G}>"
    with pytest.raises(ValueError, match="the innermost stride must be 1"):
        global_buffer_type([None, None], "f32", strides=[None, 2])


def test_storage_of_a_view_is_one_dimensional() -> None:
    kernel = _kernel(f"%A: {view_type('f16')}")
    t = storage_type(kernel.args[0].type)  # type: ignore[arg-type]
    assert t.get_shape() == (DYNAMIC_INDEX,) and str(t.element_type) == "f16"


# ---- the interpreter on numpy views ----------------------------------------------------------


@cache
def _lowered(text: str) -> ModuleOp:
    return lower(Parser(regcopy_context(), text).parse_module())


def _reference(text: str) -> ModuleOp:
    return Parser(regcopy_context(), text).parse_module()


def _run_views(text: str, name: str, m: int, n: int, ld_x: int, ld_y: int, dtype: type,
               k: int, lowered: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Run the copy on views ``X = PX[1:1+m, 3:3+n]`` (row stride ``ld_x``) and ``Y`` (row
    stride ``ld_y``); returns the parents before and ``Y`` after, and checks ``X`` is unchanged."""
    px = parent(m + 2, ld_x, dtype, m * 31 + n)
    py = parent(m + 1, ld_y, dtype, n * 17 + m)
    x, y = px[1:1 + m, 3:3 + n], py[1:1 + m, :n]
    module = _lowered(text) if lowered else _reference(text)
    xo, yo = run_on_cpu(module, name, [x, y], grid=grid_for(m, n, k))
    assert (xo == x).all()
    return x, y, yo


@pytest.mark.parametrize(("m", "n", "ld_x", "ld_y"), [
    (1, 1, 7, 5), (5, 7, 13, 11), (33, 12, 50, 17), (40, 9, 9 + 3, 9), (31, 17, 101, 64),
])
@pytest.mark.parametrize("lowered", [False, True], ids=["reference", "lowered"])
def test_view_copy_equals_numpy_slicing(m: int, n: int, ld_x: int, ld_y: int,
                                        lowered: bool) -> None:
    _, _, y = _run_views(view_copy(), "view", m, n, ld_x + 3, ld_y, np.float32, 8, lowered)
    x = parent(m + 2, ld_x + 3, np.float32, m * 31 + n)[1:1 + m, 3:3 + n]
    assert (y == x).all()


def test_the_gaps_between_rows_are_never_written() -> None:
    """The span of Y holds its rows and the gaps between them: only the rows change."""
    module = _lowered(view_copy())
    fn = kernels(module)[0]
    m, n, ld = 37, 13, 21
    px, py = parent(m, ld, np.float32, 1), parent(m, ld, np.float32, 2)
    x, y = px[:, 4:4 + n], py[:, 5:5 + n]
    bx = to_buffer(fn.args[0].type, x)  # type: ignore[arg-type]
    by = to_buffer(fn.args[1].type, y)  # type: ignore[arg-type]
    launch(make_interpreter(module), "view", [bx, by], grid=grid_for(m, n, 8))
    span = np.array(by.storage, np.float32)
    want = py.reshape(-1)[5:5 + len(span)].copy()
    for i in range(m):
        want[i * ld:i * ld + n] = x[i]
    assert (span == want).all()


@pytest.mark.parametrize("elem", ["f16", "i8"])
def test_narrow_elements_with_promised_strides(elem: str) -> None:
    dtype = ELEMENTS[elem]
    k = 16
    text = view_copy(elem, k, extent=1, stride=16)
    px, py = parent(40, 48, dtype, 3), parent(40, 32, dtype, 4)
    x, y = px[2:35, 16:16 + 21], py[:33, :21]
    _, yo = run_on_cpu(_lowered(text), "view", [x, y], grid=grid_for(33, 21, k))
    assert (yo == x).all()


@given(m=st.integers(1, 40), n=st.integers(1, 33), pad_x=st.integers(0, 9),
       pad_y=st.integers(0, 9), col=st.integers(0, 5),
       case=st.sampled_from([("f32", 8, 1, 1), ("f32", 8, 4, 4), ("f16", 8, 1, 2),
                             ("i8", 16, 1, 1)]))
def test_views_of_any_shape_and_stride(m: int, n: int, pad_x: int, pad_y: int, col: int,
                                       case: tuple[str, int, int, int]) -> None:
    """Any ragged shape, leading dimensions and column offset (strides rounded up to the
    promise the kernel makes): the lowered copy equals numpy slicing."""
    elem, k, extent, stride = case
    n = -(-n // extent) * extent
    dtype = ELEMENTS[elem]
    ld_x = -(-(n + col + pad_x) // stride) * stride
    ld_y = -(-(n + pad_y) // stride) * stride
    px, py = parent(m, ld_x, dtype, m + n), parent(m, ld_y, dtype, pad_x)
    x, y = px[:, col:col + n], py[:, :n]
    _, yo = run_on_cpu(_lowered(view_copy(elem, k, extent, stride)), "view", [x, y],
                       grid=grid_for(m, n, k))
    assert (yo == x).all()


def test_async_copy_from_a_view() -> None:
    text = async_view_copy(stride=2)
    px, py = parent(80, 202, np.float16, 5), parent(80, 136, np.float16, 6)
    x, y = px[3:72, 10:10 + 128], py[:69, :128]
    for module in (_reference(text), _lowered(text)):
        _, yo = run_on_cpu(module, "async_view", [x, y], grid=grid_for(69, 128, 64))
        assert (yo == x).all()


def test_the_interpreter_refuses_a_broken_stride_promise() -> None:
    x = parent(8, 10, np.float32, 0)[:, :8]
    with pytest.raises(Exception, match=r"stride 10 in dim 0, which breaks its promise "
                       r"regcopy.stride_divisibility = array<i64: 4, 1>"):
        run_on_cpu(_lowered(view_copy(stride=4)), "view", [x, x.copy()], grid=(1, 1))


TILE_VIEWS = """func.func @tile(%X: memref<64x64xf32, strided<[?, 1]>, #regcopy.mem<global>>, %Y: memref<64x64xf32, strided<[128, 1]>, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [2, 8]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
  %c32 = arith.constant 32 : index
  %c8 = arith.constant 8 : index
  %r = arith.muli %bx, %c32 : index
  %c = arith.muli %by, %c8 : index
  regcopy.copy warp %X[%r, %c] [32, 8] -> %R : memref<64x64xf32, strided<[?, 1]>, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %v = memref.load %X[%r, %c] : memref<64x64xf32, strided<[?, 1]>, #regcopy.mem<global>>
  %one = arith.constant 1.0 : f32
  %w = arith.addf %v, %one : f32
  regcopy.copy warp %R -> %Y[%r, %c] [32, 8] : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<64x64xf32, strided<[128, 1]>, #regcopy.mem<global>>
  memref.store %w, %Y[%r, %c] : memref<64x64xf32, strided<[128, 1]>, #regcopy.mem<global>>
  func.return
}
"""
"""Static sizes, a runtime and a static stride; element accesses by logical indices."""


def test_static_sizes_static_strides_and_element_accesses() -> None:
    """``memref<64x64xf32, strided<[?, 1]>>`` (a fixed tile of a larger matrix) and
    ``strided<[128, 1]>`` (a static stride: no parameter), with ``memref.load``/``store``
    addressed by the strides, lowered and run: Y = X, and Y[0, c] = X[0, c] + 1 at the first
    element of each tile."""
    module = _lowered(TILE_VIEWS)
    source = print_cuda(module)
    assert "tile(float* __restrict__ X, long long X_stride0, float* __restrict__ Y)" in source
    assert "* 128;" in source and "LL" not in source.split("tile(", 1)[1]
    px, py = parent(64, 100, np.float32, 7), parent(64, 128, np.float32, 8)
    x, y = px[:, :64], py[:, :64]
    _, yo = run_on_cpu(module, "tile", [x, y])
    want = x.copy()
    want[::32, ::8] += 1
    assert (yo == want).all()
    with pytest.raises(ArgumentError, match="has stride 100 in dim 0, the buffer's static "
                       "stride there is 128"):
        check_arguments(kernel_info(kernels(module)[0]), [x, px[:, :64]])


# ---- the runner (no GPU) -------------------------------------------------------------------


def _info(text: str):
    return kernel_info(kernels(_lowered(text))[0])


def test_launch_passes_the_stride_after_the_extents() -> None:
    info = _info(view_copy())
    x = np.zeros((100, 4096), np.float32)[:, :1000]
    y = np.zeros((100, 1000), np.float32)
    check_arguments(info, [x, y])
    params = launch_arguments(info, [x, y], [0x1000, 0x2000])
    assert [int(p) for p in params] == [0x1000, 100, 1000, 4096, 0x2000, 100, 1000, 1000]
    source = print_cuda(_lowered(view_copy()))
    assert ("view(float* __restrict__ X, long long X_dim0, long long X_dim1, long long "
            "X_stride0, float* __restrict__ Y, long long Y_dim0, long long Y_dim1, long long "
            "Y_stride0)") in source


@pytest.mark.parametrize(("view", "message"), [
    (lambda: np.zeros((8, 64), np.float32)[:, :30], (r"stride 64 in dim 0, which breaks its "
     r"promise regcopy.stride_divisibility = array<i64: 128, 1>")),
    (lambda: np.zeros((8, 64), np.float32)[:, ::2], r"the innermost stride must be 1"),
    (lambda: np.zeros(64, np.float32).reshape(8, 8).T, r"the innermost stride must be 1"),
    (lambda: np.lib.stride_tricks.as_strided(np.zeros(64, np.float32), (8, 16), (32, 4)),
     r"rows would overlap"),
])
def test_the_runner_refuses_a_bad_view(view, message: str) -> None:
    info = _info(view_copy(stride=128))
    good = np.zeros((8, 128), np.float32)[:, :30]
    with pytest.raises(ArgumentError, match=message) as e:
        check_arguments(info, [view(), good])
    assert "\n" not in str(e.value) and "refusing to launch" in str(e.value)


# ---- regcopy-run ---------------------------------------------------------------------------


def _regcopy_run(capsys, tmp_path, text: str, *args: str) -> tuple[int, str, str]:
    from regcopy_tools.regcopy_run import main

    src = tmp_path / "view.mlir"
    src.write_text(text)
    with pytest.raises(SystemExit) as done:
        main([str(src), *args])
    out, err = capsys.readouterr()
    return int(done.value.code or 0), out, err


def test_regcopy_run_takes_a_leading_dimension(capsys, tmp_path) -> None:
    code, out, err = _regcopy_run(capsys, tmp_path, view_copy(), "--check", "--arg",
                                  "X=33x12:50", "--arg", "Y=33x12:13", "--grid", "2,2")
    assert code == 0, err
    assert out.splitlines() == ["view.X f32[33x12] equal (396 elements)",
                                "view.Y f32[33x12] equal (396 elements)"]


@pytest.mark.parametrize(("spec", "message"), [
    ("X=33x12:10", ("--arg X=33x12:10: the view has element strides [10, 1]: stride 10 of "
                    "dim 0 is below 12 (extent 12 x stride 1 of dim 1): rows would overlap")),
    ("X=33x12:50", ("--arg X=33x12:50: the view has stride 50 in dim 0, which breaks its "
                    "promise regcopy.stride_divisibility = array<i64: 4, 1>")),
    ("X=33x12:5,6", "--arg X=33x12:5,6: %X is strided<[?, 1]>; give 1 leading stride"),
    ("X=33x12:s", "--arg X=33x12:s: give the leading strides as integers"),
])
def test_regcopy_run_refuses_a_bad_leading_dimension(capsys, tmp_path, spec: str,
                                                     message: str) -> None:
    code, out, err = _regcopy_run(capsys, tmp_path, view_copy(stride=4), "--check", "--arg",
                                  spec, "--arg", "Y=33x12:16")
    (line,) = [ln for ln in err.splitlines() if "no CUDA GPU" not in ln]
    assert code == 1 and out == "" and "Traceback" not in err
    assert line.startswith(f"regcopy-run: error: {message}")


# ---- SASS (NVRTC and the disassembler run on the CPU) ----------------------------------------


def test_an_aligned_stride_keeps_128_bit_transfers() -> None:
    from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble

    tile = "memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>>"
    g = view_type("f32")
    p = "{regcopy.divisibility = array<i64: 1, 4>, regcopy.stride_divisibility = array<i64: 4, 1>}"
    text = f"""func.func @rows(%A: {g} {p}, %B: {g} {p}) attributes
    {{regcopy.launch = #regcopy.launch<block = 256, grid = [8]>}} {{
  %R = memref.alloca() : {tile}
  %bx = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %c8 = arith.constant 8 : index
  %row = arith.muli %bx, %c8 : index
  regcopy.copy cta %A[%row, 0] [8, 1024] -> %R : {g} -> {tile}
  regcopy.copy cta %R -> %B[%row, 0] [8, 1024] : {tile} -> {g}
  func.return
}}"""
    sass = disassemble(compile_cuda(print_cuda(_lowered(text))).cubin)
    ops = Counter(re.findall(r"\b(?:LDG|STG|LDL|STL)(?:\.E)?(?:\.\d+)?", sass))
    assert ops == {"LDG.E.128": 8, "STG.E.128": 8}
