"""``lower-reg-copy``: the register-copy dispatch as an xDSL pass (SPEC §3).

Every ``regcopy.copy`` that ``dispatch.accept`` takes becomes, in place:
hoisted thread-index and base-offset math, ``regcopy.storage`` views of both buffers, an
optional ``scf.if`` guarding out threads that own nothing, and one ``scf.for`` over the rounds
(omitted for one round) whose body computes the round's offsets and moves one
``vector<n x T>`` with ``vector.load`` + ``vector.store``. Rejected copies stay as they are.
"""

from __future__ import annotations

import sys
from collections.abc import Hashable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.utils.exceptions import PassFailedException

from regcopy_dialect.diagnostics import op_error, op_text
from regcopy_dialect.regcopy import CopyOp
from regcopy_passes.dispatch import Accepted, Rejected, accept
from regcopy_passes.divisibility import describe_value, divisibility
from regcopy_passes.emit_rounds import lower
from regcopy_passes.planning import CopyPlan, plan_copy
from regcopy_passes.shared_plan import plan_shared

VECTOR_BITS = (8, 16, 32, 64, 128)


@dataclass(frozen=True)
class LowerRegCopyPattern(RewritePattern):
    """Rewrite one accepted ``regcopy.copy``; leave a rejected one (or fail under strict)."""

    max_vector_bits: int = 128
    strict: bool = False
    remarks: bool = False
    bank_rotation: str = "auto"

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CopyOp, rewriter: PatternRewriter, /) -> None:
        try:
            acc = accept(op)
        except Rejected as reason:
            if self.remarks:
                print(f"remark: {op_text(op)}: rejected: {reason}", file=sys.stderr)
            if self.strict:
                raise PassFailedException(op_error(op, f"rejected by lower-reg-copy: {reason}")
                                          ) from None
            return
        syms: list[Hashable] = [s for side in (acc.r, acc.s) for s, _ in side.base.terms]
        divisors = {s: divisibility(s) for s in syms if isinstance(s, SSAValue)}
        names = {s: describe_value(s) for s in syms if isinstance(s, SSAValue)}
        plan = plan_copy(acc.r, acc.s, acc.scope, acc.threads, acc.element_bits,
                         self.max_vector_bits, divisors, names)
        shared = plan_shared(acc, plan, rotate=self.bank_rotation == "auto")
        if self.remarks:
            self._remark(op, acc, plan)
        rewriter.replace(op, lower(op, acc, plan, shared), [])

    def _remark(self, op: CopyOp, acc: Accepted, plan: CopyPlan) -> None:
        bits = plan.n * acc.element_bits
        line = (f"remark: {op_text(op)}: vec {plan.n} x {acc.element_bits}-bit ({bits} bits), "
                f"rounds {plan.rounds}, registers/thread {acc.registers}, "
                f"bytes/transfer {bits // 8}")
        if plan.guarded:
            line += ", guarded (some threads own nothing)"
        if plan.narrowed_by:
            line += f"; narrowed: {plan.narrowed_by}"
        print(line, file=sys.stderr)


@dataclass(frozen=True)
class LowerRegCopyPass(ModulePass):
    """Lower every register copy the dispatch accepts (SPEC §3).

    Options: ``max-vector-bits`` (8/16/32/64/128, default 128), ``strict`` (a rejected copy
    is an error), ``remarks`` (one line per copy on stderr)."""

    name = "lower-reg-copy"

    max_vector_bits: int = 128
    strict: bool = False
    remarks: bool = False
    bank_rotation: str = "auto"
    transfer: str = "auto"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        if self.max_vector_bits not in VECTOR_BITS:
            raise PassFailedException(f"lower-reg-copy: max-vector-bits must be one of "
                                      f"{', '.join(map(str, VECTOR_BITS))}, got "
                                      f"{self.max_vector_bits}")
        pattern = LowerRegCopyPattern(self.max_vector_bits, self.strict, self.remarks,
                                      self.bank_rotation)
        PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(op)
