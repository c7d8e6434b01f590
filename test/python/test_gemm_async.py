"""examples/gemm_async.mlir (the GEMM main loop with a 3-stage cp.async pipeline) on the CPU
interpreter: the lowered kernel, the un-lowered kernel (reference semantics of the async ops)
and numpy's mma fragment tables agree exactly; and the lowering is what the example says
(16-byte cp.async, tokens gone, LDGSTS in SASS). The GPU runs it in test_gpu_async.py."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import f16

from regcopy_backend.cuda.printer import print_cuda
from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_backend.runtime.host_data import random_values
from regcopy_backend.runtime.nvrtc import compile_cuda, disassemble
from regcopy_dialect.async_ops import CpAsyncOp, TokenType
from regcopy_dialect.builders import parse_module
from regcopy_tools.regcopy_run import parse_and_lower

REPO = Path(__file__).resolve().parents[2]
from cases import mma_fragments  # noqa: E402

GEMM_ASYNC = REPO / "examples" / "gemm_async.mlir"


def reduced() -> str:
    """The example on one CTA (block (0, 0)) instead of 2 x 2 (same 4-tile K loop)."""
    text = GEMM_ASYNC.read_text()
    assert "grid = [2, 2]" in text and text.count("2x2x4x256x") == 4
    return text.replace("grid = [2, 2]", "grid = [1, 1]").replace("2x2x4x256x", "1x1x4x256x")


def _inputs() -> list[np.ndarray]:
    rng = np.random.default_rng(11)
    a = random_values(f16, 256 * 256, rng).reshape(256, 256)
    b = random_values(f16, 256 * 256, rng).reshape(256, 256)
    return [a, b, np.zeros((1, 1, 4, 256, 128), np.float16),
            np.zeros((1, 1, 4, 256, 64), np.float16)]


def test_gemm_async_lowers_to_cp_async() -> None:
    module = parse_and_lower(GEMM_ASYNC.read_text(), str(GEMM_ASYNC))
    widths = [op.bytes.data for op in module.walk() if isinstance(op, CpAsyncOp)]
    assert widths == [16] * 24  # 6 tile copies, 4 chunks a thread each
    assert not any(isinstance(v.type, TokenType) for op in module.walk() for v in op.results)
    sass = disassemble(compile_cuda(print_cuda(module)).cubin)
    # prologue 16, then 8 in each of the two iterations that start a stage (the K loop is
    # unrolled and its bound test folded)
    assert sass.count("LDGSTS.E.BYPASS.128") == 32


REFERENCE = pytest.param(False, id="reference", marks=pytest.mark.skipif(
    not os.environ.get("REGCOPY_PERF"),
    reason="the un-lowered run takes ~45 s on the interpreter: set REGCOPY_PERF=1"))


@pytest.mark.parametrize("lower", [pytest.param(True, id="lowered"), REFERENCE])
def test_gemm_async_runs_exactly_on_the_cpu(lower: bool) -> None:
    text = reduced()
    module = (parse_and_lower(text, "gemm_async_reduced.mlir") if lower
              else parse_module(text))
    a, b, frag_a, frag_b = _inputs()
    _, _, got_a, got_b = run_on_cpu(module, "gemm_async", [a, b, frag_a, frag_b])
    want_a, want_b = mma_fragments(a, b, 1, 1, 4)
    assert np.array_equal(got_a.view(np.uint16), want_a.view(np.uint16))
    assert np.array_equal(got_b.view(np.uint16), want_b.view(np.uint16))
