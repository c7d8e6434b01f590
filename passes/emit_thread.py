"""Step 8 of the lowering in IR: the thread's index inside its scope, its coordinates on R's
thread iters, its share of the S base, and the guard for threads that own nothing.

The coordinates follow ``plan.decode`` (``planning.ThreadDecode``) op for op, so the IR
computes exactly what ``planning.thread_base`` computes, which the planner checked for every
thread of the scope."""

from __future__ import annotations

from xdsl.dialects import gpu

from regcopy_dialect.layout import Scope
from regcopy_passes.index_builder import IndexBuilder, Value
from regcopy_passes.planning import CopyPlan


def thread_index(b: IndexBuilder, scope: Scope) -> Value:
    """The thread's index inside its scope group: lane id, ``tid % 128`` or ``tid``."""
    if scope is Scope.THREAD:
        return 0
    if scope is Scope.WARP:
        return b.emit(gpu.LaneIdOp(), "lane")
    tid = b.emit(gpu.ThreadIdOp(gpu.DimensionAttr(gpu.DimensionEnum.X)), "tid")
    return b.rem(tid, 128) if scope is Scope.WARPGROUP else tid


def emit_thread_base(b: IndexBuilder, plan: CopyPlan, t: Value) -> tuple[Value, Value]:
    """Step 8: ``sum(c * s)`` over the thread atoms (S's share of this thread) and
    ``origin + sum(c * ts)`` (equal to ``t`` exactly when the thread owns data), with the
    coordinates ``c`` decoded as ``plan.thread_decode`` says."""
    dec = plan.thread_decode
    atoms = plan.thread_atoms
    coords: list[Value] = [0] * len(atoms)
    r = b.add(t, dec.shift)
    for k in dec.order:
        a = atoms[k]
        q = b.div(r, a.t_stride)
        coords[k] = b.rem(q, a.extent) if dec.mod[k] else q
        if dec.chained:
            r = b.rem(r, a.t_stride) if a.t_stride > 1 else 0
    offset: Value = 0
    recon: Value = dec.origin
    for c, a in zip(coords, atoms, strict=True):
        offset = b.add(offset, b.mul(c, a.s_stride))
        recon = b.add(recon, b.mul(c, a.t_stride))
    return offset, recon
