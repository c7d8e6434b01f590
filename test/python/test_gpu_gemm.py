"""The GEMM examples on the H200: bit-exact against a float64 numpy product on
integer-valued inputs (every partial sum fits f32's 24 bits, and the rounding to f16/bf16
of an integer below 256 is exact) at sizes ragged in M, N and K, for the cp.async kernels
(examples/gemm.mlir, K % 8 == 0) and the register-staged ones (examples/gemm_any_k.mlir,
odd K); and one regcopy.mma per dtype pair of the instruction table against numpy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from regcopy_backend.host_data import as_float64
from regcopy_backend.runtime.runner import gpu_available
from regcopy_bench.gemm_kernels import CANDIDATES

REPO = Path(__file__).resolve().parents[2]
HAS_GPU, WHY = gpu_available()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not HAS_GPU, reason=WHY)]


def _bits(values: np.ndarray, t: str) -> np.ndarray:
    if t == "f16":
        return values.astype(np.float16)
    return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


@pytest.mark.parametrize(("example", "kernel", "t", "mnk"), [
    ("gemm.mlir", "gemm", "f16", (300, 520, 104)),
    ("gemm.mlir", "gemm_bf16", "bf16", (129, 257, 40)),
    ("gemm_any_k.mlir", "gemm_any_k", "f16", (131, 250, 77)),
    ("gemm_any_k.mlir", "gemm_any_k_bf16", "bf16", (200, 301, 33)),
])
def test_gemm_exact(example: str, kernel: str, t: str, mnk: tuple[int, int, int]) -> None:
    from regcopy_backend.runtime.runner import run_kernel
    from regcopy_bench.gemm_kernels import grid
    from regcopy_tools.regcopy_run import prepare

    path = REPO / "examples" / example
    prepared = prepare(path.read_text(), str(path))
    info = next(k for k in prepared.kernels if k.name == kernel)
    m, n, k = mnk
    rng = np.random.default_rng(m)
    a, b = rng.integers(-3, 4, (m, k)), rng.integers(-3, 4, (n, k))
    want = a.astype(np.float64) @ b.astype(np.float64).T
    out = run_kernel(prepared.source, info, [_bits(a, t), _bits(b, t),
                                             _bits(np.full((m, n), 9.0), t)],
                     grid=grid(m, n)).arrays[2]
    got = as_float64(out, info.buffers[2].type.element_type)
    assert np.array_equal(got, want)


def test_padded_rows_then_gemm_exact() -> None:
    """Odd K through examples/pad_rows.mlir and the cp.async GEMM, on the GPU."""
    from regcopy_backend.runtime.runner import run_kernel
    from regcopy_bench.gemm_kernels import grid
    from regcopy_bench.gemm_side import pad_grid
    from regcopy_tools.regcopy_run import prepare

    m, n, k = 300, 270, 77
    rng = np.random.default_rng(k)
    a, b = rng.integers(-3, 4, (m, k)), rng.integers(-3, 4, (n, k))
    pad_path, gemm_path = REPO / "examples" / "pad_rows.mlir", REPO / "examples" / "gemm.mlir"
    pad = prepare(pad_path.read_text(), str(pad_path))
    gemm = prepare(gemm_path.read_text(), str(gemm_path))
    pad_info = next(p for p in pad.kernels if p.name == "pad_rows")
    gemm_info = next(p for p in gemm.kernels if p.name == "gemm")
    padded = [run_kernel(pad.source, pad_info, [_bits(x, "f16"), np.full((x.shape[0], 80), 5,
                                                                         np.float16)],
                         grid=pad_grid(x.shape[0], 80)).arrays[1] for x in (a, b)]
    out = run_kernel(gemm.source, gemm_info, [*padded, _bits(np.zeros((m, n)), "f16")],
                     grid=grid(m, n)).arrays[2]
    assert np.array_equal(out.astype(np.float64), a.astype(np.float64) @ b.T)


def test_narrow_cta_tile_exact() -> None:
    """The 128 x 128 CTA tile (warps 64 x 32) that bench_gemm times beside the example's."""
    from regcopy_backend.runtime.runner import run_kernel
    from regcopy_bench.gemm_kernels import NARROW, grid, kernel_text
    from regcopy_tools.regcopy_run import prepare

    m, n, k = 260, 130, 48
    prepared = prepare(kernel_text("gemm", "bf16", **NARROW), "narrow.mlir")  # type: ignore[arg-type]
    rng = np.random.default_rng(n)
    a, b = rng.integers(-3, 4, (m, k)), rng.integers(-3, 4, (n, k))
    out = run_kernel(prepared.source, prepared.kernels[0],
                     [_bits(a, "bf16"), _bits(b, "bf16"), _bits(np.zeros((m, n)), "bf16")],
                     grid=grid(m, n, 32)).arrays[2]
    assert np.array_equal(as_float64(out, prepared.kernels[0].buffers[2].type.element_type),
                          a.astype(np.float64) @ b.T)


@pytest.mark.parametrize("n", [257, 264, 300])
def test_edge_tile_exact(n: int) -> None:
    """The example's narrow edge tile (``EDGE_COLS``): N 1 and 8 past 256 (the last CTA
    column runs the edge tile) and 44 past (it does not), M ragged, K wrapping the ring."""
    from regcopy_backend.runtime.runner import run_kernel
    from regcopy_bench.gemm_kernels import grid, kernel_text
    from regcopy_tools.regcopy_run import prepare

    m, k = 260, 328
    prepared = prepare(kernel_text("gemm", "f16"), "edge.mlir")
    rng = np.random.default_rng(n)
    a, b = rng.integers(-3, 4, (m, k)), rng.integers(-3, 4, (n, k))
    out = run_kernel(prepared.source, prepared.kernels[0],
                     [_bits(a, "f16"), _bits(b, "f16"), _bits(np.zeros((m, n)), "f16")],
                     grid=grid(m, n)).arrays[2]
    assert np.array_equal(out.astype(np.float64), a.astype(np.float64) @ b.T)


@pytest.fixture(scope="module")
def compiled_candidates() -> dict[str, Any]:
    """Every candidate of ``CANDIDATES`` lowered and compiled at once, in both index forms, in
    parallel processes (``gemm_build.build_all``: no NVRTC compile per test)."""
    from regcopy_bench.gemm_build import build_all
    from regcopy_bench.gemm_kernels import candidate_text

    return build_all({name: candidate_text("gemm", "f16", kw)
                      for name, kw in CANDIDATES.items() if kw})


@pytest.mark.parametrize("index", [64, 32])
@pytest.mark.parametrize("name", [n for n, kw in CANDIDATES.items() if kw])
def test_candidate_kernels_exact(name: str, index: int,
                                 compiled_candidates: dict[str, Any]) -> None:
    """Every cp.async kernel bench_gemm compares, in both index forms: exact at a size ragged
    in M and N (N % 8 != 0: the epilogues' realigned stores) whose K (328) wraps every ring
    and ends in a partial K tile."""
    from regcopy_backend.runtime.runner import cuda_core, run_kernel
    from regcopy_bench.gemm_kernels import candidate_grid

    kw = CANDIDATES[name]
    built = compiled_candidates[name]
    cubin = built.cubin32 if index == 32 else built.cubin64
    kernel = cuda_core().ObjectCode.from_cubin(cubin).get_kernel(built.info.symbol)
    m, n, k = 260, 300, 328
    rng = np.random.default_rng(k)
    a, b = rng.integers(-3, 4, (m, k)), rng.integers(-3, 4, (n, k))
    out = run_kernel(built.source, built.info,
                     [_bits(a, "f16"), _bits(b, "f16"), _bits(np.zeros((m, n)), "f16")],
                     kernel=kernel, grid=candidate_grid(m, n, kw)).arrays[2]
    assert np.array_equal(out.astype(np.float64), a.astype(np.float64) @ b.T)
