"""Pictures of an asynchronous copy's plan (``regcopy.copy_async``, for ``regcopy-viz``): which
thread and round moves each element of the region, one thread's ``cp.async`` chunks, and the
shared-memory bank groups of one warp's chunks in one round.

The plan is the pass's own (``lower_async.plan_async``): chunk ``c`` (``chunk`` elements, the
``c``-th run of the region in row-major order) is moved by thread ``c mod T`` in round
``c div T`` (``emit_async``: ``c = t + r * T``).
"""

from __future__ import annotations

from regcopy_passes.core.dispatch import Rejected
from regcopy_passes.async_copy.plan import AsyncPlan, plan_async
from regcopy_tools.viz_plan import CopyPicture, banks_picture, runtime_extent_note

from regcopy_dialect.async_ops import CopyAsyncOp
from regcopy_dialect.diagnostics import op_text
from regcopy_dialect.layout import Layout
from regcopy_dialect.viz import Tile, grid_shape


def chunk_offset(chunks: Layout, base: int, c: int) -> int:  # the shared side's
    """The (static) element offset where chunk ``c`` starts: the chunk layout at ``c`` plus
    the side's constant base (a dynamic part of the base is taken as 0)."""
    return base + chunks.apply(c)[1]


def region_tile(op: CopyAsyncOp, plan: AsyncPlan, thread: int) -> Tile:
    """The region, each element labelled ``thread/round`` and coloured by round;
    ``thread``'s elements framed (``*`` in text)."""
    sizes = [z for z in op.region("src")[1] if z != 1] or [1]
    rows, cols = grid_shape(sizes)
    labels, keys, marked = [], [], set()
    for index in range(plan.chunks * plan.chunk):
        t, r = divmod(index // plan.chunk, plan.threads)[::-1]
        labels.append(f"{t}/{r}")
        keys.append(r)
        if t == thread:
            marked.add(divmod(index, cols))
    return Tile(f"region {'x'.join(map(str, sizes))}: which thread and round moves each element",
                f"cell = thread/round; colour = round; framed (*) = thread {thread}",
                tuple(tuple(labels[r * cols:(r + 1) * cols]) for r in range(rows)),
                tuple(tuple(keys[r * cols:(r + 1) * cols]) for r in range(rows)),
                tuple(map(str, range(rows))), tuple(map(str, range(cols))), frozenset(marked))


def shared_offset(plan: AsyncPlan, c: int) -> tuple[int, int]:
    """Chunk ``c``'s shared offset, before and after the swizzle."""
    raw = chunk_offset(plan.s_chunks, plan.s.base.const, c)
    swizzle = plan.s.layout.swizzle
    return raw, swizzle.apply(raw) if swizzle else raw


def region_start(op: CopyAsyncOp, plan: AsyncPlan, c: int) -> str:
    """Where chunk ``c`` starts in the source, as the region's offsets plus its row-major
    coordinates (``%m0 + 32, 8``): a runtime-shaped source has no static element offset."""
    offsets, sizes = op.region("src")
    rest, coords = c * plan.chunk, []
    for z in reversed(sizes):
        rest, k = divmod(rest, z)
        coords.append(k)
    parts = []
    for o, k in zip(offsets, reversed(coords), strict=True):
        if isinstance(o, int):
            parts.append(str(o + k))
        else:
            name = f"%{o.name_hint}" if o.name_hint else "%off"
            parts.append(f"{name} + {k}" if k else name)
    return ", ".join(parts)


def thread_lines(op: CopyAsyncOp, plan: AsyncPlan, thread: int, max_rounds: int = 16
                 ) -> list[str]:
    """``thread``'s ``cp.async`` chunks, one line a round: the source element it starts at
    and the shared offsets it fills."""
    mine = [thread + r * plan.threads for r in range(plan.rounds)
            if thread + r * plan.threads < plan.chunks]
    if not mine:
        return [f"thread {thread} moves no chunk of this copy (guarded out)"]
    dyn = " + dynamic offset" if plan.s.base.terms else ""
    src = f"%{op.src.name_hint}" if op.src.name_hint else "G"
    out = [f"thread {thread}:"]
    for r, c in enumerate(mine[:max_rounds]):
        raw, phys = shared_offset(plan, c)
        sw = f" (swizzled {phys})" if plan.s.layout.swizzle else ""
        out.append(f"  round {r}: {src}[{region_start(op, plan, c)}] .. +{plan.chunk} -> "
                   f"S[{raw} .. {raw + plan.chunk}){dyn}{sw}")
    if len(mine) > max_rounds:
        out.append(f"  ... {len(mine) - max_rounds} more rounds")
    return out


def async_copy_picture(op: CopyAsyncOp, index: int, thread: int = 0, warp: int = 0,
                       round_: int = 0) -> CopyPicture:
    """Everything ``regcopy-viz`` shows for the ``index``-th copy of a file, a copy_async."""
    head = f"copy #{index}: {op_text(op)}"
    try:
        plan = plan_async(op)
    except Rejected as reason:
        return CopyPicture((head, f"  not lowered by lower-reg-copy: {reason}"), ())
    lines = [head, (f"  plan: {plan.describe()}, {plan.chunks} chunks over {plan.threads} "
                    f"threads in the {plan.scope.name.lower()}"),
             "  direction: G -> S (asynchronous: the data lands at the async_wait)"]
    if plan.narrowed_by:
        lines.append(f"  narrowed: {plan.narrowed_by}")
    if plan.fallback is not None:
        lines.append(f"  versioned: {plan.fallback.describe()} when the runtime test fails")
    if (note := runtime_extent_note(op)) is not None:
        lines.append(f"  {note}")
    lines += ["  " + x for x in thread_lines(op, plan, thread)]
    r = min(round_, plan.rounds - 1)
    first = min(warp, max(plan.threads // 32 - 1, 0)) * 32
    lanes = range(first, min(first + 32, plan.threads))
    addresses = [shared_offset(plan, t + r * plan.threads)[1] * plan.element_bytes
                 if t + r * plan.threads < plan.chunks else None for t in lanes]
    tile, bank_lines = banks_picture(addresses, plan.nbytes, first // 32, r)
    lines += ["  " + x for x in bank_lines]
    if plan.s.base.terms:
        lines.append("  (banks computed with the dynamic part of the S offset taken as 0)")
    return CopyPicture(tuple(lines), (region_tile(op, plan, thread), tile))
