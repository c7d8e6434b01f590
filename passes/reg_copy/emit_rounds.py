"""The emitter of ``VectorTransfer``: steps 7 and 9 of the lowering in IR. Hoisted thread
index and base, an optional guard, the round loop (or unrolled lane-rotated rounds), each
round's S and R offsets (``planning.round_offsets`` on the builder, swizzled where S is) and
one ``vector.load`` + ``vector.store`` a round."""

from __future__ import annotations

from regcopy_passes.core.dispatch import Accepted
from regcopy_passes.reg_copy.emit_rotated import emit_rotated
from regcopy_passes.core.emit_thread import emit_thread_share
from regcopy_passes.core.index_builder import IndexBuilder, Value
from regcopy_passes.core.planning import CopyPlan, round_offsets
from regcopy_passes.core.swizzle_address import emit_hoisted_swizzle, emit_swizzle, hoistable
from regcopy_passes.reg_copy.transfer import LoweringPlan, VectorTransfer
from xdsl.dialects import arith, scf, vector
from xdsl.dialects.builtin import IndexType, VectorType
from xdsl.ir import Block, Operation, Region, SSAValue

from regcopy_dialect.regcopy import CopyOp, StorageOp


def emit_round(b: IndexBuilder, plan: CopyPlan, f: Value, s_base: Value,
               r_base: Value, hoist: IndexBuilder | None = None) -> tuple[Value, Value]:
    """Step 7 in IR: ``planning.round_offsets`` of round ``f``; the round's S and R offsets.
    A swizzled S with a provably aligned base hoists ``swizzle(s_base)`` into ``hoist``
    (``swizzle_address``); otherwise the whole swizzle is applied per round."""
    ds, dr = round_offsets(b, plan.outer, f)
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


def emit_vector(b: IndexBuilder, op: CopyOp, lp: LoweringPlan, t: Value,
                storages: tuple[StorageOp, StorageOp]) -> list[Operation]:
    """The thread base and the storages into ``b``; returns the rounds (guarded)."""
    acc, plan, transfer = lp.acc, lp.copy, lp.transfer
    assert isinstance(transfer, VectorTransfer)
    t_offset, recon = emit_thread_share(b, plan, t)
    s_base = b.add(b.affine(plan.s_base), t_offset)
    r_base = b.affine(plan.r_base)
    b.ops += storages
    src, dst = storages[0].result, storages[1].result
    body = IndexBuilder(hoist_to=b)
    if transfer.rotation.pairs:
        sw = plan.swizzle
        emit_rotated(b, body, op, acc, plan, t, plan.s_base, t_offset, r_base, src, dst,
                     transfer.rotation,
                     None if sw is None else lambda bb, m: emit_swizzle(bb, m, sw))
        work = body.ops
    elif plan.rounds == 1:
        s_off, r_off = emit_round(body, plan, 0, s_base, r_base, b)
        emit_transfer(body, op, acc, plan, src, dst, s_off, r_off)
        work = body.ops
    else:
        for_body = Block(arg_types=[IndexType()])
        for_body.args[0].name_hint = "f"
        s_off, r_off = emit_round(body, plan, for_body.args[0], s_base, r_base, b)
        emit_transfer(body, op, acc, plan, src, dst, s_off, r_off)
        for_body.add_ops([*body.ops, scf.YieldOp()])
        work = [scf.ForOp(b.value(0), b.value(plan.rounds), b.value(1), [], Region(for_body))]
    if not plan.guarded:
        return work
    owned = b.emit(arith.CmpiOp(b.value(recon), b.value(t), "eq"), "owned")
    return [scf.IfOp(owned, [], [*work, scf.YieldOp()])]
