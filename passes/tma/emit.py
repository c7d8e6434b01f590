"""``transfer=tma``: the async copies of a kernel as Hopper bulk tensor copies (TMA).

Per kernel, all or nothing: every ``regcopy.copy_async`` is planned (``tma_plan.plan_tma``);
if one is refused, none is rewritten (they stay for the ``cp.async`` lowering) and each copy
gets a remark saying why (an error under ``strict``). Otherwise, with ``NB`` the ring depth
(the most groups in flight right after a commit, ``tma_ring.ring_depth``; a kernel where that
is unbounded is refused as a copy is) and ``tid`` the CTA thread id:

* kernel entry: one ``regcopy.tensor_map`` per (source argument, box, swizzle); an
  ``NB``-slot mbarrier array ``B`` in shared memory (thread 0 initialises every slot for one
  arrival, then ``fence_barrier_init``, then a CTA barrier); a per-thread counter pair
  ``C = [committed, waited]`` (``local``, both 0);
* ``copy_async``: ``if tid == 0: tma_load map[src offsets] -> storage(S)[base], B[C0 % NB]``
  (``base``: the destination region's first element; the buffer's alignment is raised to the
  plan's);
* ``async_group``: ``if tid == 0: mbarrier_arrive_expect_tx B[C0 % NB] {bytes = Σ boxes}``;
  ``C0 += 1``. Group ``k`` uses slot ``k % NB`` in its phase ``k / NB``;
* ``async_wait {pending = N}``: every thread waits for groups ``k`` in ``[C1, C0 - N)``:
  ``mbarrier_try_wait_parity B[k % NB], (k / NB) % 2``; then ``C1 = max(C1, C0 - N)``.
  As ``cp.async.wait_group``, it counts the groups committed so far, whichever token it names.

Tokens carried through ``scf.for``/``scf.if`` are then dropped (``async_tokens.drop_tokens``,
as for ``cp.async``): the TMA form counts groups, it passes no token.

The complete_tx of a load may precede the group's expect_tx: the phase cannot complete before
its one arrival, which carries the expected bytes. Reusing a slot's destination is the
program's business, as with ``cp.async``: a CTA barrier between the last read of a stage and
the copy that refills it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from xdsl.builder import Builder
from xdsl.dialects import arith, func, gpu, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    i64,
)
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from regcopy_dialect.async_ops import AsyncGroupOp, AsyncWaitOp, CopyAsyncOp
from regcopy_dialect.attrs import ExecScope, MemSpace, MemSpaceAttr
from regcopy_dialect.buffers import buffer_layout
from regcopy_dialect.diagnostics import (
    Diagnostic,
    emit,
    locate_inserted,
    op_error,
    op_location,
    split_clauses,
)
from regcopy_dialect.element_types import element_bits
from regcopy_dialect.layout import LayoutError, slice_region
from regcopy_dialect.regcopy import DIVISIBILITY, StorageOp
from regcopy_dialect.strided import is_strided
from regcopy_dialect.tma_ops import (
    FenceBarrierInitOp,
    MBarrierArriveExpectTxOp,
    MBarrierInitOp,
    MBarrierTryWaitParityOp,
    TensorMapOp,
    TmaLoadOp,
)
from regcopy_passes.async_copy.tokens import drop_tokens, token_placeholder
from regcopy_passes.core.divisibility import divisibility
from regcopy_passes.tma.plan import TmaPlan, TmaRequest, plan_tma
from regcopy_passes.tma.ring import ring_depth

Report = Callable[[Operation, str, bool], None]
"""``report(op, message, lowered)``: a remark (or, for a refusal under strict, an error)."""

INDEX = IndexType()


def _global_divisibility(t: MemRefType, source: SSAValue) -> tuple[int, ...]:
    """The ``regcopy.divisibility`` array of a dynamic memref argument (1s without one)."""
    ones = (1,) * len(t.get_shape())
    if not isinstance(source, BlockArgument):
        return ones
    f = source.owner.parent_op()
    if not isinstance(f, func.FuncOp):
        return ones
    if f.arg_attrs is None:
        return ones
    attr = f.arg_attrs.data[source.index].data.get(DIVISIBILITY)
    if isinstance(attr, DenseArrayBase) and len(attr.get_values()) == len(ones):
        return tuple(int(v) for v in attr.get_values())
    return ones


def plan_copy(op: CopyAsyncOp) -> TmaPlan | str:
    """The TMA plan of one ``copy_async``, or why it cannot be a TMA load."""
    if op.scope.data != ExecScope.CTA:
        return (f"scope {op.scope.data} (a TMA load is issued once for the CTA; write the copy "
                "with scope cta)")
    if not isinstance(op.src, BlockArgument):
        return "the global buffer is not a kernel argument (the runner encodes its tensor map)"
    if not isinstance(op.dst.owner, memref.AllocaOp):
        return "the shared destination is not a memref.alloca of this kernel"
    src_t, dst_t = op.src_type, op.dst_type
    if is_strided(src_t):
        return (f"the global buffer is {src_t.layout}: the runner encodes tensor maps of "
                "contiguous arrays only (a strided view's tensor map is not built yet)")
    src_offsets, box = op.region("src")
    dst_offsets, dst_sizes = op.region("dst")
    shape = tuple(None if d == DYNAMIC_INDEX else d for d in src_t.get_shape())
    try:
        sliced = slice_region(buffer_layout(dst_t), dst_t.get_shape(), dst_offsets, dst_sizes)
    except LayoutError as e:
        return f"shared region: {e}"
    base_div = sliced.base.divisibility({v: divisibility(v) for v, _ in sliced.base.terms})
    bits = element_bits(src_t.element_type) or 0
    col = src_offsets[-1]
    start = divisibility(col) if isinstance(col, SSAValue) else abs(col)
    return plan_tma(TmaRequest(bits, shape, tuple(box), sliced, base_div,
                               _global_divisibility(src_t, op.src), start))


class _Emitter:
    """Builds the TMA form of one kernel's async ops."""

    def __init__(self, f: func.FuncOp, nb: int):
        self.f, self.nb = f, nb
        self.entry = f.body.block
        self.maps: dict[tuple[SSAValue, tuple[int, ...], int], SSAValue] = {}
        b = Builder(InsertPoint.at_start(self.entry))
        self.c = {k: b.insert(arith.ConstantOp.from_int_and_width(k, INDEX)).result
                  for k in sorted({0, 1, 2, nb})}
        self.tid = b.insert(gpu.ThreadIdOp(gpu.DimensionAttr(gpu.DimensionEnum.X))).result
        self.elected = b.insert(arith.CmpiOp(self.tid, self.c[0], "eq")).result
        shared = MemSpaceAttr(MemSpace.SHARED)
        self.bars = b.insert(memref.AllocaOp.get(i64, shape=[nb], memory_space=shared)).memref
        self.bars.name_hint = "tma_bar"
        local = MemSpaceAttr(MemSpace.LOCAL)
        self.counts = b.insert(memref.AllocaOp.get(INDEX, shape=[2],
                                                   memory_space=local)).memref
        self.counts.name_hint = "tma_groups"
        for k in (0, 1):
            b.insert(memref.StoreOp.get(self.c[0], self.counts, [self.c[k]]))
        body = self._if(b, self.elected)
        for s in range(nb):
            slot = self.c[s] if s in self.c else body.insert(
                arith.ConstantOp.from_int_and_width(s, INDEX)).result
            body.insert(MBarrierInitOp(self.bars, slot, 1))
        body.insert(FenceBarrierInitOp())
        b.insert(gpu.BarrierOp())
        self.after_prologue = b

    @staticmethod
    def _if(b: Builder, cond: SSAValue) -> Builder:
        """``scf.if cond`` inserted at ``b``; a builder into its then-block."""
        yield_op = scf.YieldOp()
        then = Block([yield_op])
        b.insert(scf.IfOp(cond, [], Region(then)))
        return Builder(InsertPoint.before(yield_op))

    def tensor_map(self, op: CopyAsyncOp, plan: TmaPlan) -> SSAValue:
        box = tuple(reversed(plan.box_dims))
        key = (op.src, box, int(plan.swizzle))
        if key not in self.maps:
            m = self.after_prologue.insert(TensorMapOp(op.src, box, int(plan.swizzle)))
            m.map.name_hint = f"{op.src.name_hint or 'src'}_tmap"
            self.maps[key] = m.map
        return self.maps[key]

    def slot(self, b: Builder) -> SSAValue:
        committed = b.insert(memref.LoadOp.get(self.counts, [self.c[0]])).res
        return b.insert(arith.RemUIOp(committed, self.c[self.nb])).result

    def index(self, b: Builder, v: int | SSAValue) -> SSAValue:
        if isinstance(v, SSAValue):
            return v
        return b.insert(arith.ConstantOp.from_int_and_width(v, INDEX)).result

    def copy(self, op: CopyAsyncOp, plan: TmaPlan) -> None:
        tmap = self.tensor_map(op, plan)
        alloca = cast(memref.AllocaOp, op.dst.owner)
        have = alloca.alignment.value.data if alloca.alignment is not None else 0
        if plan.shared_alignment > have:
            alloca.alignment = IntegerAttr(plan.shared_alignment, i64)
        b = Builder(InsertPoint.before(op))
        dst_offsets, dst_sizes = op.region("dst")
        sliced = slice_region(buffer_layout(op.dst_type), op.dst_type.get_shape(), dst_offsets,
                              dst_sizes)
        base = self.index(b, sliced.base.const)
        for sym, coeff in sliced.base.terms:
            term = b.insert(arith.MuliOp(cast(SSAValue, sym), self.index(b, coeff))).result
            base = b.insert(arith.AddiOp(base, term)).result
        storage = b.insert(StorageOp(op.dst)).result
        coords = [self.index(b, v) for v in op.region("src")[0]]
        body = self._if(b, self.elected)
        body.insert(TmaLoadOp(tmap, coords, storage, base, self.bars, self.slot(body)))

    def group(self, op: AsyncGroupOp, nbytes: int) -> None:
        b = Builder(InsertPoint.before(op))
        body = self._if(b, self.elected)
        body.insert(MBarrierArriveExpectTxOp(self.bars, self.slot(body), nbytes))
        committed = b.insert(memref.LoadOp.get(self.counts, [self.c[0]])).res
        b.insert(memref.StoreOp.get(b.insert(arith.AddiOp(committed, self.c[1])).result,
                                    self.counts, [self.c[0]]))

    def wait(self, op: AsyncWaitOp) -> None:
        b = Builder(InsertPoint.before(op))
        committed = b.insert(memref.LoadOp.get(self.counts, [self.c[0]])).res
        waited = b.insert(memref.LoadOp.get(self.counts, [self.c[1]])).res
        pending = self.index(b, op.pending.value.data)
        target = b.insert(arith.SubiOp(committed, pending)).result
        target = b.insert(arith.MaxSIOp(target, waited)).result
        loop_body = Block(arg_types=[INDEX])
        k = loop_body.args[0]
        lb = Builder(InsertPoint.at_end(loop_body))
        slot = lb.insert(arith.RemUIOp(k, self.c[self.nb])).result
        phase = lb.insert(arith.DivUIOp(k, self.c[self.nb])).result
        parity = lb.insert(arith.RemUIOp(phase, self.c[2])).result
        lb.insert(MBarrierTryWaitParityOp(self.bars, slot, parity))
        lb.insert(scf.YieldOp())
        b.insert(scf.ForOp(waited, target, self.c[1], [], loop_body))
        b.insert(memref.StoreOp.get(target, self.counts, [self.c[1]]))


def lower_tma_kernel(f: func.FuncOp, report: Report) -> bool:
    """Rewrite ``f``'s async ops as TMA (``True``) or leave them all (``False``), reporting
    each copy."""
    copies = [op for op in f.walk() if isinstance(op, CopyAsyncOp)]
    if not copies:
        return False
    plans: dict[CopyAsyncOp, TmaPlan | str] = {op: plan_copy(op) for op in copies}
    for g in (op for op in f.walk() if isinstance(op, AsyncGroupOp)):
        for t in g.tokens:
            if not isinstance(t.owner, CopyAsyncOp):
                for op in copies:
                    if isinstance(plans[op], TmaPlan):
                        plans[op] = ("a group closes a token that is not a copy_async result "
                                     "(the TMA lowering counts each group's boxes)")
    depth = ring_depth(f)
    if isinstance(depth, str):
        plans = {op: depth if isinstance(p, TmaPlan) else p for op, p in plans.items()}
    refused = {op: p for op, p in plans.items() if isinstance(p, str)}
    if refused:
        first = split_clauses(next(iter(refused.values())))[0]
        for op in copies:
            why = refused.get(op) or f"another copy of the kernel is refused ({first})"
            report(op, f"transfer=tma: {why}; lowered with cp.async instead", False)
        return False
    waits = [op for op in f.walk() if isinstance(op, AsyncWaitOp)]
    groups = [op for op in f.walk() if isinstance(op, AsyncGroupOp)]
    nb = cast(int, depth)
    anchor = f.body.block.first_op
    with locate_inserted(copies[0], anchor):  # the prologue and the tensor maps
        em = _Emitter(f, nb)
        _emit_all(em, copies, groups, waits, plans, report, nb)
    placeholder = token_placeholder(f)
    for w in waits:
        Rewriter.erase_op(w)
    for g in groups:
        g.group.replace_all_uses_with(placeholder)
        Rewriter.erase_op(g)
    for op in copies:
        Rewriter.erase_op(op)
    drop_tokens(f, placeholder)
    return True


def _emit_all(em: _Emitter, copies: list[CopyAsyncOp], groups: list[AsyncGroupOp],
              waits: list[AsyncWaitOp], plans: dict[CopyAsyncOp, TmaPlan | str],
              report: Report, nb: int) -> None:
    """The TMA form of every async op (each located at its op), before the op."""
    for op in copies:
        plan = cast(TmaPlan, plans[op])
        report(op, f"lowered: {plan.describe()}, mbarrier ring of {nb}", True)
    group_bytes = {g: sum(cast(TmaPlan, plans[cast(CopyAsyncOp, t.owner)]).box_bytes
                          for t in g.tokens) for g in groups}
    for op in copies:
        with locate_inserted(op):
            em.copy(op, cast(TmaPlan, plans[op]))
    for g in groups:
        with locate_inserted(g):
            em.group(g, group_bytes[g])
    for w in waits:
        with locate_inserted(w):
            em.wait(w)


def lower_tma_ops(module: ModuleOp, strict: bool, remarks: bool) -> None:
    """``lower_tma_kernel`` over every kernel of ``module``: a refused copy is an error under
    ``strict``; with ``remarks`` every copy gets one line (TMA box, or why cp.async)."""

    def report(op: Operation, message: str, lowered: bool) -> None:
        if strict and not lowered:
            raise PassFailedException(op_error(op, f"rejected by lower-reg-copy: {message}"))
        if remarks:
            first, *rest = split_clauses(message)
            emit(Diagnostic("remark", first, "copy_async", op_location(op), tuple(rest)))

    for f in module.ops:
        if isinstance(f, func.FuncOp) and f.body.blocks:
            lower_tma_kernel(f, report)
