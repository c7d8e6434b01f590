"""Barrier phases for the CPU interpreter: the threads of one CTA as Python threads.

A CUDA ``__syncthreads()`` splits a kernel into phases: no thread of a CTA starts phase p + 1
before every (live) thread has finished phase p. ``run_cta(n, body)`` runs ``body(t, barrier)``
for t = 0 .. n-1, each in its own Python thread; ``barrier.wait()`` (what ``gpu.barrier``
calls) blocks until every live thread of the CTA has arrived. A thread that returns leaves the
barrier for good (its remaining arrivals count as made, as exited threads do on sm_70+), so a
kernel whose threads return early never deadlocks. The first error raised by any thread breaks
the barrier (the waiting threads stop) and is re-raised by ``run_cta`` once every thread ended.

Inside a phase the threads interleave arbitrarily (the GIL decides), so a kernel without data
races gives the same result whatever the interleaving: exactly what the GPU guarantees.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class BarrierBroken(Exception):
    """Raised in a waiting thread when another thread of its CTA failed."""


class CtaBarrier:
    """A reusable barrier for ``parties`` threads whose parties can leave (see module doc)."""

    def __init__(self, parties: int) -> None:
        self._cond = threading.Condition()
        self._parties = parties
        self._arrived = 0
        self._generation = 0
        self._broken = False

    def wait(self) -> None:
        """Block until every live thread has arrived (one ``__syncthreads()``)."""
        with self._cond:
            if self._broken:
                raise BarrierBroken
            generation = self._generation
            self._arrived += 1
            if self._arrived == self._parties:
                self._release()
                return
            while generation == self._generation and not self._broken:
                self._cond.wait()
            if self._broken:
                raise BarrierBroken

    def leave(self) -> None:
        """The calling thread has returned: the others no longer wait for it."""
        with self._cond:
            self._parties -= 1
            if self._arrived and self._arrived >= self._parties:
                self._release()

    def abort(self) -> None:
        """Wake every waiting thread with ``BarrierBroken``."""
        with self._cond:
            self._broken = True
            self._cond.notify_all()

    def _release(self) -> None:
        self._arrived = 0
        self._generation += 1
        self._cond.notify_all()


def run_cta(threads: int, body: Callable[[int, CtaBarrier], None]) -> None:
    """Run ``body(t, barrier)`` for every t < ``threads`` concurrently, one Python thread
    each, sharing one ``CtaBarrier``; re-raise the first error any of them raised."""
    barrier = CtaBarrier(threads)
    errors: list[BaseException] = []

    def worker(t: int) -> None:
        try:
            body(t, barrier)
        except BarrierBroken:
            pass
        except BaseException as e:  # noqa: BLE001 - handed to the launching thread
            errors.append(e)
            barrier.abort()
        finally:
            barrier.leave()

    pool = [threading.Thread(target=worker, args=(t,), name=f"cta-thread-{t}", daemon=True)
            for t in range(threads)]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    if errors:
        raise errors[0]
