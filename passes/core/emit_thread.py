"""Step 8 of the lowering in IR: the thread's index inside its scope, its coordinates on R's
thread iters, its share of the S base, and the guard for threads that own nothing.

The math is ``planning.thread_offsets``, written once over ``IndexMath``: the planner runs it
on integers (and checked it for every thread of the scope), this module runs it on an
``IndexBuilder``, so the IR computes exactly what was checked."""

from __future__ import annotations

from regcopy_passes.core.index_builder import IndexBuilder, Value
from regcopy_passes.core.planning import CopyPlan, thread_offsets
from xdsl.dialects import gpu

from regcopy_dialect.layout import Scope


def thread_index(b: IndexBuilder, scope: Scope) -> Value:
    """The thread's index inside its scope group: lane id, ``tid % 128`` or ``tid``."""
    if scope is Scope.THREAD:
        return 0
    if scope is Scope.WARP:
        return b.emit(gpu.LaneIdOp(), "lane")
    tid = b.emit(gpu.ThreadIdOp(gpu.DimensionAttr(gpu.DimensionEnum.X)), "tid")
    return b.rem(tid, 128) if scope is Scope.WARPGROUP else tid


def emit_thread_share(b: IndexBuilder, plan: CopyPlan, t: Value) -> tuple[Value, Value]:
    """Step 8 in IR: ``planning.thread_offsets`` run on the builder (the thread's S share and
    ``origin + sum(c * ts)``, equal to ``t`` exactly when the thread owns data -- for a store
    out of a replicated R, when it owns data as replica 0)."""
    return thread_offsets(b, plan.thread_atoms, plan.thread_decode, t, plan.store_once,
                          owned=plan.guarded)
