"""``regcopy-run --check``'s interpreted launches in worker processes (``cpu_jobs``): the
results are those of the launches run one after another in this process, taken in
submission order, and a runtime error of a kernel comes back with the same one-line message
(and is raised at its turn, not before the results of the jobs ahead of it)."""

from __future__ import annotations

import numpy as np
import pytest

from regcopy_backend.interpreter.driver import KernelError
from regcopy_dialect.context import regcopy_context
from regcopy_dialect.source import parse_located
from regcopy_tools.cpu_jobs import (
    JOBS_VARIABLE,
    CpuJob,
    CpuJobs,
    CpuRunError,
    default_workers,
    heaviest_first,
)

F32 = "memref<16x8xf32, #regcopy.mem<global>>"

# thread t copies row (t + s) mod n of %A to row t of %B: n = 17 runs past the last row
SHIFT = f"""func.func @shift(%A: {F32}, %B: {F32}, %s: index, %n: index)
    attributes {{regcopy.launch = #regcopy.launch<block = 16, grid = [1]>}} {{
  %c0 = arith.constant 0 : index
  %tid = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %t = arith.addi %tid, %s : index
  %r = arith.remui %t, %n : index
  %v = memref.load %A[%r, %c0] : {F32}
  memref.store %v, %B[%tid, %c0] : {F32}
  func.return
}}
"""


def _jobs(shifts: list[tuple[int, int]]) -> list[CpuJob]:
    module = parse_located(regcopy_context(), SHIFT, "shift.mlir")
    a = np.arange(128, dtype=np.float32).reshape(16, 8)
    return [CpuJob(module, "shift", [a, np.zeros_like(a), s, n]) for s, n in shifts]


def test_worker_results_equal_the_in_process_ones_in_order() -> None:
    jobs = _jobs([(0, 16), (3, 16), (5, 16)])
    with CpuJobs(jobs, workers=2) as pool:
        got = [pool.result(k) for k in range(3)]
    for job, (a, b) in zip(jobs, got, strict=True):
        want = job.run()
        assert np.array_equal(a, want[0]) and np.array_equal(b, want[1])
    # the rows moved by the shift, the rest zero
    assert np.array_equal(got[1][1][:, 0], np.r_[np.arange(3, 16), 0, 1, 2] * 8)


def test_the_heaviest_start_first_and_the_results_keep_their_order() -> None:
    """The pool starts the jobs by decreasing weight (equal weights in submission order), and
    ``result(k)`` is still job ``k``'s."""
    module = parse_located(regcopy_context(), SHIFT, "shift.mlir")
    a = np.arange(128, dtype=np.float32).reshape(16, 8)
    jobs = [CpuJob(module, "shift", [a, np.zeros_like(a), s, 16], weight=w)
            for s, w in [(0, 1), (3, 5), (5, 3), (7, 5)]]
    assert heaviest_first(jobs) == [1, 3, 2, 0]
    with CpuJobs(jobs, workers=2) as pool:
        got = [pool.result(k)[1][:, 0] for k in range(4)]
    for (s, _), rows in zip([(0, 1), (3, 5), (5, 3), (7, 5)], got, strict=True):
        assert np.array_equal(rows, (np.arange(16) + s) % 16 * 8)


def test_a_kernel_error_comes_back_with_its_message_at_its_turn() -> None:
    jobs = _jobs([(1, 16), (8, 17)])
    with pytest.raises(KernelError) as direct:
        jobs[1].run()
    with CpuJobs(jobs, workers=2) as pool:
        assert pool.result(0)[1][0, 0] == 8.0
        with pytest.raises(CpuRunError) as pooled:
            pool.result(1)
    assert str(pooled.value) == str(direct.value)
    assert "shift.mlir:" in str(pooled.value) and "memref.load" in str(pooled.value)


def test_the_number_of_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(JOBS_VARIABLE, "3")
    assert default_workers() == 3
    monkeypatch.setenv(JOBS_VARIABLE, "two")
    with pytest.raises(ValueError, match=JOBS_VARIABLE):
        default_workers()
    monkeypatch.delenv(JOBS_VARIABLE)
    assert 1 <= default_workers() <= 2


# one thread counting to %n: about a second per 10^6 iterations on the interpreter
SPIN = """func.func @spin(%n: index) attributes {regcopy.launch = #regcopy.launch<block = 1, grid = [1]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
  }
  func.return
}
"""


def test_an_error_does_not_wait_for_the_jobs_still_running() -> None:
    """The caller's error ends the pool at once: the long job still running is killed."""
    import time

    spin = parse_located(regcopy_context(), SPIN, "spin.mlir")
    jobs = [CpuJob(spin, "spin", [10]), CpuJob(spin, "spin", [10**8])]
    start = time.perf_counter()
    with pytest.raises(RuntimeError, match="stop"), CpuJobs(jobs, workers=2) as pool:
        assert pool.result(0) == []
        raise RuntimeError("stop")
    assert time.perf_counter() - start < 10  # the second job alone takes minutes
