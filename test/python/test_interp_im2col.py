"""test/gpu/kernels/im2col.mlir on the CPU: 8 CTAs of 128 threads (barrier phases) gather the
overlapping 3 x 3 windows of an image through shared memory into register tiles at dynamic
offsets; the reference run gives exactly ``out[3*ky + kx, y, x] = img[y + ky, x + kx]``
(numpy). ``REGCOPY_PERF=1`` also times ``regcopy-run --check`` on it and on every example
(each under 60 s)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_dialect.context import regcopy_context
from regcopy_dialect.source import parse_located
from tool_runner import run_tool

REPO = Path(__file__).resolve().parents[2]
IM2COL = REPO / "test" / "gpu" / "kernels" / "im2col.mlir"
BIN = Path(sys.executable).parent


def test_im2col_reference_gathers_every_window() -> None:
    module = parse_located(regcopy_context(), IM2COL.read_text(), str(IM2COL))
    img = np.arange(66 * 136, dtype=np.float32).reshape(66, 136)
    out = np.zeros((9, 64, 128), np.float32)
    got_img, got = run_on_cpu(module, "im2col", [img, out])
    want = np.stack([img[ky:ky + 64, kx:kx + 128] for ky in range(3) for kx in range(3)])
    assert np.array_equal(got_img, img)
    assert np.array_equal(got, want)


PERF_INPUTS = [IM2COL, *sorted((REPO / "examples").glob("*.mlir"))]


@pytest.mark.skipif(not os.environ.get("REGCOPY_PERF"),
                    reason="timing of regcopy-run --check: set REGCOPY_PERF=1")
@pytest.mark.parametrize("path", PERF_INPUTS, ids=lambda p: p.name)
def test_check_takes_under_a_minute(path: Path) -> None:
    start = time.monotonic()
    proc = run_tool(["regcopy-run", str(path), "--check"], Path.cwd(), timeout=600)
    elapsed = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr
    assert elapsed < 60, f"{path.name}: {elapsed:.1f} s"
