"""The async copies on the GPU (bit-exact): examples/gemm_async.mlir on a 2 x 2 grid at ragged
M, N, K (200 x 136 x 200: every CTA meets an edge) against the PTX ISA's fragment tables of the
zero-padded operands, and a small run of bench/bench_async.py (every variant
and baseline). Skipped, with the reason, without a GPU."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import f16

from regcopy_backend.cuda.kernel_info import kernel_info, kernels
from regcopy_backend.cuda.printer import print_cuda
from regcopy_backend.host_data import random_values
from regcopy_backend.runtime.runner import gpu_available, run_kernel
from regcopy_bench.bench_async import run
from regcopy_tools.regcopy_run import parse_and_lower

from cases import mma_fragments

HAS_GPU, WHY = gpu_available()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not HAS_GPU, reason=WHY)]
GEMM_ASYNC = Path(__file__).resolve().parents[2] / "examples" / "gemm_async.mlir"


def test_gemm_async_fragments_are_bit_exact() -> None:
    module = parse_and_lower(GEMM_ASYNC.read_text(), str(GEMM_ASYNC))
    rng = np.random.default_rng(3)
    m, n, k = 200, 136, 200
    a = random_values(f16, m * k, rng).reshape(m, k)
    b = random_values(f16, n * k, rng).reshape(n, k)
    frag_a = np.full((2, 2, 4, 256, 128), 7, np.float16)
    frag_b = np.full((2, 2, 4, 256, 64), 7, np.float16)
    result = run_kernel(print_cuda(module), kernel_info(kernels(module)[0]),
                        [a, b, frag_a, frag_b], grid=[2, 2])
    got_a, got_b = result.arrays[2], result.arrays[3]
    pad_a, pad_b = np.zeros((256, 256), np.float16), np.zeros((256, 256), np.float16)
    pad_a[:m, :k], pad_b[:n, :k] = a, b
    want_a, want_b = mma_fragments(pad_a, pad_b, 2, 2, 4)
    assert np.array_equal(got_a.view(np.uint16), want_a.view(np.uint16))
    assert np.array_equal(got_b.view(np.uint16), want_b.view(np.uint16))


def test_bench_async_small_run_is_bit_exact() -> None:
    results = run(tiles=6, ctas=8, iters=1)
    assert [label for label, _, _ in results][:2] == ["cp.async", "register-staged"]
    assert all(ok for _, _, ok in results), results
