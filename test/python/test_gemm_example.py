"""examples/gemm.mlir, gemm_any_k.mlir and pad_rows.mlir: they are the kernels of
``regcopy_bench.gemm_kernels`` (the benchmark times what the examples show), they compute
``A B^T`` exactly on the CPU interpreter at sizes ragged in M, N and K (integer-valued data;
odd K both through the staged kernel and through padded rows + the cp.async kernel), and the
GEMM's SASS issues 128 ``HMMA.16816.F32`` per 64-wide K tile with no local memory; the
cp.async candidates ``bench_gemm`` compares are exact too, over K tiles enough to wrap their
rings."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis_profiles import PROFILE
from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_bench.gemm_kernels import (
    CANDIDATES,
    candidate_grid,
    candidate_text,
    grid,
    kernel_text,
)
from regcopy_bench.gemm_side import pad_grid, pad_kernel_text
from regcopy_tools.regcopy_run import parse_and_lower

REPO = Path(__file__).resolve().parents[2]


def _kernels(path: Path) -> list[str]:
    text = path.read_text()
    return ["func.func" + k for k in text.split("func.func")[1:]]


def test_examples_are_the_benchmarked_kernels() -> None:
    gemm = _kernels(REPO / "examples" / "gemm.mlir")
    any_k = _kernels(REPO / "examples" / "gemm_any_k.mlir")
    assert [k.strip() for k in gemm] == [kernel_text("gemm", "f16").strip(),
                                         kernel_text("gemm_bf16", "bf16").strip()]
    assert [k.strip() for k in any_k] == [
        kernel_text("gemm_any_k", "f16", True, "columns").strip(),
        kernel_text("gemm_any_k_bf16", "bf16", True, "columns").strip()]
    pad = _kernels(REPO / "examples" / "pad_rows.mlir")
    assert [k.strip() for k in pad] == [pad_kernel_text("pad_rows", "f16").strip(),
                                        pad_kernel_text("pad_rows_bf16", "bf16").strip()]


def _bits(values: np.ndarray, t: str) -> np.ndarray:
    if t == "f16":
        return values.astype(np.float16)
    return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


@pytest.mark.parametrize(("example", "kernel", "t", "mnk"), [
    ("gemm_any_k.mlir", "gemm_any_k_bf16", "bf16", (20, 24, 9)),
])
def test_gemm_on_the_interpreter(example: str, kernel: str, t: str,
                                 mnk: tuple[int, int, int]) -> None:
    m, n, k = mnk
    rng = np.random.default_rng(k)
    a, b = rng.integers(-3, 4, (m, k)), rng.integers(-3, 4, (n, k))
    module = parse_and_lower((REPO / "examples" / example).read_text(), example)
    out = run_on_cpu(module, kernel, [_bits(a, t), _bits(b, t), _bits(np.ones((m, n)), t)],
                     grid=grid(m, n))[2]
    assert np.array_equal(out, _bits(a.astype(np.float64) @ b.T, t))


def test_gemm_sass_main_loop() -> None:
    """The example's main loop in the 32-bit index form (what runs where the offsets fit):
    per 64-wide K tile 128 HMMA and 32 LDSM, 12 LDGSTS a stage, and no local memory; the 64-bit
    form has the same 128 HMMA and no local memory either."""
    from regcopy_backend.cuda.nvrtc import disassemble
    from regcopy_bench.gemm_build import build
    from regcopy_bench.sass_loops import main_loop, sass_ops

    built = build(kernel_text("gemm", "f16"))
    sass = disassemble(built.cubin32)
    loop = main_loop(sass_ops(sass))  # one 64-wide K tile: 4 k16 steps
    assert sum(op == "HMMA.16816.F32" for op in loop) == 128  # 4 x 32, not unrolled further
    assert sum(op == "LDSM.16.M88.4" for op in loop) == 32  # 4 x (4 for A + 4 for B)
    # 12 16-byte cp.async a thread per K tile (4 A + 8 B chunks): the two of the prologue and
    # the loop's (in its branch, which ptxas may place after the loop's back edge); the edge
    # tile's 4 A chunks and one of its 64 B chunks (8 rows of 64) at each of those three places
    assert len(re.findall(r"LDGSTS\.E\.BYPASS\.(?:LTC128B\.)?128 ", sass)) == 3 * 12 + 3 * 5
    # the loop's, and the edge tile's 4 k16 steps of 4 m16n8k16 (64 x 8 warp tiles), no others
    assert len(re.findall(r"HMMA\.16816\.F32 ", sass)) == 128 + 16
    assert not re.search(r"\b(LDL|STL)\b", sass)
    sass64 = disassemble(built.cubin64)
    assert len(re.findall(r"HMMA\.16816\.F32 ", sass64)) == 128 + 16
    assert not re.search(r"\b(LDL|STL)\b", sass64)


def test_padded_rows_then_gemm_on_the_interpreter() -> None:
    """K = 13: pad_rows copies A and B into rows of 16 (zeros after column 13), then the
    cp.async GEMM multiplies the copies."""
    m, n, k = 20, 24, 13
    rng = np.random.default_rng(k)
    a, b = rng.integers(-3, 4, (m, k)), rng.integers(-3, 4, (n, k))
    pad = parse_and_lower((REPO / "examples" / "pad_rows.mlir").read_text(), "pad_rows.mlir")
    padded = []
    for x in (a, b):
        y = run_on_cpu(pad, "pad_rows", [_bits(x, "f16"), np.full((x.shape[0], 16), np.nan,
                                                                 np.float16)],
                       grid=pad_grid(x.shape[0], 16))[1]
        want = np.zeros((x.shape[0], 16))
        want[:, :k] = x
        assert np.array_equal(y, want.astype(np.float16))
        padded.append(y)
    gemm = parse_and_lower((REPO / "examples" / "gemm.mlir").read_text(), "gemm.mlir")
    out = run_on_cpu(gemm, "gemm", [*padded, _bits(np.ones((m, n)), "f16")],
                     grid=grid(m, n))[2]
    assert np.array_equal(out, _bits(a.astype(np.float64) @ b.T, "f16"))


@pytest.mark.parametrize("name", [
    "example",
    *(["convert epilogue", "convert epilogue, copies before the last k16 step, no branch"]
      if PROFILE != "ci" else [])])
def test_candidates_wrap_their_rings_on_the_interpreter(name: str) -> None:
    """K = 200: 4 K tiles of 64, so the 3-slot ring wraps (the carried slot index returns to
    0) and the last tile is partial; M and N ragged (N = 12: the epilogue's realigned
    stores); the example (the prefetching loop) and the same loop with the convert
    epilogue, its copies issued first in a branch or before the last k16 step with none.
    (Every candidate runs on the H200 in test_gpu_gemm; the interpreter is slow enough to
    take the example only by default, the two convert-epilogue variants under
    REGCOPY_HYPOTHESIS=thorough: the accumulator -> rows conversion itself runs on the
    interpreter in test_convert.)"""
    kw = CANDIDATES[name]
    m, n, k = 20, 12, 200
    rng = np.random.default_rng(n)
    a, b = rng.integers(-3, 4, (m, k)), rng.integers(-3, 4, (n, k))
    module = parse_and_lower(candidate_text("gemm", "bf16", kw), "candidate.mlir")
    out = run_on_cpu(module, "gemm", [_bits(a, "bf16"), _bits(b, "bf16"),
                                      _bits(np.ones((m, n)), "bf16")],
                     grid=candidate_grid(m, n, kw))[2]
    assert np.array_equal(out, _bits(a.astype(np.float64) @ b.T, "bf16"))


def test_edge_tile_on_the_interpreter() -> None:
    """The example's narrow edge tile (``EDGE_COLS``): the CTA of the last column, 3 columns past 256,
    runs 64 x 8 warp tiles on 8 rows of B a slot; interpreted alone, it writes exactly its
    3 columns (the warps past the first column of warps compute on rows no copy wrote, for
    columns past N that the store leaves alone) and nothing of the other CTA's."""
    m, n, k = 8, 259, 16
    rng = np.random.default_rng(3)
    a = rng.integers(-2, 3, (m, k)).astype(np.float16)
    b = rng.integers(-2, 3, (n, k)).astype(np.float16)
    module = parse_and_lower(kernel_text("gemm", "f16"), "g.mlir", "lower-reg-copy")
    out = run_on_cpu(module, "gemm", [a, b, np.full((m, n), 7, np.float16)], grid=grid(m, n),
                     blocks=[(1, 0, 0)])[2].astype(np.float64)
    assert np.array_equal(out[:, 256:], a.astype(np.float64) @ b[256:].astype(np.float64).T)
    assert (out[:, :256] == 7).all()
