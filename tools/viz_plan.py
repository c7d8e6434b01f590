"""Pictures of a copy's plan (for ``regcopy-viz``): which round moves each element, one
thread's transfers, and the shared-memory bank groups of one warp's transfer.

The plan is the pass's own (``dispatch.accept`` + ``planning.plan_copy``), so the picture is
what ``lower-reg-copy`` emits for the copy, before any lane rotation.
"""

from __future__ import annotations

from dataclasses import dataclass

from regcopy_passes.core.banks import WARP, bank_groups, instruction_wavefronts, lane_groups
from regcopy_passes.core.dispatch import Accepted, Rejected
from regcopy_passes.convert.lower import is_conversion, plan_conversion
from regcopy_passes.lower_reg_copy import plan_for
from regcopy_passes.core.planning import CopyPlan, round_deltas
from regcopy_passes.reg_copy.transfer import VectorTransfer
from xdsl.dialects.builtin import MemRefType

from regcopy_dialect.async_ops import CopyAsyncOp
from regcopy_dialect.diagnostics import op_text
from regcopy_dialect.layout import Layout, Scope, fuse_thread_axes
from regcopy_dialect.regcopy import CopyOp, MemSpace, element_bits, memory_space
from regcopy_dialect.viz import Tile, grid_shape


@dataclass(frozen=True)
class CopyPicture:
    """What ``regcopy-viz`` shows for one copy: summary lines and tiles."""

    lines: tuple[str, ...]
    tiles: tuple[Tile, ...]


def _scope_owner(layout: Layout, scope: Scope, index: int) -> tuple[int, int]:
    fused = fuse_thread_axes(layout, scope)
    axes, slot = fused.apply(index)
    return (axes.get(scope.fused_axis, 0) if scope.fused_axis else 0), slot


def s_offset(plan: CopyPlan, t: int, f: int) -> tuple[int, int]:
    """Thread ``t``'s S offset in round ``f`` (static part), before and after the swizzle."""
    off = plan.s_base.const + plan.thread_share(t)[0] + round_deltas(plan.outer, f)[0]
    return off, plan.swizzle.apply(off) if plan.swizzle else off


def r_offset(plan: CopyPlan, f: int) -> int:
    return plan.r_base.const + round_deltas(plan.outer, f)[1]


def round_tile(op: CopyOp, acc: Accepted, plan: CopyPlan, thread: int) -> Tile:
    """The R region, each element labelled ``owner thread/round`` and coloured by round;
    ``thread``'s elements framed (``*`` in text)."""
    side = "dst" if acc.r_is_dst else "src"
    sizes = [z for z in op.region(side)[1] if z != 1] or [1]
    rows, cols = grid_shape(sizes)
    round_of = {}
    for f in range(plan.rounds):
        for k in range(plan.n):
            round_of[r_offset(plan, f) + k] = f
    labels, keys, marked = [], [], set()
    for index in range(acc.r.layout.size):
        t, slot = _scope_owner(acc.r.layout, acc.scope, index)
        moved_in = round_of.get(acc.r.base.const + slot)
        labels.append(f"{t}/{'?' if moved_in is None else moved_in}")
        keys.append(moved_in)
        if t == thread:
            marked.add(divmod(index, cols))
    return Tile(f"R region {'x'.join(map(str, sizes))}: which round moves each element",
                f"cell = owner thread/round; colour = round; framed (*) = thread {thread}",
                tuple(tuple(labels[r * cols:(r + 1) * cols]) for r in range(rows)),
                tuple(tuple(keys[r * cols:(r + 1) * cols]) for r in range(rows)),
                tuple(map(str, range(rows))), tuple(map(str, range(cols))), frozenset(marked))


def thread_lines(acc: Accepted, plan: CopyPlan, thread: int, max_rounds: int = 16) -> list[str]:
    """``thread``'s transfers, one line a round (S offsets swizzled where S is)."""
    _, owns = plan.thread_share(thread)
    if not owns:
        return [f"thread {thread} owns nothing in this copy (guarded out)"]
    dyn = " + dynamic offset" if plan.s_base.terms else ""
    arrow = "->" if acc.r_is_dst else "<-"
    out = [f"thread {thread}:"]
    for f in range(min(plan.rounds, max_rounds)):
        raw, phys = s_offset(plan, thread, f)
        sw = f" (swizzled {phys})" if plan.swizzle else ""
        r = r_offset(plan, f)
        out.append(f"  round {f}: S[{raw} .. {raw + plan.n}){dyn}{sw} {arrow} "
                   f"R[{r} .. {r + plan.n})")
    if plan.rounds > max_rounds:
        out.append(f"  ... {plan.rounds - max_rounds} more rounds")
    return out


def bank_tile(acc: Accepted, plan: CopyPlan, warp: int, f: int) -> tuple[Tile, list[str]]:
    """The 32 banks for each group of lanes served together (8 lanes for 128-bit accesses,
    16 for 64-bit, 32 otherwise) in round ``f`` of warp ``warp`` (``banks_picture``)."""
    nbytes = plan.n * acc.element_bits // 8
    lanes = range(WARP * warp, WARP * warp + WARP) if acc.scope is not Scope.THREAD else range(1)
    addresses = [s_offset(plan, t, f)[1] * acc.element_bits // 8
                 if t < acc.threads and plan.thread_share(t)[1] else None for t in lanes]
    return banks_picture(addresses, nbytes, warp, f)


def banks_picture(addresses: list[int | None], nbytes: int, warp: int, f: int
                  ) -> tuple[Tile, list[str]]:
    """The bank groups of one warp's accesses of ``nbytes`` each (byte ``addresses`` per lane,
    None for a lane that makes none) in round ``f``: each cell counts the distinct 4-byte
    words the group touches in that bank (more than 1 = a bank conflict). The counts,
    wavefronts and ideal are the pass's bank model (``banks.bank_groups``)."""
    groups = bank_groups(addresses, nbytes)
    labels, keys, names, summary = [], [], [], []
    for g in groups:
        names.append(f"{g.first_lane}-{g.first_lane + g.lanes - 1}")
        labels.append(tuple(str(c) if c else "." for c in g.words_per_bank))
        keys.append(tuple(c if c else None for c in g.words_per_bank))
        summary.append(f"  lanes {names[-1]}: {g.wavefronts} wavefront"
                       f"{'' if g.wavefronts == 1 else 's'}, ideal {g.ideal}")
    total, ideal = instruction_wavefronts(addresses, nbytes)
    verdict = "no bank conflict" if total <= ideal else f"{total / max(ideal, 1):g}-way bank conflict"
    head = (f"bank groups of warp {warp}, round {f} ({nbytes * 8}-bit accesses, "
            f"{lane_groups(nbytes)} lanes served together): {total} wavefronts, ideal {ideal}: "
            f"{verdict}")
    tile = Tile(head, "row = lanes served together; column = bank; cell = distinct 4-byte "
                "words touched in that bank",
                tuple(labels), tuple(keys), tuple(names), tuple(map(str, range(32))))
    return tile, [head, *summary]


def runtime_extent_note(op: CopyOp | CopyAsyncOp) -> str | None:
    """For a copy with a dynamic global side: the drawing's concrete shape is the copy's
    region (as if wholly inside the runtime extents); None for static copies."""
    for name, value in (("source", op.src), ("destination", op.dst)):
        t = value.type
        if isinstance(t, MemRefType) and any(d < 0 for d in t.get_shape()):
            hint = f"%{value.name_hint}" if value.name_hint else name
            landing = ("shared memory gets zeros" if isinstance(op, CopyAsyncOp)
                       else "the registers get the padding")
            return (f"runtime extents: {name} {hint} is {t}; drawn on the copy's region as if "
                    "inside the extents (at run time, elements outside them are "
                    + (f"not read: {landing})" if name == "source" else "not written)"))
    return None


def copy_picture(op: CopyOp, index: int, thread: int = 0, warp: int = 0, round_: int = 0,
                 max_vector_bits: int = 128) -> CopyPicture:
    """Everything ``regcopy-viz`` shows for the ``index``-th copy of a file."""
    head = f"copy #{index}: {op_text(op)}"
    if is_conversion(op):  # register <-> register: the conversion's plan, no transfer picture
        try:
            conversion = plan_conversion(op)[0].describe()
        except Rejected as reason:
            return CopyPicture((head, f"  not lowered by lower-reg-copy: {reason}"), ())
        return CopyPicture((head, f"  plan: {conversion}"), ())
    try:
        lp = plan_for(op, max_vector_bits)  # exactly the pass's plan
        acc, plan, shared = lp.acc, lp.copy, lp.shared
    except Rejected as reason:
        return CopyPicture((head, f"  not lowered by lower-reg-copy: {reason}"), ())
    bits = plan.n * acc.element_bits
    s_space = memory_space(op.src_type if acc.r_is_dst else op.dst_type)
    lines = [head,
             f"  plan: vec {plan.n} x {acc.element_bits}-bit ({bits} bits), {plan.rounds} "
             f"round(s), {acc.describe_registers()}, {acc.threads} threads in the "
             f"{acc.scope.name.lower()}" + (", guarded" if plan.guarded else ""),
             f"  direction: {'S -> R' if acc.r_is_dst else 'R -> S'}, S is {s_space}"]
    lines.append(f"  transfer: {lp.transfer.describe()}")
    lines += [f"  {note}" for note in lp.passed_over]
    if plan.narrowed_by:
        lines.append(f"  narrowed: {plan.narrowed_by}")
    if not isinstance(lp.transfer, VectorTransfer):
        lines.append("  (the pictures below show the per-thread plan the matrix transfer "
                     "replaces: the same elements in the same registers)")
    if (note := runtime_extent_note(op)) is not None:
        lines.append(f"  {note}")
    lines += ["  " + x for x in thread_lines(acc, plan, thread)]
    tiles = [round_tile(op, acc, plan, thread)]
    if s_space in (MemSpace.SHARED, MemSpace.SHARED_DYN) and element_bits(op.src_type.element_type):
        f = min(round_, plan.rounds - 1)
        tile, bank_lines = bank_tile(acc, plan, min(warp, max(acc.threads // WARP - 1, 0)), f)
        tiles.append(tile)
        lines += ["  " + x for x in bank_lines]
        if plan.s_base.terms:
            lines.append("  (banks computed with the dynamic part of the S offset taken as 0)")
        if shared.note is not None:
            lines.append(f"  bank model: {shared.note}")
    return CopyPicture(tuple(lines), tuple(tiles))
