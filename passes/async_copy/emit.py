"""The async copies in IR: ``regcopy.copy_async`` -> per-thread ``regcopy.cp_async`` ops (on
the ``regcopy.storage`` views of both buffers), ``regcopy.async_group`` ->
``regcopy.cp_async_commit``, ``regcopy.async_wait`` -> ``regcopy.cp_async_wait``.

A module's async ops are lowered together or not at all: a group is only meaningful with
all of its copies, so when one copy is refused every async op stays (the refusal is reported
like a register copy's). The chunk plan is ``lower_async.plan_async``'s.

Each ``cp_async`` carries its source size (``src_bytes``): the full width for a chunk known to
be inside the buffer (every chunk of a static shape, or under ``{in_bounds}``). On a global
buffer with runtime extents (``emit_async_bounds``) a chunk that straddles the last extent
gets ``src_bytes < bytes`` (the hardware zero-fills the rest) and one wholly outside gets 0
(with its address clamped to the buffer's base).

A thread of several rounds moves chunks ``t + r * T``; where each round's chunk lies a constant
distance from the thread's first, the rounds share what the thread alone decides: on the
global side the thread's offset and the room past the region's origin
(``emit_bounds.DynamicSource.thread_base``), on a swizzled shared side the swizzled offset of
the first chunk when every round's distance is a multiple of ``2^T`` (the swizzle touches only
the bits below ``T``, so ``sw(x + e) = sw(x) + e``). Each round then adds constants, and a
copy in a loop keeps one offset a side and thread live across it.
"""

from __future__ import annotations

from collections.abc import Callable

from regcopy_passes.async_copy.bounds import bounds_notes, may_straddle
from regcopy_passes.core.bounds import stride_name
from regcopy_passes.async_copy.tokens import drop_tokens, token_placeholder
from regcopy_passes.core.dispatch import Rejected
from regcopy_passes.async_copy.emit_bounds import DynamicSource, digit_places, round_steps
from regcopy_passes.core.emit_thread import thread_index
from regcopy_passes.core.index_builder import IndexBuilder, Value
from regcopy_passes.async_copy.plan import AsyncPlan, plan_async
from regcopy_passes.core.swizzle_address import emit_swizzle
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import Rewriter

from regcopy_dialect.async_ops import (
    AsyncGroupOp,
    AsyncWaitOp,
    CopyAsyncOp,
    CpAsyncCommitOp,
    CpAsyncOp,
    CpAsyncWaitOp,
)
from regcopy_dialect.diagnostics import (
    Diagnostic,
    emit,
    inherit_location,
    op_location,
    with_location,
)
from regcopy_dialect.layout import Layout
from regcopy_dialect.radix import place_digit
from regcopy_dialect.regcopy import StorageOp


def chunk_offset(b: IndexBuilder, chunks: Layout, c: Value) -> Value:
    """``sum_i ((c div q_i) mod e_i) * s_i`` over ``chunks`` (``q_i``: the product of the
    extents inside iter i; the outermost digit needs no ``mod``: ``c < C``)."""
    out: Value = 0
    for q, e, outermost, stride in digit_places(chunks):
        out = b.add(out, b.mul(place_digit(b, c, q, e, outermost, shifts=False), stride))
    return out


def emit_copy_async(op: CopyAsyncOp, plan: AsyncPlan) -> list[Operation]:
    """The per-thread ``cp_async`` ops of ``op``: round ``r`` moves chunk
    ``c = t + r * T``; the last round is guarded by ``c < C`` when ``C mod T != 0``. A
    dynamic source (``plan.bounds``) takes its chunk offsets and source sizes from
    ``emit_async_bounds``; a versioned plan runs under ``scf.if`` on its row-pitch tests,
    the proven plan (``plan.fallback``) in the else branch."""
    b = IndexBuilder()
    g_view, s_view = StorageOp(op.src), StorageOp(op.dst)
    b.ops += [g_view, s_view]
    t = thread_index(b, plan.scope)
    views = (g_view.result, s_view.result)
    if plan.bounds is None or plan.fallback is None:
        dyn = None if plan.bounds is None else DynamicSource(b, op, plan.bounds.checked)
        rounds = _rounds(b, plan, views, t, dyn)
        return [*b.ops, *rounds]
    dyn = DynamicSource(b, op, plan.bounds.checked)
    tests = [b.emit(arith.CmpiOp(b.value(b.rem(dyn.strides[i], plan.chunk)), b.value(0), "eq"))
             for i in plan.bounds.tests]
    ok = tests[0]
    for p in tests[1:]:
        ok = b.emit(arith.AndIOp(ok, p))
    ok.name_hint = "aligned"
    wide = _rounds(IndexBuilder(hoist_to=b), plan, views, t, dyn)
    proven = _rounds(IndexBuilder(hoist_to=b), plan.fallback, views, t, dyn)
    return [*b.ops, scf.IfOp(ok, [], [*wide, scf.YieldOp()], [*proven, scf.YieldOp()])]


def _rounds(b: IndexBuilder, plan: AsyncPlan, views: tuple[SSAValue, SSAValue], t: Value,
            dyn: DynamicSource | None) -> list[Operation]:
    """The rounds of ``plan``: the ops they add to ``b`` (taken out of ``b.ops``)."""
    first = len(b.ops)
    g_view, s_view = views
    g_base, s_base = b.affine(plan.g.base), b.affine(plan.s.base)
    # rounds that share the thread's offset (emit_bounds.DynamicSource.thread_base); one
    # round has nothing to share
    steps = None if dyn is None or plan.rounds == 1 else dyn.round_steps(
        plan.g_chunks, plan.threads, plan.rounds, plan.chunks)
    tb = None if dyn is None or steps is None else dyn.thread_base(b, plan.g_chunks, t)
    s_steps, s_first = _swizzled_steps(b, plan, s_base, t)
    sw = plan.s.layout.swizzle
    for r in range(plan.rounds):
        c = b.add(t, r * plan.threads)
        guard = plan.guarded and r == plan.rounds - 1
        body = IndexBuilder(hoist_to=b) if guard else b
        if dyn is None:
            g_off: Value = body.add(g_base, chunk_offset(body, plan.g_chunks, c))
            size: Value = plan.nbytes
        else:
            assert plan.bounds is not None
            straddle = may_straddle(plan.bounds.ext, plan.chunk, plan.bounds.tests)
            shared = None if tb is None or steps is None else (tb, steps[r])
            g_off, size = dyn.chunk(body, plan.g_chunks, c, plan.chunk, plan.element_bytes,
                                    straddle, shared)
        if s_first is not None and s_steps is not None:
            s_off = body.add(s_first, s_steps[r])
        else:
            s_off = body.add(s_base, chunk_offset(body, plan.s_chunks, c))
            if sw is not None:
                s_off = emit_swizzle(body, s_off, sw)
        body.ops.append(CpAsyncOp(s_view, body.value(s_off), g_view, body.value(g_off),
                                  plan.nbytes, body.value(size)))
        if guard:
            cond = arith.CmpiOp(b.value(c), b.value(plan.chunks), "ult")
            b.ops += [cond, scf.IfOp(cond.result, [], [*body.ops, scf.YieldOp()])]
    out = b.ops[first:]
    del b.ops[first:]
    return out


def _swizzled_steps(b: IndexBuilder, plan: AsyncPlan, s_base: Value, t: Value
                    ) -> tuple[tuple[int, ...] | None, Value | None]:
    """``(e, first)``: where the shared side is swizzled, a thread has several rounds, and
    round ``r``'s chunk lies ``e[r]`` elements past its first in every thread, each a multiple
    of ``2^T`` (the swizzle reads and writes only offset bits below ``T``), then ``sw(x +
    e[r]) = sw(x) + e[r]`` and the rounds share ``first = sw(s_base + offset(t))``, emitted
    once (each round adds a constant: an ``[R+imm]`` address). ``(None, None)`` otherwise:
    each round swizzles its own offset."""
    sw = plan.s.layout.swizzle
    if sw is None or plan.rounds == 1:
        return None, None
    places = digit_places(plan.s_chunks)

    def at(c: int) -> tuple[int, ...]:  # ``chunk_offset`` of a constant chunk, on integers
        return (sum((c // q if outermost else c // q % e) * stride
                    for q, e, outermost, stride in places),)

    steps = round_steps(at, plan.threads, plan.rounds, plan.chunks)
    if steps is None or any(e % (1 << sw.read_end) for (e,) in steps):
        return None, None
    first = emit_swizzle(b, b.add(s_base, chunk_offset(b, plan.s_chunks, t)), sw)
    return tuple(e for (e,) in steps), first


def remark(op: CopyAsyncOp, plan: AsyncPlan) -> Diagnostic:
    """``cp.async.cg 16 bytes (...), k chunks/thread``, then why not wider and the fill."""
    notes = [f"narrowed: {plan.narrowed_by}"] if plan.narrowed_by else []
    if plan.bounds is None:
        notes.append("no zero-fill: every chunk is inside the buffer (static shapes)")
    else:
        notes += bounds_notes(plan.bounds, plan.element_bytes, plan.chunk)
    if plan.fallback is not None and plan.bounds is not None:
        ext, fb = plan.bounds.ext, plan.fallback
        test = " and ".join(f"{stride_name(ext, i)} % {plan.chunk} == 0"
                            for i in plan.bounds.tests)
        notes.append(f"versioned on {test}: {plan.nbytes} bytes else {fb.describe()} "
                     f"({'stride' if ext.strided else 'extent'} divisors "
                     f"{list(ext.stride_divisors or ext.divisors)} prove {fb.chunk} × "
                     f"{fb.element_type})")
        if fb.narrowed_by:
            notes.append(f"proven path narrowed: {fb.narrowed_by}")
    return Diagnostic("remark", plan.describe(), async_label(op), op_location(op), tuple(notes))


def async_label(op: CopyAsyncOp) -> str:
    names = [f"%{v.name_hint}" for v in (op.src, op.dst) if v.name_hint]
    return "copy_async " + " -> ".join(names) if len(names) == 2 else "copy_async"


def lower_async_ops(module: ModuleOp, report: Callable[[Operation, str], None],
                    remarks: bool = False) -> None:
    """Lower the async ops of each function of ``module`` whose every ``copy_async`` plans;
    in a function with a refused copy, call ``report(op, reason)`` for each refused copy and
    leave its async ops as they are (a group means something only with all its copies)."""
    for f in [o for o in module.ops if isinstance(o, func.FuncOp)]:
        _lower_function(f, report, remarks)


def _lower_function(f: func.FuncOp, report: Callable[[Operation, str], None],
                    remarks: bool) -> None:
    copies = [o for o in f.walk() if isinstance(o, CopyAsyncOp)]
    groups = [o for o in f.walk() if isinstance(o, AsyncGroupOp)]
    waits = [o for o in f.walk() if isinstance(o, AsyncWaitOp)]
    if not (copies or groups or waits):
        return
    plans: dict[CopyAsyncOp, AsyncPlan] = {}
    for op in copies:
        try:
            plans[op] = plan_async(op)
        except Rejected as reason:
            report(op, str(reason))
    if len(plans) < len(copies):
        return
    placeholder = token_placeholder(f)
    for w in waits:
        Rewriter.replace_op(w, with_location(CpAsyncWaitOp(w.pending.value.data), w))
    for g in groups:
        g.group.replace_all_uses_with(placeholder)
        Rewriter.replace_op(g, with_location(CpAsyncCommitOp(), g), [None])
    for op in copies:
        if remarks:
            emit(remark(op, plans[op]))
        op.token.name_hint = None  # the chunk math is named by the builder, not the token
        lowered = emit_copy_async(op, plans[op])
        inherit_location(lowered, op)
        Rewriter.replace_op(op, lowered, [None])
    drop_tokens(f, placeholder)
