"""bench/bench_async.py: its streaming kernels (cp.async, register-staged, TMA) lower strictly,
compute on the CPU interpreter exactly what ``expected_sums`` says (so the GPU's bit-exact check
compares against the right thing), and show LDGSTS in a kept main loop. The GPU run is in
test_gpu_async.py."""

from __future__ import annotations

import numpy as np
import pytest

from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_bench.bench_async import THREADS, expected_sums, kernel_text, sass_report
from regcopy_dialect.builders import parse_module
from regcopy_passes.lower_reg_copy import LowerRegCopyPass
from xdsl.context import Context


@pytest.mark.parametrize("variant, transfer", [("cp.async", "auto"), ("register", "auto"),
                                               ("cp.async", "tma")])
def test_stream_kernel_sums_exactly_on_the_cpu(variant: str, transfer: str) -> None:
    tiles, ctas = 4, 1
    module = parse_module(kernel_text(variant, tiles, ctas))
    LowerRegCopyPass(strict=True, transfer=transfer).apply(Context(), module)
    assert ("regcopy.tma_load" in str(module)) == (transfer == "tma")
    a = np.random.default_rng(1).integers(-8, 8, size=64 * 64 * tiles * ctas)
    a = a.astype(np.float32)
    out = np.zeros(ctas * THREADS * 4, np.float32)
    got = run_on_cpu(module, "stream", [a.reshape(-1, 64), out, tiles])[1]
    assert np.array_equal(got, expected_sums(a, tiles, ctas))


def test_stream_kernels_keep_their_loop_and_ldgsts() -> None:
    cp_async, register, tma, hand = sass_report(64, 1056)
    assert "LDGSTS.E.BYPASS.128" in cp_async and "(8 LDGSTS, " in cp_async
    assert " 0 LDGSTS" in register and "main loop 0 " not in register
    assert "main loop 0 " not in hand
    assert " 0 LDGSTS" in tma and "UTMALDG" in tma and "main loop 0 " not in tma
