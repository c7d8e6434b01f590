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
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, builtin, gpu, scf, vector
from xdsl.dialects.builtin import IndexType, VectorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.utils.exceptions import PassFailedException

from regcopy_dialect.diagnostics import op_error, op_text
from regcopy_dialect.layout import Affine, Scope, Swizzle
from regcopy_dialect.regcopy import CopyOp, StorageOp
from regcopy_passes.dispatch import Accepted, Rejected, accept
from regcopy_passes.divisibility import divisibility
from regcopy_passes.planning import CopyPlan, ThreadAtom, plan_copy

Value = SSAValue | int
VECTOR_BITS = (8, 16, 32, 64, 128)


@dataclass
class IndexBuilder:
    """Appends ``index`` arithmetic to ``ops``, folding constants and identities, so that
    the emitted IR holds only the math that depends on run-time values."""

    ops: list[Operation] = field(default_factory=list[Operation])
    hoist_to: IndexBuilder | None = None  # where constants go (the code before the loop)
    _consts: dict[int, SSAValue] = field(default_factory=dict[int, SSAValue])
    _memo: dict[tuple[type[Operation], SSAValue, SSAValue], SSAValue] = field(
        default_factory=dict[tuple[type[Operation], SSAValue, SSAValue], SSAValue])

    def value(self, v: Value) -> SSAValue:
        if isinstance(v, SSAValue):
            return v
        if self.hoist_to is not None:
            return self.hoist_to.value(v)
        if v not in self._consts:
            c = arith.ConstantOp.from_int_and_width(v, IndexType())
            self.ops.append(c)
            self._consts[v] = c.result
        return self._consts[v]

    def emit(self, op: Operation, hint: str | None = None) -> SSAValue:
        """Append ``op`` and return its result."""
        self.ops.append(op)
        if hint is not None:
            op.results[0].name_hint = hint
        return op.results[0]

    def binary(self, cls: type[arith.SignlessIntegerBinaryOperation], a: Value,
               b: Value) -> SSAValue:
        """``cls(a, b)``, or the result of the identical op this builder emitted before."""
        lhs, rhs = self.value(a), self.value(b)
        key = (cls, lhs, rhs)
        if (seen := self._memo.get(key)) is None:
            seen = self._memo[key] = self.emit(cls(lhs, rhs))
        return seen

    def add(self, a: Value, b: Value) -> Value:
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if a == 0:
            return b
        if b == 0:
            return a
        return self.binary(arith.AddiOp, a, b)

    def mul(self, a: Value, k: int) -> Value:
        if isinstance(a, int):
            return a * k
        if k == 0:
            return 0
        return a if k == 1 else self.binary(arith.MuliOp, a, k)

    def div(self, a: Value, k: int) -> Value:
        if isinstance(a, int):
            return a // k
        return a if k == 1 else self.binary(arith.DivSIOp, a, k)

    def rem(self, a: Value, k: int) -> Value:
        if isinstance(a, int):
            return a % k
        return self.binary(arith.RemSIOp, a, k)

    def affine(self, a: Affine) -> Value:
        out: Value = a.const
        for sym, coeff in a.terms:
            assert isinstance(sym, SSAValue)
            out = self.add(out, self.mul(sym, coeff))
        return out


# ---- step 8: per-thread base --------------------------------------------------------------------


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


# ---- step 9: emit -------------------------------------------------------------------------------


def emit_swizzle(b: IndexBuilder, m: Value, sw: Swizzle) -> Value:
    """``(g(m >> M) << M) | (m & (2^M - 1))``, ``g(x) = x ^ ((x & ((2^B-1) << S)) >> S)``."""
    if isinstance(m, int):
        return sw.apply(m)
    x = b.binary(arith.ShRSIOp, m, sw.m_base) if sw.m_base else m
    y = b.binary(arith.AndIOp, x, ((1 << sw.bits) - 1) << sw.shift)
    y = b.binary(arith.ShRSIOp, y, sw.shift)
    g = b.binary(arith.XOrIOp, x, y)
    if not sw.m_base:
        return g
    hi = b.binary(arith.ShLIOp, g, sw.m_base)
    lo = b.binary(arith.AndIOp, m, (1 << sw.m_base) - 1)
    return b.binary(arith.OrIOp, hi, lo)


def emit_round(b: IndexBuilder, plan: CopyPlan, f: Value, s_base: Value,
               r_base: Value) -> tuple[Value, Value]:
    """Step 7 in IR: decode round ``f`` over the outer atoms; S and R offsets of the round."""
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


def lower(op: CopyOp, acc: Accepted, plan: CopyPlan) -> list[Operation]:
    """All ops that replace ``op``: hoisted math, storages, optional guard, the round loop."""
    b = IndexBuilder()
    t = thread_index(b, acc.scope)
    t_offset, recon = emit_thread_base(b, plan, t)
    s_base = b.add(b.affine(plan.s_base), t_offset)
    r_base = b.affine(plan.r_base)
    src, dst = StorageOp(op.src), StorageOp(op.dst)
    b.ops += [src, dst]
    body = IndexBuilder(hoist_to=b)
    if plan.rounds == 1:
        s_off, r_off = emit_round(body, plan, 0, s_base, r_base)
        emit_transfer(body, op, acc, plan, src.result, dst.result, s_off, r_off)
        work = body.ops
    else:
        for_body = Block(arg_types=[IndexType()])
        for_body.args[0].name_hint = "f"
        s_off, r_off = emit_round(body, plan, for_body.args[0], s_base, r_base)
        emit_transfer(body, op, acc, plan, src.result, dst.result, s_off, r_off)
        for_body.add_ops([*body.ops, scf.YieldOp()])
        bounds = [b.value(0), b.value(plan.rounds), b.value(1)]
        work = [scf.ForOp(*bounds, [], Region(for_body))]
    if not plan.guarded:
        return [*b.ops, *work]
    owned = b.emit(arith.CmpiOp(b.value(recon), b.value(t), "eq"), "owned")
    return [*b.ops, scf.IfOp(owned, [], [*work, scf.YieldOp()])]


# ---- the pattern and the pass -------------------------------------------------------------------


def _describe(value: SSAValue) -> str:
    """How a remark names an offset value: ``%name``, else its defining op."""
    if value.name_hint:
        return f"%{value.name_hint}"
    if isinstance(value.owner, Operation):
        return op_text(value.owner)
    return "a block argument"


@dataclass(frozen=True)
class LowerRegCopyPattern(RewritePattern):
    """Rewrite one accepted ``regcopy.copy``; leave a rejected one (or fail under strict)."""

    max_vector_bits: int = 128
    strict: bool = False
    remarks: bool = False

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
        names = {s: _describe(s) for s in syms if isinstance(s, SSAValue)}
        plan = plan_copy(acc.r, acc.s, acc.scope, acc.threads, acc.element_bits,
                         self.max_vector_bits, divisors, names)
        if self.remarks:
            self._remark(op, acc, plan)
        rewriter.replace(op, lower(op, acc, plan), [])

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

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        if self.max_vector_bits not in VECTOR_BITS:
            raise PassFailedException(f"lower-reg-copy: max-vector-bits must be one of "
                                      f"{', '.join(map(str, VECTOR_BITS))}, got "
                                      f"{self.max_vector_bits}")
        pattern = LowerRegCopyPattern(self.max_vector_bits, self.strict, self.remarks)
        PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(op)
