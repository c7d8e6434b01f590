"""Steps 7 and 9 of the lowering in IR: the round loop, each round's S and R offsets (swizzled
where S is), and one vector transfer a round; ``lower`` assembles all ops replacing a copy."""

from __future__ import annotations

from xdsl.dialects import arith, scf, vector
from xdsl.dialects.builtin import IndexType, VectorType
from xdsl.ir import Block, Operation, Region, SSAValue

from regcopy_dialect.regcopy import CopyOp, StorageOp
from regcopy_passes.dispatch import Accepted
from regcopy_passes.emit_thread import emit_thread_base, thread_index
from regcopy_passes.index_builder import IndexBuilder, Value
from regcopy_passes.planning import CopyPlan
from regcopy_passes.rotation import emit_rotated
from regcopy_passes.shared_plan import SharedPlan
from regcopy_passes.swizzle_address import emit_hoisted_swizzle, emit_swizzle, hoistable


def emit_round(b: IndexBuilder, plan: CopyPlan, f: Value, s_base: Value,
               r_base: Value, hoist: IndexBuilder | None = None) -> tuple[Value, Value]:
    """Step 7 in IR: decode round ``f`` over the outer atoms; S and R offsets of the round.
    A swizzled S with a provably aligned base hoists ``swizzle(s_base)`` into ``hoist``
    (``swizzle_address``); otherwise the whole swizzle is applied per round."""
    ds: Value = 0
    dr: Value = 0
    inner = 1
    for k in range(len(plan.outer) - 1, -1, -1):
        a = plan.outer[k]
        c = b.div(f, inner)
        c = c if k == 0 else b.rem(c, a.extent)
        ds = b.add(ds, b.mul(c, a.s_stride))
        dr = b.add(dr, b.mul(c, a.r_step))
        inner *= a.extent
    if plan.swizzle is not None and hoist is not None and hoistable(plan):
        return emit_hoisted_swizzle(hoist, b, plan, s_base, ds), b.add(r_base, dr)
    s_off = b.add(s_base, ds)
    if plan.swizzle is not None:
        s_off = emit_swizzle(b, s_off, plan.swizzle)
    return s_off, b.add(r_base, dr)


def emit_transfer(b: IndexBuilder, op: CopyOp, acc: Accepted, plan: CopyPlan,
                  src: SSAValue, dst: SSAValue, s_off: Value, r_off: Value) -> None:
    """One ``vector.load`` of ``n`` elements from the source storage, one ``vector.store``."""
    src_off, dst_off = (s_off, r_off) if acc.r_is_dst else (r_off, s_off)
    vtype = VectorType(op.src_type.element_type, [plan.n])
    load = vector.LoadOp(src, [b.value(src_off)], vtype)
    load.result.name_hint = "v"
    b.ops.append(load)
    b.ops.append(vector.StoreOp(load.result, dst, [b.value(dst_off)]))


def lower(op: CopyOp, acc: Accepted, plan: CopyPlan, shared: SharedPlan) -> list[Operation]:
    """All ops that replace ``op``: hoisted math, storages, optional guard, the round loop."""
    b = IndexBuilder()
    t = thread_index(b, acc.scope)
    t_offset, recon = emit_thread_base(b, plan, t)
    s_base = b.add(b.affine(plan.s_base), t_offset)
    r_base = b.affine(plan.r_base)
    src, dst = StorageOp(op.src), StorageOp(op.dst)
    b.ops += [src, dst]
    body = IndexBuilder(hoist_to=b)
    if shared.rotates:
        sw = plan.swizzle
        emit_rotated(b, body, op, acc, plan, t, s_base, r_base, src.result, dst.result,
                     shared.rotation,
                     None if sw is None else lambda bb, m: emit_swizzle(bb, m, sw))
        work = body.ops
    elif plan.rounds == 1:
        s_off, r_off = emit_round(body, plan, 0, s_base, r_base, b)
        emit_transfer(body, op, acc, plan, src.result, dst.result, s_off, r_off)
        work = body.ops
    else:
        for_body = Block(arg_types=[IndexType()])
        for_body.args[0].name_hint = "f"
        s_off, r_off = emit_round(body, plan, for_body.args[0], s_base, r_base, b)
        emit_transfer(body, op, acc, plan, src.result, dst.result, s_off, r_off)
        for_body.add_ops([*body.ops, scf.YieldOp()])
        bounds = [b.value(0), b.value(plan.rounds), b.value(1)]
        work = [scf.ForOp(*bounds, [], Region(for_body))]
    if not plan.guarded:
        return [*b.ops, *work]
    owned = b.emit(arith.CmpiOp(b.value(recon), b.value(t), "eq"), "owned")
    return [*b.ops, scf.IfOp(owned, [], [*work, scf.YieldOp()])]
