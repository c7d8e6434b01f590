"""The lowered TMA ops (``regcopy_dialect.tma_ops``) on the CPU interpreter.

* ``regcopy.tensor_map`` is the global buffer with its box and swizzle;
* ``regcopy.mbarrier_init`` resets barrier ``B[i]`` of the CTA: phase 0, ``count`` arrivals
  pending, no transaction bytes;
* ``regcopy.tma_load`` reads the box when issued (``tma.box_values``: zeros outside the
  extents) and puts it *in flight* on ``B[i]`` (the destination elements are marked, as for
  ``cp.async``: reading them before they land is an error); its bytes are subtracted from the
  barrier's transaction count;
* ``regcopy.mbarrier_arrive_expect_tx`` adds the bytes and arrives; when no arrival and no byte
  is pending, the phase completes: every box in flight on the barrier lands, the phase advances;
* ``regcopy.mbarrier_try_wait_parity`` blocks the thread until the phase of that parity has
  completed (the other threads of the CTA run meanwhile); a wait no thread can complete is a
  one-line error after ``WAIT_SECONDS``.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from typing import Any, cast

from regcopy_backend.interpreter.async_copy import AsyncState, Landing
from regcopy_backend.interpreter.buffers import Buffer
from regcopy_backend.interpreter.regcopy import gpu_state
from regcopy_backend.interpreter.tma import TmaError, box_positions
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.utils.exceptions import InterpretationError

from regcopy_dialect.regcopy import element_bits
from regcopy_dialect.tma_ops import (
    FenceBarrierInitOp,
    MBarrierArriveExpectTxOp,
    MBarrierInitOp,
    MBarrierTryWaitParityOp,
    TensorMapOp,
    TmaLoadOp,
)
from regcopy_passes.tma.plan import SwizzleMode

WAIT_SECONDS = 10.0


@dataclass(frozen=True)
class TensorMapValue:
    source: Buffer
    box: tuple[int, ...]
    swizzle: int


@dataclass(eq=False)
class MBarrier:
    """One mbarrier of one CTA."""

    count: int
    pending: int
    tx: int = 0
    phase: int = 0
    landings: list[Landing] = field(default_factory=list[Landing])


@dataclass
class TmaState:
    barriers: dict[tuple[int, int], MBarrier] = field(default_factory=dict)
    conditions: dict[int, threading.Condition] = field(default_factory=dict)


def _state(interp: Interpreter) -> TmaState:
    gs = gpu_state(interp)
    with gs.lock:
        return cast(TmaState, gs.extra.setdefault("tma", TmaState()))


def _barrier(st: TmaState, bars: Buffer, index: int) -> MBarrier:
    bar = st.barriers.get((id(bars.storage), index))
    if bar is None:
        raise InterpretationError(f"mbarrier {index} is used before regcopy.mbarrier_init")
    return bar


def _condition(interp: Interpreter) -> threading.Condition | None:
    gs = gpu_state(interp)
    if gs.barrier is None:
        return None
    st = _state(interp)
    with gs.lock:
        return st.conditions.setdefault(id(gs.barrier), gs.barrier.condition())


def _inflight(interp: Interpreter) -> AsyncState:
    gs = gpu_state(interp)
    with gs.lock:
        return cast(AsyncState, gs.extra.setdefault("async", AsyncState()))


def _notify(cond: threading.Condition | None) -> None:
    if cond is not None:
        with cond:
            cond.notify_all()


def _complete_if_done(inflight: AsyncState, bar: MBarrier) -> bool:
    """Land the phase's boxes and advance it when nothing is pending (caller holds the lock);
    whether it did."""
    if bar.pending or bar.tx:
        return False
    for land in bar.landings:
        marks = inflight.inflight.get(id(land.storage), {})
        for off, value in zip(land.offsets, land.values, strict=True):
            land.storage[off] = value
            marks.pop(off, None)
    bar.landings, bar.phase, bar.pending = [], bar.phase + 1, bar.count
    return True


def box_values(src: Buffer, coords: tuple[int, ...], box: tuple[int, ...]) -> list[Any]:
    """The box's elements row-major, 0 (of the element's kind) outside ``src``'s extents."""
    zero = 0.0 if any(isinstance(v, float) for v in src.storage[:1]) else 0
    out = []
    for idx in itertools.product(*(range(c, c + b) for c, b in zip(coords, box))):
        inside = all(0 <= i < n for i, n in zip(idx, src.shape))
        out.append(src.read(idx) if inside else zero)
    return out


@register_impls
class TmaFunctions(InterpreterFunctions):
    """The TMA ops (module docstring)."""

    @impl(TensorMapOp)
    def run_tensor_map(self, interp: Interpreter, op: TensorMapOp, args: PythonValues):
        return (TensorMapValue(args[0], op.box_sizes, op.swizzle_bytes),)

    @impl(MBarrierInitOp)
    def run_init(self, interp: Interpreter, op: MBarrierInitOp, args: PythonValues):
        bars, index = args
        count = op.count.value.data
        st = _state(interp)
        with gpu_state(interp).lock:
            st.barriers[(id(bars.storage), index)] = MBarrier(count, count)
        return ()

    @impl(FenceBarrierInitOp)
    def run_fence(self, interp: Interpreter, op: FenceBarrierInitOp, args: PythonValues):
        return ()

    @impl(TmaLoadOp)
    def run_tma_load(self, interp: Interpreter, op: TmaLoadOp, args: PythonValues):
        tmap, *rest = args
        coords, (dst, offset, bars, index) = tuple(rest[:-4]), rest[-4:]
        tmap = cast(TensorMapValue, tmap)
        eb = (element_bits(dst.type.element_type) or 8) // 8
        period = SwizzleMode(tmap.swizzle).period
        if (offset * eb) % period:
            raise InterpretationError(str(TmaError(
                f"TMA destination at byte {offset * eb} is not {period}-byte aligned")))
        values = box_values(tmap.source, coords, tmap.box)
        where = [offset + int(p) for p in box_positions(len(values), tmap.swizzle, eb)]
        if max(where) >= len(dst.storage):
            raise InterpretationError(f"TMA box of {len(values)} elements at element {offset} "
                                      f"overruns the {len(dst.storage)}-element shared buffer")
        gs, st, inflight, cond = gpu_state(interp), _state(interp), _inflight(interp), \
            _condition(interp)
        with gs.lock:
            bar = _barrier(st, bars, index)
            marks = inflight.inflight.setdefault(id(dst.storage), {})
            for off in where:
                marks[off] = "a TMA load"
            bar.landings.append(Landing(dst.storage, where, values))
            bar.tx -= len(values) * eb
            completed = _complete_if_done(inflight, bar)
        if completed:
            _notify(cond)
        return ()

    @impl(MBarrierArriveExpectTxOp)
    def run_arrive(self, interp: Interpreter, op: MBarrierArriveExpectTxOp, args: PythonValues):
        bars, index = args
        gs, st, inflight, cond = gpu_state(interp), _state(interp), _inflight(interp), \
            _condition(interp)
        with gs.lock:
            bar = _barrier(st, bars, index)
            if bar.pending == 0:
                raise InterpretationError(f"arrives on mbarrier {index} with no arrival pending")
            bar.tx += op.tx_bytes
            bar.pending -= 1
            completed = _complete_if_done(inflight, bar)
        if completed:
            _notify(cond)
        return ()

    @impl(MBarrierTryWaitParityOp)
    def run_wait(self, interp: Interpreter, op: MBarrierTryWaitParityOp, args: PythonValues):
        bars, index, parity = args
        cond = _condition(interp)
        bar = _barrier(_state(interp), bars, index)

        def done() -> bool:
            return bar.phase % 2 != parity % 2

        if cond is None:
            if not done():
                raise InterpretationError(f"waits on phase parity {parity} of mbarrier {index}, "
                                          "which no earlier arrival completes")
            return ()
        with cond:
            if not cond.wait_for(done, timeout=WAIT_SECONDS):
                raise InterpretationError(
                    f"waits on phase parity {parity} of mbarrier {index} that never completes "
                    f"({bar.pending} arrival(s) and {bar.tx} byte(s) outstanding)")
        return ()
