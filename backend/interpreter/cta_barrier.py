"""Barrier phases for the CPU interpreter: the threads of one CTA as Python threads.

A CUDA ``__syncthreads()`` splits a kernel into phases: no thread of a CTA starts phase p + 1
before every (live) thread has finished phase p. ``run_cta(barrier, body)`` runs ``body(t)``
for t = 0 .. n-1, each in its own Python thread; ``barrier.wait(t)`` (what ``gpu.barrier``
calls) blocks until every live thread of the CTA has arrived. A thread that returns leaves the
barrier for good (its remaining arrivals count as made, as exited threads do on sm_70+), so a
kernel whose threads return early never deadlocks.

The first error of the CTA (raised by a thread, or found by a warp barrier: ``warp_sync``)
goes to ``barrier.fail``: it is kept, every waiting thread (at this barrier or at a warp
barrier built on ``barrier.condition()``) stops, and ``run_cta`` re-raises it once every
thread has ended. ``on_change`` (set by ``warp_sync``) is told, under the CTA's lock, whenever
a thread starts waiting here or returns, so a warp barrier can tell which lanes still run.

Inside a phase the threads interleave arbitrarily (the GIL decides), so a kernel without data
races gives the same result whatever the interleaving: exactly what the GPU guarantees.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class BarrierBroken(Exception):
    """Raised in a waiting thread when another thread of its CTA failed."""


class CtaBarrier:
    """A reusable barrier for ``parties`` threads whose parties can leave (see module doc).

    One re-entrant lock guards the barrier and every condition made by ``condition()``."""

    def __init__(self, parties: int) -> None:
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._conditions = [self._cond]
        self.parties = parties
        self._live = parties
        self._arrived: set[int] = set()
        self._exited: set[int] = set()
        self._generation = 0
        self.error: BaseException | None = None
        self.on_change: Callable[[int], None] | None = None

    @property
    def generation(self) -> int:
        """How many times the barrier has released its threads: the CTA's barrier phase."""
        return self._generation

    @property
    def broken(self) -> bool:
        return self.error is not None

    def condition(self) -> threading.Condition:
        """A new condition on this CTA's lock, woken when the CTA fails."""
        with self._lock:
            cond = threading.Condition(self._lock)
            self._conditions.append(cond)
            return cond

    def running(self, t: int) -> bool:
        """Whether thread ``t`` neither waits here nor has returned (call under the lock)."""
        return t not in self._arrived and t not in self._exited

    def exited(self, t: int) -> bool:
        """Whether thread ``t`` has returned (call under the lock)."""
        return t in self._exited

    def wait(self, t: int) -> None:
        """Thread ``t`` blocks until every live thread has arrived (one ``__syncthreads()``);
        ``BarrierBroken`` when the CTA fails meanwhile."""
        with self._cond:
            if self.broken:
                raise BarrierBroken
            generation = self._generation
            self._arrived.add(t)
            if len(self._arrived) >= self._live:
                self._release()
                return
            self._changed(t)
            while generation == self._generation and not self.broken:
                self._cond.wait()
            if self.broken:
                raise BarrierBroken

    def leave(self, t: int) -> None:
        """Thread ``t`` has returned: the others no longer wait for it."""
        with self._cond:
            self._exited.add(t)
            self._live -= 1
            if self._arrived and len(self._arrived) >= self._live:
                self._release()
            self._changed(t)

    def fail(self, error: BaseException) -> None:
        """Keep ``error`` (the first one wins) and wake every waiting thread."""
        with self._lock:
            if self.error is None:
                self.error = error
            for cond in self._conditions:
                cond.notify_all()

    def _changed(self, t: int) -> None:
        if self.on_change is not None and not self.broken:
            try:
                self.on_change(t)
            except BaseException as e:  # noqa: BLE001 - becomes the CTA's error
                self.fail(e)

    def _release(self) -> None:
        self._arrived.clear()
        self._generation += 1
        self._cond.notify_all()


def run_cta(barrier: CtaBarrier, body: Callable[[int], None]) -> None:
    """Run ``body(t)`` for every t < ``barrier.parties`` concurrently, one Python thread
    each; re-raise the CTA's first error (``barrier.error``) once all have ended."""

    def worker(t: int) -> None:
        try:
            body(t)
        except BarrierBroken:
            pass
        except BaseException as e:  # noqa: BLE001 - handed to the launching thread
            barrier.fail(e)
        finally:
            barrier.leave(t)

    pool = [threading.Thread(target=worker, args=(t,), name=f"cta-thread-{t}", daemon=True)
            for t in range(barrier.parties)]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    if barrier.error is not None:
        raise barrier.error
