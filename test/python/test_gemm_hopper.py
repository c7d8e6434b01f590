"""examples/gemm_hopper.mlir (TMA ring -> regcopy.wgmma in two CTA tiles, and the row-padding
kernel for odd K): its kernels are ``regcopy_bench.gemm_hopper``'s; on the CPU interpreter, lowered with
``transfer=tma`` (TMA loads, mbarriers, wgmma read through its descriptors), it computes
``A B^T`` exactly at a size ragged in M, N and K; its SASS has the m64n256k16 HGMMAs, the TMA
loads and no local memory; on the H200 every CTA tile and epilogue is bit-exact on
integer-valued data (odd N included), and so is the pad + GEMM pair at an odd K."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest
from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_backend.runtime.runner import gpu_available
from regcopy_bench.gemm_hopper import (
    EXAMPLE,
    PAD,
    PAD_ROWS,
    PADS,
    TILE,
    choose_tile,
    example_kernels,
    example_passes,
    grid,
    kernel_text,
    pad_pair_grid,
    pad_pair_text,
    split_epilogue,
)
from regcopy_tools.regcopy_run import parse_and_lower
from xdsl.dialects.builtin import ModuleOp

REPO = Path(__file__).resolve().parents[2]
TMA = "lower-reg-copy{transfer=tma}"
HAS_GPU, WHY = gpu_available()


@cache
def _lowered_gemm() -> ModuleOp:
    """The f16 GEMM kernel lowered with ``transfer=tma``, once for the module's tests (which
    read it: the interpreter and the printer leave it as it is)."""
    return parse_and_lower(kernel_text("gemm", "f16"), "g.mlir", TMA)


def test_example_is_the_benchmarked_kernel() -> None:
    text = (REPO / "examples" / "gemm_hopper.mlir").read_text()
    kernels = ["func.func" + k for k in text.split("func.func")[1:]]
    assert [k.strip() for k in kernels] == [k.strip() for k in example_kernels()]
    names = [k.split("(")[0].split("@")[1] for k in kernels]
    assert names == ["gemm_hopper", "gemm_hopper_bf16", "gemm_hopper_256x128",
                     "gemm_hopper_256x128_bf16", "pad_pair", "pad_pair_bf16"]
    assert f"-p '{example_passes()}'" in text  # the header's commands lower it as measured


def _data(m: int, n: int, k: int, seed: int = 1) -> tuple[list[np.ndarray], np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.integers(-2, 3, (m, k)).astype(np.float16)
    b = rng.integers(-2, 3, (n, k)).astype(np.float16)
    want = a.astype(np.float64) @ b.astype(np.float64).T
    return [a, b, np.zeros((m, n), np.float16)], want


def test_cpu_lowered_equals_numpy() -> None:
    """Two warpgroups (M = 70 > 64), N ragged and odd (D's rows misaligned: the epilogue's
    stores realigned), two K tiles, the last ragged."""
    m, n, k = 70, 41, 72
    args, want = _data(m, n, k)
    out = run_on_cpu(_lowered_gemm(), "gemm", args, grid=grid(m, n))
    assert np.array_equal(out[2].astype(np.float64), want)


def test_cpu_rowwarp_epilogue_equals_numpy() -> None:
    """The epilogue with a warp along a row (a shared round trip from the fragment, 128
    columns at a time, then realigned 128-bit stores of odd-length rows; the second half of
    the 256 columns wholly past N)."""
    m, n, k = 70, 41, 72
    args, want = _data(m, n, k, seed=8)
    module = parse_and_lower(kernel_text("gemm", "f16", epilogue="rowwarp"), "g.mlir", TMA)
    out = run_on_cpu(module, "gemm", args, grid=grid(m, n))
    assert np.array_equal(out[2].astype(np.float64), want)


def test_cpu_example_256x128_equals_numpy() -> None:
    """The example's 256 x 128 form (rowwarp epilogue converted by shuffles, the narrow edge
    tile) lowered as the example says: N = 128 + 5 (the second CTA the edge tile), odd."""
    m, n, k = 70, 133, 72
    args, want = _data(m, n, k, seed=9)
    epilogue, edge = EXAMPLE["256x128"]
    base, conversion, _ = split_epilogue(epilogue)
    text = kernel_text("gemm", "f16", tile="256x128", epilogue=base, edge=edge,
                       conversion=conversion)
    module = parse_and_lower(text, "g.mlir", example_passes())
    out = run_on_cpu(module, "gemm", args, grid=grid(m, n, "256x128"))
    assert np.array_equal(out[2].astype(np.float64), want)


def test_cpu_edge_tile_equals_numpy() -> None:
    """The narrow edge form: the CTA of the last column, with at most ``edge`` columns left,
    runs the 8-column pipeline (m64n8k16 wgmmas) on the CPU interpreter, exactly."""
    m, n, k = 70, 7, 72
    args, want = _data(m, n, k, seed=7)
    module = parse_and_lower(kernel_text("gemm", "f16", edge=8), "g.mlir", TMA)
    out = run_on_cpu(module, "gemm", args, grid=grid(m, n))
    assert np.array_equal(out[2].astype(np.float64), want)


def test_sass() -> None:
    from regcopy_backend.cuda.printer import print_cuda
    from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
    from regcopy_backend.cuda.types import INDEX32_OPTION
    from regcopy_bench.bench_gemm_hopper import wgmma_serialized
    source = print_cuda(_lowered_gemm())
    # the K loop's wgmmas overlap: ptxas does not serialize them, in the 32-bit form either
    # (the 64-bit form's cubin is the one whose SASS is read below)
    logs = {}
    for options in ((), (INDEX32_OPTION,)):
        built = compile_cuda(source, options=(*options, "--ptxas-options=-v"))
        logs[options] = built.log
        if not options:
            compiled = built
    assert all("Used" in log and not wgmma_serialized(log) for log in logs.values())
    sass = disassemble(compiled.cubin)
    assert compiled.arch == "sm_90a"
    # TMA writes through the async proxy: no generic-to-async proxy fence before a wgmma
    assert 'asm volatile("fence.proxy.async.shared::cta;"' not in source
    assert sass.count("HGMMA.64x256x16.F32") == 4
    assert "UTMALDG.2D" in sass
    assert "LDL" not in sass and "STL" not in sass


def _bf16(x: np.ndarray) -> np.ndarray:
    return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_GPU, reason=WHY)
@pytest.mark.parametrize("t", ["f16", "bf16"])
def test_gpu_bit_exact(t: str) -> None:
    from regcopy_backend.runtime.runner import run_kernel
    from regcopy_tools.regcopy_run import prepare
    m, n, k = 300, 520, 264
    args, want = _data(m, n, k, seed=2)
    if t == "bf16":
        args = [_bf16(x) for x in args]
    prepared = prepare(kernel_text("gemm", t), "g.mlir", TMA)
    info = prepared.kernels[0]
    out = run_kernel(prepared.source, info, args, grid=grid(m, n)).arrays[2]
    got = (out.astype(np.uint32) << 16).view(np.float32) if t == "bf16" else out
    assert np.array_equal(got.astype(np.float64), want)


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_GPU, reason=WHY)
@pytest.mark.parametrize("form", [("256x128", "rows", ""), ("128x256", "frag", ""),
                                  ("128x256", "rowwarp", ""), ("256x128", "rowwarp", "shuffle"),
                                  ("128x256", "rowwarp256", "shuffle")])
def test_gpu_forms_bit_exact(form: tuple[str, str, str]) -> None:
    """The other CTA tile and the other epilogues the benchmark compares (rowwarp converted
    through shared memory or by shuffles), N even and odd (realigned or narrow stores), 1 to
    5 K tiles."""
    from regcopy_backend.runtime.runner import run_kernel
    from regcopy_tools.regcopy_run import prepare
    tile, epilogue, conversion = form
    passes = TMA.replace("}", f" conversion={conversion}}}") if conversion else TMA
    prepared = prepare(kernel_text("gemm", "f16", tile=tile, epilogue=epilogue), "g.mlir",
                       passes)
    for m, n, k in ((300, 520, 264), (260, 389, 136), (130, 600, 40)):  # 5, 3, 1 K tiles
        args, want = _data(m, n, k, seed=3)
        out = run_kernel(prepared.source, prepared.kernels[0], args,
                         grid=grid(m, n, tile)).arrays[2]
        assert np.array_equal(out.astype(np.float64), want), (m, n, k)


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_GPU, reason=WHY)
@pytest.mark.parametrize(("tile", "edge", "epilogue"), [
    ("128x256", 8, "rows"), ("256x128", 8, "rows"), ("128x256", 64, "rowwarp")])
def test_gpu_edge_forms_bit_exact(tile: str, edge: int, epilogue: str) -> None:
    """The narrow edge tile: N with 1, ``edge`` and ``edge + 1`` columns past the last full
    tile column (edge path, edge path, main path), on integer-valued data."""
    from regcopy_backend.runtime.runner import run_kernel
    from regcopy_tools.regcopy_run import prepare
    prepared = prepare(kernel_text("gemm", "f16", tile=tile, edge=edge, epilogue=epilogue),
                       "g.mlir", TMA)
    cta_n = int(tile.split("x")[1])
    for n in (cta_n + 1, 2 * cta_n + edge, cta_n + edge + 1):
        m, k = 300, 136
        args, want = _data(m, n, k, seed=n)
        out = run_kernel(prepared.source, prepared.kernels[0], args,
                         grid=grid(m, n, tile)).arrays[2]
        assert np.array_equal(out.astype(np.float64), want), (tile, edge, n)


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_GPU, reason=WHY)
def test_gpu_example_pad_then_gemm() -> None:
    """Odd K: @pad_pair copies A and B into K8-wide buffers (zeros in the pad), then
    @gemm_hopper_256x128 multiplies them, as a kernel author launches the pair from the
    example; N = 2 x 128 + 1 runs the last column of CTAs as the narrow edge tile."""
    from regcopy_backend.runtime.runner import run_kernel
    from regcopy_tools.regcopy_run import prepare
    prepared = prepare((REPO / "examples" / "gemm_hopper.mlir").read_text(), "gemm_hopper.mlir",
                       example_passes())
    info = {i.name: i for i in prepared.kernels}
    m, n, k = 200, 257, 77
    (a, b, d), want = _data(m, n, k, seed=4)
    k8 = -(-k // 8) * 8
    ys = [np.full((x.shape[0], k8), np.float16(np.nan), np.float16) for x in (a, b)]
    got = run_kernel(prepared.source, info["pad_pair"], [a, ys[0], b, ys[1]],
                     grid=pad_pair_grid(m, n, k8, *PADS[PAD])).arrays
    padded = [got[1], got[3]]
    for x, y in zip((a, b), padded, strict=True):
        assert np.array_equal(y[:, :k], x) and not y[:, k:].any()
    out = run_kernel(prepared.source, info["gemm_hopper_256x128"], [*padded, d],
                     grid=grid(m, n, "256x128")).arrays[2]
    assert np.array_equal(out.astype(np.float64), want)


@pytest.mark.parametrize("rows", PAD_ROWS[:1])
def test_cpu_pad_pair(rows: int) -> None:
    """Both operands' rows padded in one launch (odd K: the loads realigned, zeros in the
    pad; the CTAs past the shorter operand store nothing)."""
    rng = np.random.default_rng(rows)
    x1, x2 = (rng.integers(-9, 9, (r, 37)).astype(np.float16) for r in (40, 70))
    y1, y2 = (np.full((r, 40), np.float16(np.nan), np.float16) for r in (40, 70))
    module = parse_and_lower(pad_pair_text("pp", "f16", rows), "p.mlir", TMA)
    out = run_on_cpu(module, "pp", [x1, y1, x2, y2], grid=pad_pair_grid(40, 70, 40, rows))
    for x, y in ((x1, out[1]), (x2, out[3])):
        assert np.array_equal(y[:, :37], x) and not y[:, 37:].any()


def test_cpu_pad_pair_wide_tile() -> None:
    """bench_ragged's wide row tile (8 x 2048, a warp along a row) as the padding's CTA tile:
    the same copies on the CPU, both operands, rows past 8 and columns past one CTA tile."""
    rows, cols = PADS["pair8x2048"]
    rng = np.random.default_rng(5)
    x1, x2 = (rng.integers(-9, 9, (r, 37)).astype(np.float16) for r in (9, 20))
    y1, y2 = (np.full((r, 40), np.float16(np.nan), np.float16) for r in (9, 20))
    module = parse_and_lower(pad_pair_text("pp", "f16", rows, cols), "p.mlir", TMA)
    out = run_on_cpu(module, "pp", [x1, y1, x2, y2], grid=pad_pair_grid(9, 20, 40, rows, cols))
    for x, y in ((x1, out[1]), (x2, out[3])):
        assert np.array_equal(y[:, :37], x) and not y[:, 37:].any()


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_GPU, reason=WHY)
@pytest.mark.parametrize("pad", sorted(PADS))
def test_gpu_pad_pair_tiles(pad: str) -> None:
    """Every padding bench_gemm_hopper times (its CTA tile), odd K over several column tiles
    of each, operands of different row counts none a multiple of the tile's rows."""
    from regcopy_backend.runtime.runner import run_kernel
    from regcopy_tools.regcopy_run import prepare
    rows, cols = PADS[pad]
    k, k8 = 2301, 2304
    rng = np.random.default_rng(6)
    xs = [rng.integers(-9, 9, (r, k)).astype(np.float16) for r in (300, 137)]
    ys = [np.full((x.shape[0], k8), np.float16(np.nan), np.float16) for x in xs]
    prepared = prepare(pad_pair_text("pp", "f16", rows, cols), "p.mlir", TMA)
    got = run_kernel(prepared.source, prepared.kernels[0], [xs[0], ys[0], xs[1], ys[1]],
                     grid=pad_pair_grid(300, 137, k8, rows, cols)).arrays
    for x, y in ((xs[0], got[1]), (xs[1], got[3])):
        assert np.array_equal(y[:, :k], x) and not y[:, k:].any()


def test_choose_tile_fewest_waves() -> None:
    """One CTA an SM: 4095 x 4097 is 544 CTAs of 128 x 256 (5 waves of 132) but 528 of
    256 x 128 (4); where the waves tie, the example's tile."""
    assert choose_tile(4095, 4097) == "256x128"
    assert choose_tile(4096, 4096) == choose_tile(8192, 8192) == TILE == "128x256"
    assert choose_tile(4095, 4097, sms=136) == TILE  # 544 = 4 x 136
    assert grid(4095, 4097, "256x128") == (33, 16, 1)
    assert grid(4095, 4097) == (17, 32, 1)
