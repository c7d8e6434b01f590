"""The interpreted launches of ``regcopy-run --check``, run on several cores at once.

A ``--check`` interprets, per kernel, the un-lowered module (the reference) and, without a
GPU, the lowered module in the GPU's place: independent launches on copies of the same host
arrays. ``CpuJobs`` runs them in worker processes (``fork``: a worker inherits the parsed
modules, only the host arrays and the results travel) while the caller consumes the results
in submission order, so the output and the first error are those of a run one launch after
another: ``result(k)`` returns launch ``k``'s buffers or raises its error (a
``KernelError`` as a ``CpuRunError`` with the same one-line message; any other exception
as raised, where it can be pickled). The workers take the heaviest launches first (a job's
``weight``: the threads it interprets), so that no long launch is left alone at the end
while the other cores idle.

The number of worker processes is ``REGCOPY_CHECK_JOBS`` (default: the cores this process
may run on, at most 2 per launch pair: ``default_workers``); 1, one job, or a platform
without ``fork`` runs every launch in this process when its result is asked for.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from regcopy_backend.interpreter.driver import KernelError
from regcopy_backend.runtime.cpu_run import HostArg, run_on_cpu

JOBS_VARIABLE = "REGCOPY_CHECK_JOBS"


class CpuRunError(Exception):
    """A runtime error of an interpreted kernel (``KernelError``) raised in a worker: its
    one-line message."""


@dataclass(frozen=True)
class CpuJob:
    """One interpreted launch: ``run_on_cpu(module, kernel, args, grid)``."""

    module: ModuleOp
    kernel: str
    args: Sequence[HostArg]
    grid: tuple[int, int, int] | None = None
    weight: int = 1
    """The launch's expected cost relative to the others' (the threads it interprets: block
    size times CTAs); the pool starts the heaviest first."""

    def run(self) -> list[np.ndarray]:
        return run_on_cpu(self.module, self.kernel, self.args, self.grid)


_INHERITED: list[CpuJob] = []
"""The jobs of the pool being forked (a worker reads its job here: modules are not sent)."""


def _run_inherited(k: int) -> tuple[bool, Any]:
    """Run job ``k`` in a worker: ``(True, buffers)`` or ``(False, error)``."""
    try:
        return True, _INHERITED[k].run()
    except KernelError as e:
        return False, CpuRunError(str(e))
    except Exception as e:  # noqa: BLE001 - handed to the parent, raised there in order
        try:
            pickle.dumps(e)
        except Exception:  # noqa: BLE001 - an unpicklable error travels as its text
            return False, RuntimeError(f"{type(e).__name__}: {e}")
        return False, e


def default_workers() -> int:
    """``REGCOPY_CHECK_JOBS`` when set (>= 1), else min(2, the cores this process may use)."""
    if (value := os.environ.get(JOBS_VARIABLE, "").strip()):
        try:
            return max(1, int(value))
        except ValueError:
            raise ValueError(f"{JOBS_VARIABLE}={value!r}: expected a number of worker "
                             "processes") from None
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(2, cores))


def heaviest_first(jobs: Sequence[CpuJob]) -> list[int]:
    """The jobs' indices by decreasing ``weight``, in submission order among equals (the
    longest-processing-time-first order: its makespan is within 4/3 of the best)."""
    return sorted(range(len(jobs)), key=lambda k: -jobs[k].weight)


class CpuJobs:
    """Launches submitted up front, results taken in order (module docstring)."""

    def __init__(self, jobs: Sequence[CpuJob], workers: int | None = None) -> None:
        self.jobs = list(jobs)
        n = default_workers() if workers is None else workers
        self._pool: ProcessPoolExecutor | None = None
        self._futures: list[Future[tuple[bool, Any]]] = []
        if n > 1 and len(self.jobs) > 1 and "fork" in multiprocessing.get_all_start_methods():
            _INHERITED[:] = self.jobs
            self._pool = ProcessPoolExecutor(min(n, len(self.jobs)),
                                             mp_context=multiprocessing.get_context("fork"))
            futures = {k: self._pool.submit(_run_inherited, k)
                       for k in heaviest_first(self.jobs)}
            self._futures = [futures[k] for k in range(len(self.jobs))]

    def result(self, k: int) -> list[np.ndarray]:
        """Job ``k``'s buffers after its launch, or its error raised."""
        if self._pool is None:
            return self.jobs[k].run()
        ok, value = self._futures[k].result()
        if not ok:
            raise value
        return value

    def close(self, abandon: bool = False) -> None:
        """Stop the workers: jobs not yet started are cancelled; with ``abandon`` (an error
        ends the run) the running ones are killed instead of awaited."""
        if self._pool is None:
            return
        if abandon:
            processes = getattr(self._pool, "_processes", None) or {}
            for process in list(processes.values()):
                process.kill()
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._pool = None
        _INHERITED.clear()

    def __enter__(self) -> CpuJobs:
        return self

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        self.close(abandon=kind is not None)
