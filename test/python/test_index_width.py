"""32-bit index math for runtime-shaped kernels, without a GPU: the printed ``rc_index``
typedef (64-bit as printed, 32-bit under ``-DREGCOPY_INDEX32``) and one signature for both
widths; the runner's choice at the boundary sizes (``index_width.index32_problem``, on shapes
and strides only: nothing of 2^31 elements is allocated); ``run_kernel`` compiling the
chosen form; ``-t ptx``/``-t sass`` saying which form they show; NVRTC compiling both forms
of the runtime-shaped examples (a few by default, all with ``REGCOPY_PERF=1``)."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ragged_cases import tile_copy
from xdsl.context import Context

from regcopy_backend.cuda.kernel_info import KernelInfo, kernel_info, kernels
from regcopy_backend.cuda.nvrtc import NvdisasmError, compile_cuda, disassemble
from regcopy_backend.cuda.printer import CudaEmitError, print_cuda
from regcopy_backend.cuda.targets import PtxTarget
from regcopy_backend.cuda.types import INDEX32_OPTION, INDEX_TYPEDEFS
from regcopy_backend.runtime.arguments import array_arg
from regcopy_backend.runtime.index_width import (
    INT32_MAX,
    fits_index32,
    index32_problem,
    launch_index32,
    reach,
)
from regcopy_tools.regcopy_run import parse_and_lower

REPO = Path(__file__).resolve().parents[2]
G = "memref<?x?xf32, #regcopy.mem<global>>"
LAUNCH = "attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>}"


def _lowered(text: str, passes: str = "lower-reg-copy") -> tuple[str, KernelInfo]:
    module = parse_and_lower(text, "index_width.mlir", passes=passes)
    return print_cuda(module), kernel_info(kernels(module)[0])


@pytest.fixture(scope="module")
def tile() -> tuple[str, KernelInfo]:
    """The 32 x 8 warp tile copy with runtime extents (``ragged_cases.tile_copy``)."""
    return _lowered(tile_copy())


# ---- printing ------------------------------------------------------------------------------


def test_runtime_shaped_kernel_prints_the_switch(tile: tuple[str, KernelInfo]) -> None:
    source, info = tile
    assert source.count(INDEX_TYPEDEFS) == 1 and "#ifdef REGCOPY_INDEX32" in source
    # one signature for both widths: the extents stay long long, read as rc_index
    assert ("tile(float* __restrict__ X, long long X_dim0, long long X_dim1, "
            "float* __restrict__ Y, long long Y_dim0, long long Y_dim1)") in source
    body = source.split("tile(", 1)[1]
    assert "(rc_index)X_dim1" in body and "const rc_index" in body
    assert "LL" not in body and "long long" not in body.split("{", 1)[1]
    assert info.index_switch and info.index64 and info.index_overhang == 128
    assert [p.dtype.name for p in info.scalars] == []


def test_static_kernels_keep_one_form() -> None:
    """A static kernel prints no typedef (its source is unchanged); one touching a static
    buffer of 2^31 elements keeps ``long long`` throughout, runtime-shaped buffers or not."""
    source, info = _lowered((REPO / "examples" / "seed_demo.mlir").read_text())
    assert "rc_index" not in source and "REGCOPY_INDEX32" not in source
    assert not info.index_switch and not info.index64
    big = "memref<65536x32768xf32, #regcopy.mem<global>>"
    text = f"""
func.func @k(%B: {big}, %X: {G}, %n: index) {LAUNCH} {{
  %c0 = arith.constant 0 : index
  %i = arith.addi %n, %n : index
  %v = memref.load %X[%c0, %i] : {G}
  memref.store %v, %B[%c0, %i] : {big}
  func.return
}}"""
    source, info = _lowered(text, passes="")
    assert "rc_index" not in source and "const long long i = n + n;" in source
    assert not info.index_switch and info.index64


def test_index_scalars_are_long_long_read_as_rc_index() -> None:
    text = f"""
func.func @k(%X: {G}, %n: index, %m: index) {LAUNCH} {{
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %k = arith.muli %c3, %c5 : index
  %i = arith.addi %n, %k : index
  %v = memref.load %X[%c0, %i] : {G}
  memref.store %v, %X[%m, %c0] : {G}
  func.return
}}"""
    source, info = _lowered(text, passes="")
    assert "k(float* __restrict__ X, long long X_dim0, long long X_dim1, long long n, " \
           "long long m)" in source
    assert "(rc_index)n + " in source
    assert "(rc_index)3 * 5" in source  # two literals: computed in rc_index, not int
    assert [(p.ctype, p.dtype.name) for p in info.scalars] == [("long long", "int64")] * 2


def test_both_forms_compile_without_warnings(tile: tuple[str, KernelInfo]) -> None:
    source, _ = tile
    wide, narrow = compile_cuda(source), compile_cuda(source, options=(INDEX32_OPTION,))
    assert wide.warnings == [] and narrow.warnings == []
    assert narrow.ptx.count(".s64") < wide.ptx.count(".s64") / 2


def test_32_bit_form_keeps_the_transfers_and_drops_64_bit_math() -> None:
    """``bench_ragged``'s 64 x 64 versioned copy: both forms have the same memory instructions
    (128-bit where aligned, no local memory); the 32-bit one is a fifth shorter or more."""
    from regcopy_bench.bench_ragged import NARROW, lowered
    from regcopy_bench.sass_loops import sass_ops
    from regcopy_tools.run_report import sass_memory_ops

    source, _ = lowered(NARROW, promised=False)
    try:
        wide, narrow = (disassemble(compile_cuda(source, options=o).cubin)
                        for o in ((), (INDEX32_OPTION,)))
    except NvdisasmError:
        pytest.skip("nvdisasm is not installed")
    assert sass_memory_ops(wide) == sass_memory_ops(narrow)
    assert sass_memory_ops(narrow)["STG.E.128"] >= 4
    assert not any(op.startswith(("LDL", "STL")) for op in sass_memory_ops(narrow))
    count = [sum(1 for _, o, _ in sass_ops(s) if o != ":") for s in (wide, narrow)]
    assert count[1] < 0.8 * count[0], count


# ---- the runner's choice -------------------------------------------------------------------


def test_reach_counts_the_overhang_in_every_dimension() -> None:
    assert reach((10, 20), (20, 1), 0) == 9 * 20 + 19
    assert reach((10, 20), (4096, 1), 3) == 12 * 4096 + 22
    assert reach((0, 20), (20, 1), 3) == 0


def test_choice_at_the_boundary(tile: tuple[str, KernelInfo]) -> None:
    """One column (N = 1): the reach is M - 1 + h + h; the largest M that fits is the last
    32-bit one. A buffer of 2^31 - 1 elements takes 64-bit (its overhang does not fit)."""
    _, info = tile
    h = info.index_overhang
    m = INT32_MAX - 2 * h + 1
    assert fits_index32(info, [(m, 1), (8, 8)])
    assert not fits_index32(info, [(m + 1, 1), (8, 8)])
    assert "reaches offset 2147483648" in str(index32_problem(info, [(8, 8), (m + 1, 1)]))
    assert not fits_index32(info, [(2**31 - 1, 1), (8, 8)])
    assert not fits_index32(info, [(2**16, 2**15), (8, 8)])  # 2^31 elements
    assert fits_index32(info, [(2**15, 2**15), (2**15, 2**15)])  # 2^30 elements
    assert fits_index32(info, [(0, 5), (8, 8)])  # an empty buffer launches nothing


def test_strided_views_count_their_leading_dimension(tile: tuple[str, KernelInfo]) -> None:
    """A 100 x 1000 view of few elements whose rows lie 2^25 elements apart reaches past
    2^31: 64-bit; the same view of a 4096-wide matrix fits."""
    _, info = tile
    assert not fits_index32(info, [(100, 1000), (8, 8)], strides=[(2**25, 1), None])
    assert fits_index32(info, [(100, 1000), (8, 8)], strides=[(4096, 1), None])


def test_index_scalars_and_grid_count() -> None:
    text = f"""
func.func @k(%X: {G}, %n: index) {LAUNCH} {{
  %c0 = arith.constant 0 : index
  %v = memref.load %X[%c0, %n] : {G}
  memref.store %v, %X[%c0, %c0] : {G}
  func.return
}}"""
    _, info = _lowered(text, passes="")
    r = reach((100, 100), (100, 1), info.index_overhang)
    assert fits_index32(info, [(100, 100)], scalars=[r - info.index_overhang])
    assert "index scalar %n" in str(index32_problem(info, [(100, 100)],
                                                    scalars=[r - info.index_overhang + 1]))
    assert not fits_index32(info, [(100, 100)], scalars=[-2**31])
    assert fits_index32(info, [(100, 100)], grid=(2**20, 1, 1), scalars=[0])
    assert "grid of" in str(index32_problem(info, [(100, 100)], [None], [0], (2**20, 2**6, 1)))
    with pytest.raises(ValueError, match="has 1 index scalars, got 0 values"):
        fits_index32(info, [(100, 100)])


def test_static_kernels_never_switch() -> None:
    _, info = _lowered((REPO / "examples" / "seed_demo.mlir").read_text())
    assert "no switchable index width" in str(index32_problem(info, [(1,)] * len(info.buffers)))


def test_launch_choice_from_the_arguments(tile: tuple[str, KernelInfo]) -> None:
    """``launch_index32`` on the arrays themselves: a broadcast 2^16 x 2^15 array (2^31
    elements, one byte of memory) takes 64-bit; a view whose leading dimension is huge
    (``as_strided`` over one element) too; small arrays 32-bit."""
    _, info = tile
    small = np.zeros((64, 16), np.float32)
    huge = np.broadcast_to(np.zeros((1, 1), np.float32), (2**16, 2**15))
    args = [small, small]
    assert launch_index32(info, args, [array_arg(a) for a in args], (2, 2, 1))
    args = [huge, small]
    assert not launch_index32(info, args, [array_arg(a) for a in args], (2, 2, 1))
    strided = parse_and_lower(tile_copy().replace(
        "#regcopy.mem<global>>", "strided<[?, 1]>, #regcopy.mem<global>>"), "s.mlir")
    sinfo = kernel_info(kernels(strided)[0])
    assert sinfo.index_switch
    far = np.lib.stride_tricks.as_strided(np.zeros(1, np.float32), shape=(100, 8),
                                          strides=(4 * 2**25, 4))
    near = np.zeros((100, 4096), np.float32)[:, :8]
    assert not launch_index32(sinfo, [far, near], [array_arg(far), array_arg(near)], (4, 1, 1))
    assert launch_index32(sinfo, [near, near], [array_arg(near)] * 2, (4, 1, 1))


def test_run_kernel_compiles_the_chosen_form(monkeypatch: pytest.MonkeyPatch,
                                             tile: tuple[str, KernelInfo]) -> None:
    """With a stand-in for cuda.core: a small launch compiles with ``index32`` (and says so
    in ``RunResult.index32``); the arguments are the same for both forms (long long)."""
    from types import SimpleNamespace

    from regcopy_backend.runtime import runner

    seen: dict[str, Any] = {}

    class Core:
        LegacyPinnedMemoryResource = staticmethod(lambda: None)
        LaunchConfig = staticmethod(lambda **kw: kw)

        @staticmethod
        def launch(stream: object, config: object, kernel: object, *args: object) -> None:
            seen.update(kernel=kernel, args=args)

    stream = SimpleNamespace(sync=lambda: None)
    dev = SimpleNamespace(properties=SimpleNamespace(max_shared_memory_per_block_optin=232448),
                          name="fake", create_stream=lambda: stream)
    monkeypatch.setattr(runner, "get_device", lambda: dev)
    monkeypatch.setattr(runner, "cuda_core", lambda: Core)
    monkeypatch.setattr(runner, "compile_kernel",
                        lambda d, src, name, index32=False: f"{name}:{index32}")
    handles = iter([0x1000, 0x2000])
    monkeypatch.setattr(runner, "_to_device",
                        lambda d, st, mr, a, sh: SimpleNamespace(handle=next(handles),
                                                                 close=lambda s: None))
    monkeypatch.setattr(runner, "_to_host", lambda st, mr, b, a, sh: a)
    source, info = tile
    x = np.zeros((40, 24), np.float32)
    result = runner.run_kernel(source, info, [x, x.copy()], grid=(2, 3))
    assert seen["kernel"] == "tile:True" and result.index32
    assert [type(a).__name__ for a in seen["args"]] == ["int", "int64", "int64"] * 2


# ---- -t ptx / -t sass ------------------------------------------------------------------------


def test_ptx_target_says_which_form_it_shows() -> None:
    module = parse_and_lower(tile_copy(), "tile.mlir")
    out = {}
    for index in (32, 64):
        stream = io.StringIO()
        PtxTarget(index=index).emit(Context(), module, stream)
        out[index] = stream.getvalue()
    assert out[32].startswith("// regcopy: index math of the runtime-shaped kernels: 32-bit")
    assert out[64].startswith("// regcopy: index math of the runtime-shaped kernels: 64-bit")
    assert out[32].count("mul.wide.s32") + out[32].count(".u32") > \
        out[64].count("mul.wide.s32") + out[64].count(".u32")
    with pytest.raises(CudaEmitError, match="index=16: the index width is 32 or 64"):
        PtxTarget(index=16).emit(Context(), module, io.StringIO())
    static = parse_and_lower((REPO / "examples" / "seed_demo.mlir").read_text(), "seed.mlir")
    stream = io.StringIO()
    PtxTarget().emit(Context(), static, stream)
    assert "regcopy: index math" not in stream.getvalue()


# ---- NVRTC: both forms of the runtime-shaped examples ----------------------------------------

DEFAULT_EXAMPLES = ("pad_rows.mlir", "rowwise.mlir")
"""The examples compiled in both forms by default (cheap ones); ``REGCOPY_PERF=1``: all of
those with runtime-shaped kernels."""


def _examples() -> list[str]:
    if os.environ.get("REGCOPY_PERF"):
        return sorted(p.name for p in (REPO / "examples").glob("*.mlir")
                      if "memref<?" in p.read_text())
    return list(DEFAULT_EXAMPLES)


@pytest.mark.parametrize("name", _examples())
def test_examples_compile_in_both_forms(name: str) -> None:
    path = REPO / "examples" / name
    module = parse_and_lower(path.read_text(), str(path))
    assert any(kernel_info(f).index_switch for f in kernels(module))
    source = print_cuda(module)
    for options in ((), (INDEX32_OPTION,)):
        compiled = compile_cuda(source, options=options)
        assert compiled.warnings == [], (name, options, compiled.warnings)
