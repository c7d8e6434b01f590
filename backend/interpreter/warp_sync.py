"""Warp lockstep for the CPU interpreter: the 32 lanes of a warp meet at warp-collective ops.

A ``.sync.aligned`` instruction (``ldmatrix``, ``stmatrix``) is executed by all 32 lanes of a
warp together, each lane contributing its operands. In a phased CTA (``cta_barrier``: one
Python thread per GPU thread) every warp has a ``WarpSync``: ``meet(lane, op, operand,
execute)`` deposits the lane's operand and blocks; the last lane to arrive runs
``execute(operands of lanes 0..31)`` once for the whole warp and each lane gets its entry of
the result. It is a warp-level barrier whose arrivals must all be at the same op.

Faithful errors, never a hang: a warp whose lanes are all idle (at a collective op, waiting at
the CTA barrier, or returned) while some wait at a collective is *diverged* unless all 32 wait
at the same op; the diverged warp, a warp with fewer than 32 lanes (a block that is not a
multiple of 32) and an error of ``execute`` all fail the CTA (``CtaBarrier.fail``), which
wakes every waiting thread of the CTA, warp and CTA barriers alike. The warp barriers share
the CTA barrier's lock, so "which lanes still run" is one consistent state: a CTA barrier
release makes its threads running in the same step that frees them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from regcopy_backend.interpreter.cta_barrier import BarrierBroken, CtaBarrier
from xdsl.utils.exceptions import InterpretationError

from regcopy_dialect.layout import WARP

Execute = Callable[[Sequence[Any]], Sequence[Any]]
"""Runs a collective op for the whole warp: the 32 lanes' operands -> the 32 lanes' results."""


@dataclass(frozen=True)
class Arrival:
    """A lane waiting at the collective ``op`` with its ``operand``."""

    op: Any
    operand: Any
    execute: Execute


def _op_name(op: Any) -> str:
    return str(getattr(op, "name", op))


def lane_ranges(lanes: Sequence[int]) -> str:
    """``[0, 1, 2, 5, 7, 8]`` -> ``"0-2, 5, 7-8"``."""
    runs: list[list[int]] = []
    for lane in sorted(lanes):
        if runs and runs[-1][-1] == lane - 1:
            runs[-1].append(lane)
        else:
            runs.append([lane])
    return ", ".join(f"{r[0]}" if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


class WarpSync:
    """The warp barrier of the threads ``first .. first + lanes - 1`` of ``cta`` (see the
    module doc); ``name`` (e.g. ``warp 1 of block (0, 0, 0)``) is used in errors."""

    def __init__(self, cta: CtaBarrier, first: int, lanes: int, name: str) -> None:
        self._cta = cta
        self._cond = cta.condition()
        self.first = first
        self.lanes = lanes
        self.name = name
        self._pending: dict[int, Arrival] = {}
        self._generation = 0
        self._results: Sequence[Any] = ()

    def meet(self, lane: int, op: Any, operand: Any, execute: Execute) -> Any:
        """Lane ``lane`` executes the collective ``op``: wait for the whole warp and return
        this lane's result; ``BarrierBroken`` when the CTA fails meanwhile."""
        with self._cond:
            if self._cta.broken:
                raise BarrierBroken
            if self.lanes != WARP:
                self._cta.fail(InterpretationError(
                    f"{_op_name(op)} needs whole warps: {self.name} has {self.lanes} lanes "
                    f"(the block is not a multiple of {WARP} threads)"))
                raise BarrierBroken
            generation = self._generation
            self._pending[lane] = Arrival(op, operand, execute)
            self.settle()
            while generation == self._generation and not self._cta.broken:
                self._cond.wait()
            if generation == self._generation:
                raise BarrierBroken
            return self._results[lane]

    def settle(self) -> None:
        """(Under the CTA's lock, after any lane's state changed.) Once no lane runs while
        some wait at a collective: execute it when all 32 wait at the same op, else fail."""
        if not self._pending or self._cta.broken:
            return
        if len(self._pending) < self.lanes and any(
                lane not in self._pending and self._cta.running(self.first + lane)
                # the last lanes first: lanes mostly arrive in order, so a lane still
                # running is found at once
                for lane in reversed(range(self.lanes))):
            return
        ops = {id(a.op) for a in self._pending.values()}
        if len(self._pending) != WARP or len(ops) != 1:
            self._cta.fail(InterpretationError(self._divergence()))
            return
        arrivals = [self._pending[lane] for lane in range(WARP)]
        try:
            results = arrivals[0].execute([a.operand for a in arrivals])
        except (InterpretationError, ValueError) as e:
            self._cta.fail(InterpretationError(f"{_op_name(arrivals[0].op)} in {self.name}: {e}"))
            return
        except BaseException as e:  # noqa: BLE001 - the CTA's error
            self._cta.fail(e)
            return
        self._results = results
        self._pending.clear()
        self._generation += 1
        self._cond.notify_all()

    def _divergence(self) -> str:
        groups: dict[int, tuple[str, list[int]]] = {}
        returned: list[int] = []
        at_barrier: list[int] = []
        for lane in range(self.lanes):
            if (a := self._pending.get(lane)) is not None:
                groups.setdefault(id(a.op), (_op_name(a.op), []))[1].append(lane)
            elif self._cta.exited(self.first + lane):
                returned.append(lane)
            else:
                at_barrier.append(lane)
        names = [name for name, _ in groups.values()]
        states = []
        for k, (name, lanes) in enumerate(groups.values()):
            label = f"{name} #{k + 1}" if names.count(name) > 1 else name
            states.append(f"lanes {lane_ranges(lanes)} at {label}")
        if at_barrier:
            states.append(f"lanes {lane_ranges(at_barrier)} at gpu.barrier")
        if returned:
            states.append(f"lanes {lane_ranges(returned)} returned")
        first = next(iter(groups.values()))[0]
        return (f"{first}: {self.name} diverged ({'; '.join(states)}); every lane of the "
                "warp must execute a .sync.aligned op together")


def attach_warps(cta: CtaBarrier, names: Callable[[int], str]) -> tuple[WarpSync, ...]:
    """One ``WarpSync`` per 32 consecutive threads of ``cta`` (the last may be partial),
    ``names(w)`` naming warp ``w``; the CTA barrier tells them when a thread waits or
    returns."""
    warps = tuple(WarpSync(cta, first, min(WARP, cta.parties - first), names(first // WARP))
                  for first in range(0, cta.parties, WARP))
    cta.on_change = lambda t: warps[t // WARP].settle()
    return warps
