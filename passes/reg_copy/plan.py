"""``plan_for``: a ``regcopy.copy`` accepted and planned exactly as ``lower-reg-copy`` plans it
(the pass, ``choose-shared-layouts``, ``regcopy-viz`` and the tests call this one function)."""

from __future__ import annotations

from collections.abc import Hashable

from regcopy_passes.core.banks import FMA_SWAP_SHARE, SELECT_WEIGHT
from regcopy_passes.core.dispatch import accept
from regcopy_passes.core.divisibility import describe_value, divisibility
from regcopy_passes.core.planning import plan_copy
from regcopy_passes.reg_copy.plan_bounds import dynamic_side, plan_bounded
from regcopy_passes.reg_copy.shared_plan import plan_shared
from regcopy_passes.reg_copy.transfer import LoweringPlan, choose_transfer
from xdsl.ir import SSAValue

from regcopy_dialect.regcopy import CopyOp, MemSpace, memory_space


def plan_for(op: CopyOp, max_vector_bits: int = 128, rotate: bool = True,
             transfer: str = "auto", select_weight: float = SELECT_WEIGHT,
             fma_share: float = FMA_SWAP_SHARE, misaligned_stores: str = "auto"
             ) -> LoweringPlan:
    """Accept and plan ``op`` exactly as the pass does: the dispatch's checks (whose
    partition planning reuses), the per-thread plan (with the divisibility of dynamic
    offsets), the shared side's bank model and rotation, and the transfer kind
    (``transfer.choose_transfer``); on a runtime-shaped buffer, the bounded paths (a write's
    misaligned form: ``misaligned_stores`` where it names a form, else the copy's own
    ``{misaligned_stores}``, else the cost model's). Raises ``Rejected`` with the dispatch's
    reason. ``regcopy-viz`` draws what this returns."""
    acc = accept(op)
    if dynamic_side(op) is not None:  # runtime extents: bounds, edge widths, versioning
        return plan_bounded(op, acc, max_vector_bits, misaligned_stores)
    syms: list[Hashable] = [s for side in (acc.r, acc.s) for s, _ in side.base.terms]
    divisors = {s: divisibility(s) for s in syms if isinstance(s, SSAValue)}
    names = {s: describe_value(s) for s in syms if isinstance(s, SSAValue)}
    plan = plan_copy(acc.partition, acc.r.base, acc.s.base, acc.element_bits,
                     max_vector_bits, divisors, names)
    s_type = op.src_type if acc.r_is_dst else op.dst_type
    s_shared = memory_space(s_type) in (MemSpace.SHARED, MemSpace.SHARED_DYN)
    shared = plan_shared(acc, plan, rotate=rotate, shared=s_shared,
                         select_weight=select_weight, fma_share=fma_share)
    return choose_transfer(acc, plan, shared, str(op.src_type.element_type), s_shared,
                           transfer)
