"""GPU tests (``-m gpu``) of kernels with runtime extents: each kernel is compiled once and
launched over a sweep of ragged shapes (odd sizes included); every buffer equals the CPU
reference (the un-lowered copies, bounds-checked) and numpy bit for bit. Skipped, with the
reason, where no CUDA GPU or driver is available."""

from __future__ import annotations

import numpy as np
import pytest
from ragged_cases import LOWERED, PAD, k_loop_copy, padded_reference, parse_unverified, tile_copy
from ragged_cases import tiles as tile_grid

from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_backend.runtime.runner import gpu_available

HAS_GPU, WHY = gpu_available()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not HAS_GPU, reason=WHY)]

SHAPES = [(1, 1), (1, 3), (3, 1), (5, 7), (31, 33), (32, 8), (33, 9), (64, 4001),
          (79, 80), (80, 79), (127, 4003), (257, 4160), (1000, 4001)]
"""Ragged and aligned shapes: odd sizes, one below/above a tile, several tiles."""


def _x(m: int, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.integers(-(2**20), 2**20, (m, n)) / 4).astype(np.float32)


@pytest.fixture(scope="module")
def compiled():
    from regcopy_tools.regcopy_run import prepare

    out = {}
    for name, text in (("tile", tile_copy()), ("kloop", k_loop_copy())):
        prepared = prepare(text, f"{name}.mlir")
        (info,) = prepared.kernels
        out[name] = (prepared, info, parse_unverified(text))
    return out


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint32)


@pytest.mark.parametrize("m, n", SHAPES)
def test_tile_copy_bit_exact(compiled, m: int, n: int) -> None:
    """One compiled kernel for every shape: Y (the whole tiles) holds X, padding elsewhere;
    the GPU equals the CPU reference bit for bit."""
    from regcopy_backend.runtime.runner import run_kernel

    prepared, info, reference = compiled["tile"]
    gm, gn = tile_grid(m, n)
    shape = (32 * gm, 8 * gn)
    x, y = _x(m, n, m * 7919 + n), np.full(shape, -1, np.float32)
    gpu = run_kernel(prepared.source, info, [x, y], grid=(gm, gn)).arrays
    cpu = run_on_cpu(reference, "tile", [x, y], grid=(gm, gn)) if m * n < 10_000 else None
    want = padded_reference(x, shape, PAD)
    assert (_bits(gpu[1]) == _bits(want)).all()
    assert (_bits(gpu[0]) == _bits(x)).all()
    if cpu is not None:
        assert (_bits(cpu[1]) == _bits(gpu[1])).all()


@pytest.mark.parametrize("m, k", [(1, 1), (3, 5), (33, 9), (32, 4001), (65, 4003), (40, 4160)])
def test_ragged_k_loop_bit_exact(compiled, m: int, k: int) -> None:
    """A K loop up to a runtime K (the last tile ragged), Y of X's extents: Y == X."""
    from regcopy_backend.runtime.runner import run_kernel

    prepared, info, _ = compiled["kloop"]
    x, y = _x(m, k, k), np.full((m, k), -1, np.float32)
    gpu = run_kernel(prepared.source, info, [x, y], grid=(tile_grid(m, k)[0],)).arrays
    assert (_bits(gpu[1]) == _bits(x)).all()


@pytest.mark.parametrize("m, n", [(1, 1), (3, 9), (2, 128), (5, 130), (7, 1001)])
def test_hand_lowered_ragged_copy(m: int, n: int) -> None:
    from regcopy_backend.cuda.kernel_info import kernel_info, kernels
    from regcopy_backend.cuda.printer import print_cuda
    from regcopy_backend.runtime.runner import run_kernel

    module = parse_unverified(LOWERED.read_text())
    info = kernel_info(kernels(module)[0])
    x, y = _x(m, n, 3), np.full((m, n), -1, np.float32)
    gpu = run_kernel(print_cuda(module), info, [x, y], grid=(m, -(-n // 128))).arrays
    assert (_bits(gpu[1]) == _bits(x)).all()


def test_broken_promise_is_refused_before_launch() -> None:
    from regcopy_backend.runtime.runner import ArgumentError, run_kernel
    from regcopy_tools.regcopy_run import prepare

    text = tile_copy().replace(
        "%X: memref<?x?xf32, #regcopy.mem<global>>",
        "%X: memref<?x?xf32, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 4>}")
    prepared = prepare(text, "promised.mlir")
    (info,) = prepared.kernels
    with pytest.raises(ArgumentError, match="breaks its promise"):
        run_kernel(prepared.source, info, [_x(3, 6, 0), np.zeros((32, 8), np.float32)])
