"""``choose-shared-layouts``: a physical layout for every ``#regcopy.layout<auto>`` buffer.

For each ``shared`` / ``shared.dyn`` alloca whose layout is ``auto``, every ``regcopy.copy``
that reads or writes it is planned as ``lower-reg-copy`` plans it (``plan_for``, lane
rotation off) on the row-major layout. The lanes of each lane group of each copy's shared
transfers (the per-thread rounds, or the ld/stmatrix rows where those are the wider
transfer) give the XOR differences a swizzle must keep apart (``layout_search``), from which
``solve_bases`` constructs XOR bases. The candidates (row-major, the constructed swizzle,
padded pitches) are then each planned again for every copy and ranked by ``rank_key``:
widest transfers, fewest wavefronts (the bank model, ``banks``), fewest instructions, least
memory. The winner replaces ``auto`` in the alloca's type (every use sees it); with
``remarks``, a remark on the alloca says what was chosen and, per copy, its wavefronts
against the ideal. ``lower-reg-copy`` runs this first when the module has an ``auto``.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from dataclasses import dataclass

from regcopy_passes.core.banks import (
    WARP,
    lane_bases,
    lane_groups,
    modelled_warps,
    round_s_deltas,
)
from regcopy_passes.core.dispatch import Rejected
from regcopy_passes.shared_layouts.search import (
    Constraint,
    CopyScore,
    as_swizzle,
    constraints,
    padded_pitches,
    rank_key,
    row_major,
    solve_bases,
)
from regcopy_passes.reg_copy.matrix_plan import ROW_BYTES, MatrixTransfer, plan_matrix
from regcopy_passes.core.options import parse_options
from regcopy_passes.reg_copy.plan import plan_for
from regcopy_passes.reg_copy.transfer import LoweringPlan
from xdsl.context import Context
from xdsl.dialects import builtin, memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ArgSpec

from regcopy_dialect.attrs import LayoutAttr
from regcopy_dialect.buffers import memory_space
from regcopy_dialect.diagnostics import Diagnostic, copy_labels, emit, op_location
from regcopy_dialect.element_types import element_bits
from regcopy_dialect.layout import Layout
from regcopy_dialect.regcopy import CopyOp, MemSpace

__all__ = ["ChooseSharedLayoutsPass", "choose_layouts", "has_auto_layout"]


def _is_auto(t: object) -> bool:
    return isinstance(t, MemRefType) and isinstance(t.layout, LayoutAttr) and t.layout.is_auto


def has_auto_layout(module: builtin.ModuleOp) -> bool:
    """Whether any alloca of ``module`` asks for ``#regcopy.layout<auto>``."""
    return any(isinstance(op, memref.AllocaOp) and _is_auto(op.memref.type)
               for op in module.walk())


def _with_layout(t: MemRefType, layout: Layout) -> MemRefType:
    return MemRefType(t.element_type, t.get_shape(), LayoutAttr.from_layout(layout),
                      t.memory_space)


CHOSEN: weakref.WeakSet[SSAValue] = weakref.WeakSet()
"""The buffers whose layout ``choose_layouts`` chose (their ``auto`` replaced in place): notes
about how a layout is *written* (the swizzle parameter order) are not for them."""


def chosen_by_compiler(value: SSAValue) -> bool:
    """Whether ``value``'s layout was chosen by ``choose_layouts`` (not written by the user)."""
    return value in CHOSEN


def _set_type(value: SSAValue, t: MemRefType) -> None:
    value._type = t


def _plan(op: CopyOp) -> LoweringPlan | None:
    try:
        return plan_for(op, rotate=False)
    except Rejected:
        return None


def _score(lp: LoweringPlan | None) -> CopyScore | None:
    if lp is None:
        return None
    t = lp.transfer
    report = t.bank_report(lp.copy)
    if isinstance(t, MatrixTransfer):
        name = "/".join(sorted({t.mnemonic(op.count) for op in t.ops}, reverse=True))
        return CopyScore(128, report.wavefronts, report.ideal, t.instructions, name)
    return CopyScore(t.bits, report.wavefronts, report.ideal, t.instructions,
                     f"vec {t.n} × {t.element_type} ({t.bits} bits)")


def _lane_groups(lp: LoweringPlan, element_bytes: int) -> Iterator[tuple[list[int], int]]:
    """``(element offsets of one lane group, access bytes)`` for the copy's widest transfer
    on the unswizzled layout: the ld/stmatrix rows when they apply with fewer
    instructions, else the per-thread rounds (``banks``' addresses, without the swizzle)."""
    plan = lp.copy
    vec_bits = plan.n * element_bytes * 8
    matrix = None if vec_bits >= 128 else plan_matrix(lp.acc, plan, True)
    if isinstance(matrix, MatrixTransfer) and matrix.instructions < plan.rounds:
        for warp in range(max(1, matrix.threads // WARP)):
            for mop in matrix.ops:
                rows = [plan.s_base.const + mop.address(WARP * warp + lane)
                        for lane in range(8 * mop.count)]
                for g in range(0, len(rows), 8):
                    yield rows[g:g + 8], ROW_BYTES
        return
    access = plan.n * element_bytes
    group = lane_groups(access)
    deltas = round_s_deltas(plan.outer)
    for w in modelled_warps(plan):
        bases = lane_bases(plan, w)
        for f in range(plan.rounds):
            offs = [None if b is None else b + deltas[f] for b in bases]
            for g in range(0, WARP, group):
                yield [o for o in offs[g:g + group] if o is not None], access


@dataclass(frozen=True)
class Choice:
    """The layout chosen for one buffer and each copy's score under it."""

    layout: Layout
    scores: tuple[CopyScore | None, ...]
    note: str


def choose_layout(value: SSAValue, copies: list[CopyOp]) -> Choice:
    """The best candidate layout for the auto buffer ``value`` (see the module doc)."""
    t = value.type
    assert isinstance(t, MemRefType)
    shape = tuple(t.get_shape())
    eb = (element_bits(t.element_type) or 8) // 8
    plain = row_major(shape)
    if not copies:
        return Choice(plain, (), "no copy reads or writes it: row-major")

    def evaluate(layout: Layout) -> tuple[CopyScore | None, ...]:
        _set_type(value, _with_layout(t, layout))
        return tuple(_score(_plan(op)) for op in copies)

    cands: dict[Layout, tuple[CopyScore | None, ...]] = {plain: evaluate(plain)}
    _set_type(value, _with_layout(t, plain))
    cons: set[Constraint] = set()
    widest = 4
    for op in copies:
        if (lp := _plan(op)) is None:
            continue
        for offsets, access in _lane_groups(lp, eb):
            widest = max(widest, access)
            cons |= constraints([offsets], access)
    bases, _ = solve_bases(cons, eb, widest)
    if (sw := as_swizzle(bases)) is not None:
        layout = row_major(shape, swizzle=sw)
        cands[layout] = evaluate(layout)
    for pad in padded_pitches(shape, eb):
        layout = row_major(shape, pad)
        cands[layout] = evaluate(layout)
    best = min(cands, key=lambda lay: rank_key(cands[lay], lay.span(), lay))
    _set_type(value, t)
    how = ("XOR bases constructed from the lanes' address bits" if best.swizzle is not None
           else "padded pitch" if best != plain else "row-major")
    return Choice(best, cands[best], f"{len(cands)} candidates; {how}")


def choose_layouts(module: builtin.ModuleOp, remarks: bool = False) -> None:
    """Replace every ``#regcopy.layout<auto>`` alloca's layout by its chosen one."""
    labels = copy_labels(module)
    order = {c: k for k, c in enumerate(labels)}
    for op in list(module.walk()):
        if not isinstance(op, memref.AllocaOp) or not _is_auto(op.memref.type):
            continue
        value = op.memref
        t = value.type
        assert isinstance(t, MemRefType)
        if memory_space(t) not in (MemSpace.SHARED, MemSpace.SHARED_DYN):
            continue  # the verifier rejects it
        copies = sorted({u.operation for u in value.uses if isinstance(u.operation, CopyOp)},
                        key=lambda c: order.get(c, len(order)))
        choice = choose_layout(value, copies)
        _set_type(value, _with_layout(t, choice.layout))
        CHOSEN.add(value)
        if remarks:
            emit(_remark(op, choice, [labels.get(c, "copy") for c in copies]))


def _remark(op: memref.AllocaOp, choice: Choice, labels: list[str]) -> Diagnostic:
    notes = [choice.note]
    for label, score in zip(labels, choice.scores, strict=True):
        notes.append(f"{label}: " + ("not counted (lower-reg-copy does not lower it)"
                                     if score is None else score.describe()))
    name = op.memref.name_hint
    return Diagnostic("remark", f"layout chosen: #regcopy.layout<{choice.layout}>",
                      f"alloca %{name}" if name else "alloca", op_location(op), tuple(notes))


@dataclass(frozen=True)
class ChooseSharedLayoutsPass(ModulePass):
    """Choose the physical layout of every ``#regcopy.layout<auto>`` shared buffer.

    Options: ``remarks`` (default false): one remark per buffer on stderr."""

    name = "choose-shared-layouts"

    remarks: bool = False

    @classmethod
    def from_spec(cls, spec: ArgSpec) -> ChooseSharedLayoutsPass:
        """``-p`` options: dashes or underscores, bare booleans (as ``lower-reg-copy``)."""
        if spec.name != cls.name:
            return super().from_spec(spec)
        return cls(**parse_options(cls, spec.parameters, {}))

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        choose_layouts(op, self.remarks)
