"""examples/gemm_async.mlir (the GEMM main loop with a 3-stage cp.async pipeline, runtime M, N,
K) on the CPU interpreter at ragged sizes: the lowered kernel, the un-lowered kernel (reference
semantics of the async ops) and numpy's mma fragment tables of the zero-padded operands agree
exactly; and the lowering is what the example says (16-byte cp.async with a bounds-checked
source size, tokens gone, LDGSTS in SASS). The GPU runs it in test_gpu_async.py."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import f16

from regcopy_backend.cuda.printer import print_cuda
from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_backend.host_data import random_values
from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
from regcopy_dialect.async_ops import CpAsyncOp, TokenType
from regcopy_dialect.builders import parse_module
from regcopy_tools.regcopy_run import parse_and_lower

REPO = Path(__file__).resolve().parents[2]
from cases import mma_fragments  # noqa: E402

GEMM_ASYNC = REPO / "examples" / "gemm_async.mlir"


M, N, K = 100, 120, 200
"""Ragged in all three on one CTA (block (0, 0)): 100 of its 128 A rows and 120 of its 128 B
rows are inside; 4 K tiles, the last 8 columns wide (the 3-stage ring wraps around)."""


def _inputs() -> list[np.ndarray]:
    rng = np.random.default_rng(11)
    a = random_values(f16, M * K, rng).reshape(M, K)
    b = random_values(f16, N * K, rng).reshape(N, K)
    return [a, b, np.zeros((1, 1, 4, 256, 128), np.float16),
            np.zeros((1, 1, 4, 256, 64), np.float16)]


def padded(x: np.ndarray) -> np.ndarray:
    """``x`` zero-padded to 128 x 256 (the CTA's tiles past the edges read as zeros)."""
    out = np.zeros((128, 256), x.dtype)
    out[:x.shape[0], :x.shape[1]] = x
    return out


def test_gemm_async_lowers_to_cp_async() -> None:
    module = parse_and_lower(GEMM_ASYNC.read_text(), str(GEMM_ASYNC))
    copies = [op for op in module.walk() if isinstance(op, CpAsyncOp)]
    assert [op.bytes.data for op in copies] == [16] * 24  # 6 tile copies, 4 chunks a thread
    # runtime M, N, K: every chunk's source size is 16 or 0 (K is a multiple of 8: no chunk
    # straddles it), its address clamped to the base when 0
    assert all(op.src_bytes.name_hint and op.src_bytes.name_hint.startswith("src_bytes")
               for op in copies)
    assert not any(isinstance(v.type, TokenType) for op in module.walk() for v in op.results)
    sass = disassemble(compile_cuda(print_cuda(module)).cubin)
    # prologue 16, then 8 in the loop (a runtime trip count: not unrolled); all 128-bit
    assert sass.count("LDGSTS.E.BYPASS.128") == 24
    assert "LDGSTS.E.64" not in sass and "LDGSTS.E.32" not in sass and "LDGSTS.E " not in sass


REFERENCE = pytest.param(False, id="reference", marks=pytest.mark.skipif(
    not os.environ.get("REGCOPY_PERF"),
    reason="the un-lowered run takes ~45 s on the interpreter: set REGCOPY_PERF=1"))


@pytest.mark.parametrize("lower", [pytest.param(True, id="lowered"), REFERENCE])
def test_gemm_async_runs_exactly_on_the_cpu(lower: bool) -> None:
    text = GEMM_ASYNC.read_text()
    module = parse_and_lower(text, str(GEMM_ASYNC)) if lower else parse_module(text)
    a, b, frag_a, frag_b = _inputs()
    _, _, got_a, got_b = run_on_cpu(module, "gemm_async", [a, b, frag_a, frag_b], grid=[1, 1])
    want_a, want_b = mma_fragments(padded(a), padded(b), 1, 1, 4)
    assert np.array_equal(got_a.view(np.uint16), want_a.view(np.uint16))
    assert np.array_equal(got_b.view(np.uint16), want_b.view(np.uint16))
