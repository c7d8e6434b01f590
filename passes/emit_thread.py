"""Step 8 of the lowering in IR: the thread's index inside its scope, its coordinates on R's
thread iters, its share of the S base, and the guard for threads that own nothing."""

from __future__ import annotations

from xdsl.dialects import gpu

from regcopy_dialect.layout import Scope
from regcopy_passes.index_builder import IndexBuilder, Value
from regcopy_passes.planning import CopyPlan, ThreadAtom


def thread_index(b: IndexBuilder, scope: Scope) -> Value:
    """The thread's index inside its scope group: lane id, ``tid % 128`` or ``tid``."""
    if scope is Scope.THREAD:
        return 0
    if scope is Scope.WARP:
        return b.emit(gpu.LaneIdOp(), "lane")
    tid = b.emit(gpu.ThreadIdOp(gpu.DimensionAttr(gpu.DimensionEnum.X)), "tid")
    return b.rem(tid, 128) if scope is Scope.WARPGROUP else tid


def emit_thread_base(b: IndexBuilder, plan: CopyPlan, t: Value) -> tuple[Value, Value]:
    """Step 8: ``sum(((t // ts) % e) * s)`` over the thread atoms (S's share of this thread)
    and ``sum(((t // ts) % e) * ts)`` (equal to ``t`` exactly when the thread owns data)."""
    offset: Value = 0
    recon: Value = 0
    for a in plan.thread_atoms:
        coord = _thread_coordinate(b, a, t, plan.threads)
        offset = b.add(offset, b.mul(coord, a.s_stride))
        recon = b.add(recon, b.mul(coord, a.t_stride))
    return offset, recon


def _thread_coordinate(b: IndexBuilder, a: ThreadAtom, t: Value, threads: int) -> Value:
    q = b.div(t, a.t_stride)
    # t < threads, so q < extent already when extent * t_stride covers the scope
    return q if a.extent * a.t_stride >= threads else b.rem(q, a.extent)
