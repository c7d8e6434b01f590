"""The plan of an accepted copy on a dynamic global buffer (``bounds``), from the IR: the
extents' and offsets' divisors, the stand-in plan at each width cap, the paths, the checked
dims, the padding, and the notes the remark prints."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace

from regcopy_passes.core.bounds import (
    BoundedPath,
    BoundedTransfer,
    Extents,
    bounded_key,
    choose_paths,
    describe_paths,
    narrowing,
    project,
    tail_width,
)
from regcopy_passes.core.dispatch import Accepted
from regcopy_passes.core.divisibility import describe_value, divisibility
from regcopy_passes.reg_copy.misaligned_cost import (
    STAGE_SCRATCH_BYTES,
    MisalignedChoice,
    MisalignedTile,
    choose_misaligned_form,
)
from regcopy_passes.core.planning import CopyPlan, plan_copy
from regcopy_passes.reg_copy.shared_plan import SharedPlan
from regcopy_passes.reg_copy.short_rows import with_short_rows
from regcopy_passes.reg_copy.staging_budget import KernelShared, kernel_shared
from regcopy_passes.reg_copy.transfer import LoweringPlan
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import SSAValue

from regcopy_dialect.buffers import is_dynamic
from regcopy_dialect.layout import Scope
from regcopy_dialect.promises import extent_divisibility
from regcopy_dialect.regcopy import CopyOp
from regcopy_dialect.strided import is_strided, stride_divisibility


def dynamic_side(op: CopyOp) -> str | None:
    """``"src"``/``"dst"``: the side whose buffer has runtime extents, None for none."""
    for side, t in (("src", op.src_type), ("dst", op.dst_type)):
        if is_dynamic(t):
            return side
    return None


def extents_of(op: CopyOp, side: str) -> Extents:
    """What the pass knows of ``side``'s dynamic buffer and region."""
    buf = op.src if side == "src" else op.dst
    t = buf.type
    assert isinstance(t, MemRefType)
    offsets, sizes = op.region(side)
    offsets_div = tuple(abs(o) if isinstance(o, int) else divisibility(o) for o in offsets)
    names = tuple(str(o) if isinstance(o, int) else describe_value(o) for o in offsets)
    strides = None if not is_strided(t) else \
        tuple(stride_divisibility(buf, i) for i in range(len(sizes)))
    return Extents(tuple(t.get_shape()), tuple(extent_divisibility(buf, i)
                                                for i in range(len(sizes))),
                   offsets_div, tuple(sizes), str(describe_value(buf)), strides, names)


def bounds_key(op: CopyOp) -> Hashable:
    """What the bounded plan reads beyond ``plan_key``'s types and regions: the extents' and
    offsets' divisors, the buffer's name, ``{in_bounds}``, the padding, and the kernel's
    shared bytes (``staging_budget``: whether the staged form's slices fit). None for static
    copies (their plan reads none of these)."""
    side = dynamic_side(op)
    if side is None:
        return None
    return bounded_key(extents_of(op, side), op.in_bounds, op.padding), kernel_shared(op)


def warp_rows(plan: CopyPlan, sizes: tuple[int, ...]) -> tuple[int, int]:
    """``(rows, lanes)``: how many distinct rows (coordinates on every dim but the innermost)
    the first warp's lanes that own data hold in one round of ``plan``, and how many lanes
    own data."""
    rows: set[tuple[int, ...]] = set()
    lanes = 0
    dims = [project(plan, sizes, i) for i in range(len(sizes) - 1)]
    for t in range(min(32, plan.threads)):
        if not plan.thread_share(t)[1]:
            continue
        lanes += 1
        rows.add(tuple(d.thread_share(t)[0] for d in dims))
    return max(1, len(rows)), max(1, lanes)


def row_group(plan: CopyPlan, sizes: tuple[int, ...]) -> int:
    """The largest ``L`` (a power of two, 2 to 32; 0 for none) such that in every round of
    ``plan`` the scope's threads form groups of ``L`` consecutive lanes ``t0 + j`` (``t0`` a
    multiple of ``L``) holding one row's consecutive vectors: thread ``t0 + j``'s coordinates
    equal ``t0``'s on every dim but the innermost, and ``t0``'s plus ``n j`` on the innermost.
    0 where some threads own nothing (``plan.guarded``) or the scope is not whole warps."""
    if plan.guarded or plan.threads % 32:
        return 0
    dims = [project(plan, sizes, i) for i in range(len(sizes))]
    share = [tuple(d.thread_share(t)[0] for d in dims) for t in range(plan.threads)]
    best = 0
    group = 2
    while group <= 32:
        for t, (*rows, col) in enumerate(share):
            *rows0, col0 = share[t & ~(group - 1)]
            if rows != rows0 or col != col0 + plan.n * (t & (group - 1)):
                return best
        best, group = group, group * 2
    return best


def staging_refusal(plan: CopyPlan, scope: Scope, lanes: int, element_bits: int,
                    granule: int, shared: KernelShared | None = None,
                    element_type: str = "") -> str | None:
    """Why the staged form cannot move ``plan`` (None: it can): it needs a CTA-wide copy of
    whole warps, every lane owning a vector each round, ``n / granule`` transfers dividing a
    warp's 32, the slices (the CTA's registers of the copy) within ``STAGE_SCRATCH_BYTES``,
    and room for them beside the kernel's ``shared`` bytes (``KernelShared.refusal``)."""
    if scope is not Scope.CTA:
        return f"a {scope.name.lower()}-scope copy"
    if plan.guarded or lanes < 32 or plan.threads % 32:
        return "some lanes own no data"
    if 32 % (plan.n // granule):
        return f"{plan.n // granule} transfers a vector do not divide a warp"
    scratch = plan.threads * plan.rounds * plan.n * element_bits // 8
    if scratch > STAGE_SCRATCH_BYTES:
        return f"its slices would take {scratch} bytes of shared memory, over {STAGE_SCRATCH_BYTES}"
    if shared is not None:
        return shared.refusal((element_type, plan.threads * plan.rounds * plan.n), scratch)
    return None


def misaligned_tile(plan: CopyPlan, sizes: tuple[int, ...], element_bits: int, granule: int,
                    tail: int, reads: bool = False, scope: Scope = Scope.WARP,
                    shared: KernelShared | None = None, element_type: str = ""
                    ) -> MisalignedTile:
    """The cost model's view of a copy's wide ``plan`` (``misaligned_cost``), in a kernel
    with ``shared`` bytes (None: unknown, not checked)."""
    rows, lanes = warp_rows(plan, sizes)
    staging = staging_refusal(plan, scope, lanes, element_bits, granule, shared, element_type)
    whole = sizes[-1] if lanes // rows * plan.n == sizes[-1] and lanes % rows == 0 else 0
    return MisalignedTile(plan.n, rows, element_bits, granule, tail, lanes, reads, staging,
                          whole, 0 if reads else row_group(plan, sizes))


def plan_bounded(op: CopyOp, acc: Accepted, max_vector_bits: int,
                 misaligned: str = "auto") -> LoweringPlan:
    """The copy's paths on the stand-in (``bounds.choose_paths``), as a ``LoweringPlan``
    whose transfer is a ``BoundedTransfer`` and whose plan is the first path's. A write whose
    vectors may start misaligned stores them in the form ``misaligned_cost`` picks (or
    ``misaligned``, when it names one; under ``auto``, the copy's own
    ``{misaligned_stores}`` where it names one); a read's are loaded in the form the model picks
    (staged only under ``auto`` or ``staged``)."""
    side = dynamic_side(op)
    assert side is not None
    ext = extents_of(op, side)
    syms = [s for s, _ in acc.r.base.terms]
    divisors = {s: divisibility(s) for s in syms if isinstance(s, SSAValue)}
    names: dict[Hashable, str] = {s: describe_value(s) for s in syms if isinstance(s, SSAValue)}

    def plan_at(bits: int) -> CopyPlan:
        return plan_copy(acc.partition, acc.r.base, acc.s.base, acc.element_bits, bits,
                         divisors, names)

    choices: list[MisalignedChoice] = []
    shared = kernel_shared(op)
    own = misaligned == "auto" and op.misaligned_stores not in (None, "auto")
    form = (op.misaligned_stores or "auto") if own else misaligned

    def realign(wide: CopyPlan, granule: int, tail: int, writes: bool) -> str:
        tile = misaligned_tile(wide, ext.sizes, acc.element_bits, granule, tail, not writes,
                               acc.scope, shared, str(acc.element_type))
        choice = choose_misaligned_form(tile, form)
        if own and choice.forced:
            choice = replace(choice, asked="the copy's misaligned_stores")
        choices.append(with_short_rows(choice))
        return choices[-1].form

    paths = choose_paths(plan_at, ext, acc.element_bits, max_vector_bits,
                         writes=not acc.r_is_dst, realign=realign)
    if len(paths) == 2 and paths[1].staged and choices and choices[-1].short:
        g = paths[1].staged  # rows shorter than ``short``: the proven plan, predicated
        paths = (paths[0], replace(paths[1], short=choices[-1].short),
                 BoundedPath(plan_at(g * acc.element_bits), tail_width(ext, g, ())))
    checked = () if op.in_bounds else tuple(i for i in range(ext.rank) if ext.dynamic(i))
    note = choices[-1].describe(acc.element_type) if choices else None
    widest = plan_at(max_vector_bits).n
    narrowed = narrowing(ext, widest, acc.element_bits) if paths[0].plan.n < widest else None
    transfer = BoundedTransfer(paths, acc.element_bits, acc.element_type, checked, op.padding,
                               note, narrowed, acc.r_is_dst)
    notes = describe_paths(ext, transfer)
    return LoweringPlan(acc, paths[0].plan, SharedPlan(), transfer,  # type: ignore[arg-type]
                        notes)
