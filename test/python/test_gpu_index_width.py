"""GPU tests (``-m gpu``) of the launch-time index width: a runtime-shaped copy runs through
the 32-bit compile on small buffers and on one just under the 32-bit limit, through the
64-bit compile on a buffer of more than 2^31 elements (int8, 2 GiB, device arrays used in
place), bit for bit each; and the two compiles give the same bits on the same launch.
Skipped, with the reason, where no CUDA GPU or driver (or, for the 2 GiB buffers, torch) is
available."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from ragged_cases import tile_copy
from ragged_cases import tiles as tile_grid

from regcopy_backend.runtime.index_width import fits_index32
from regcopy_backend.runtime.runner import gpu_available

try:  # at collection, before this session's first NVRTC compile (after one, torch 2.11's
    import torch  # schema parser failed on the H200: bench_gemm imports it first too)
except ImportError:
    torch = None

HAS_GPU, WHY = gpu_available()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not HAS_GPU, reason=WHY)]

BIG_ROWS = 2**19 + 8
"""Rows of 4096 int8 in the big buffer: 2^31 + 32768 elements."""
NEAR_ROWS = 516_000
"""Rows of 4096 int8 just under the 32-bit limit of the 8 x 4096 tile's kernel (its overhang
of 8192 elements per dimension counted: 516093 rows is the last that fits)."""


def test_small_copy_runs_32_bit_and_equals_the_64_bit_compile() -> None:
    from regcopy_backend.runtime.runner import compile_kernel, get_device, run_kernel
    from regcopy_tools.regcopy_run import prepare

    prepared = prepare(tile_copy(), "tile.mlir")
    (info,) = prepared.kernels
    x = (np.random.default_rng(3).integers(-(2**20), 2**20, (79, 83)) / 4).astype(np.float32)
    grid = tile_grid(*x.shape)
    narrow = run_kernel(prepared.source, info, [x, np.zeros_like(x)], grid=grid)
    assert narrow.index32
    wide_kernel = compile_kernel(get_device(), prepared.source, info.symbol, index32=False)
    wide = run_kernel(prepared.source, info, [x, np.zeros_like(x)], kernel=wide_kernel,
                      grid=grid)
    assert not wide.index32
    assert np.array_equal(narrow.arrays[1].view(np.uint32), x.view(np.uint32))
    assert np.array_equal(wide.arrays[1].view(np.uint32), narrow.arrays[1].view(np.uint32))


@pytest.fixture(scope="module")
def int8_copy() -> Iterator[tuple[Any, Any, Any, Any]]:
    """``bench_ragged``'s int8 8 x 4096 tile copy (runtime M, N) and two 2 GiB device
    buffers (torch), X random."""
    if torch is None:
        pytest.skip("torch is not installed: the 2 GiB buffers are torch tensors")
    from regcopy_bench.bench_ragged import I8_ROWS, lowered

    source, info = lowered(I8_ROWS, promised=False)
    x = torch.randint(-128, 127, (BIG_ROWS, 4096), dtype=torch.int8, device="cuda")
    y = torch.zeros_like(x)
    torch.cuda.synchronize()
    yield source, info, x, y
    del x, y
    torch.cuda.empty_cache()


def test_over_2_pow_31_elements_runs_64_bit(int8_copy: tuple[Any, Any, Any, Any]) -> None:
    from regcopy_bench.bench_ragged import I8_ROWS
    from regcopy_backend.runtime.runner import run_kernel

    source, info, x, y = int8_copy
    assert x.numel() > 2**31
    assert not fits_index32(info, [tuple(x.shape)] * 2, I8_ROWS.grid(*x.shape))
    result = run_kernel(source, info, [x, y], grid=I8_ROWS.grid(*x.shape))
    torch.cuda.synchronize()
    assert not result.index32 and result.skipped is None
    assert torch.equal(x[-8:], y[-8:]) and torch.equal(x, y)


def test_just_under_the_limit_runs_32_bit(int8_copy: tuple[Any, Any, Any, Any]) -> None:
    from regcopy_bench.bench_ragged import I8_ROWS
    from regcopy_backend.runtime.runner import run_kernel

    source, info, x, y = int8_copy
    y.zero_()
    xs, ys = x[:NEAR_ROWS], y[:NEAR_ROWS]
    assert fits_index32(info, [tuple(xs.shape)] * 2, I8_ROWS.grid(*xs.shape))
    assert not fits_index32(info, [(516_096, 4096)] * 2, I8_ROWS.grid(516_096, 4096))
    result = run_kernel(source, info, [xs, ys], grid=I8_ROWS.grid(*xs.shape))
    torch.cuda.synchronize()
    assert result.index32
    assert torch.equal(xs[-8:], ys[-8:]) and torch.equal(xs, ys)
    assert not y[NEAR_ROWS:].any()  # nothing written past the view
