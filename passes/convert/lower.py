"""Register ↔ register conversions: ``regcopy.copy`` whose two sides are ``local`` tiles.

``lower_conversions`` runs first in ``lower-reg-copy``. Each such copy is checked (every
thread of the scope active, one element type, regions of the same sizes that slice cleanly,
static offsets, thread axes inside the scope, the register budget), then planned
(``convert_plan.classify``) and lowered by its kind:

* renaming and warp shuffles: in place (``emit_convert.emit_shuffles``);
* shared round trip: a scratch ``shared.dyn`` tile with ``#regcopy.layout<auto>`` (so that
  ``choose-shared-layouts`` picks its layout from both copies: conflict-free on both sides
  where one exists, ld/stmatrix where they fit), one slice per scope group (a warp-scope
  conversion in a 4-warp CTA gets 4), and in place of the copy: ``R1 -> scratch``,
  ``gpu.barrier``, ``scratch -> R2``; a leading ``gpu.barrier`` only where an earlier use of
  the scratch may still be reading it (another round trip earlier in the function, or a loop
  around this one). The two copies are then lowered as any shared copy. Every scratch alloca
  carries ``{regcopy.scratch}``: the CUDA target places all of a kernel's scratch tiles at one
  offset (their lifetimes never overlap), so the kernel needs the largest, not the sum.

A copy's own ``{conversion = "auto" | "shuffle" | "shared"}`` takes the place of the pass
option ``conversion`` for that copy (one kernel may want shuffles where another module-wide
default suits the rest).

Remarks (``remarks``) state the kind, the instruction counts against the ideal and the scratch
bytes; a copy refused here is reported as the pass reports any refused copy.
"""

from __future__ import annotations

from collections.abc import Callable
from math import prod
from typing import cast

from regcopy_passes.convert.plan import ConvertError, ConvertPlan, Kind, classify
from regcopy_passes.core.dispatch import (
    Rejected,
    check_all_threads_active,
    check_r_layout,
    check_register_budget,
    check_valid_copy,
)
from regcopy_passes.convert.emit import emit_shuffles
from xdsl.dialects import arith, builtin, func, gpu, memref, scf
from xdsl.dialects.builtin import IndexType, MemRefType, UnitAttr
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from regcopy_dialect.attrs import LayoutAttr
from regcopy_dialect.layout import WARP, Scope, Sliced
from regcopy_dialect.regcopy import (
    CopyOp,
    ExecScope,
    MemSpace,
    MemSpaceAttr,
    buffer_layout,
    element_bits,
    memory_space,
)

WARP_BARRIER = "regcopy.warp"
"""On a ``gpu.barrier``: only the executing warp meets (``__syncwarp()``)."""

SCRATCH_ATTR = "regcopy.scratch"
"""On a ``shared.dyn`` alloca: a conversion's scratch tile (see the module doc)."""

Report = Callable[[CopyOp, str, str | None, tuple[str, ...]], None]
"""``report(op, message, reason, notes)``: a remark (``reason`` None) with notes, or a
refusal (``reason``, before ``op`` changes)."""


def is_conversion(op: Operation) -> bool:
    """A ``regcopy.copy`` between two ``local`` buffers."""
    return isinstance(op, CopyOp) and memory_space(op.src_type) == MemSpace.LOCAL and \
        memory_space(op.dst_type) == MemSpace.LOCAL


def plan_conversion(op: CopyOp, force: str = "auto") -> tuple[ConvertPlan, Sliced, Sliced,
                                                               int]:
    """Check and plan ``op``; ``Rejected`` with the reason. Returns the plan, both sliced
    layouts and the block size."""
    scope = op.scope.data.scope
    block = check_all_threads_active(op, scope)
    src, dst = check_valid_copy(op)
    for side, sliced, t in (("source", src, op.src_type), ("destination", dst, op.dst_type)):
        if not sliced.base.is_static:
            raise Rejected(f"the {side} region of a register tile has a dynamic offset; "
                           "register slots are fixed at compile time, so regions of a "
                           "conversion take constant offsets")
        try:
            check_r_layout(t, sliced, scope)
        except Rejected as e:
            raise Rejected(f"{side}: {e}") from None
        check_register_budget(t, buffer_layout(t).storage().span())
    bits = element_bits(op.src_type.element_type) or 0
    try:
        plan = classify(src, dst, scope.threads(block), bits, force,
                        (_span(op.src_type), _span(op.dst_type)))
    except ConvertError as e:
        raise Rejected(f"{e}; every element needs an owner among the scope's threads and "
                       "each (thread, register slot) one element") from None
    return plan, src, dst, block


def _span(t: MemRefType) -> int:
    return buffer_layout(t).storage().span()


def lower_conversions(module: builtin.ModuleOp, report: Report, force: str = "auto") -> None:
    """Lower every register ↔ register copy of ``module`` (module doc); ``report`` says what
    was done or why not."""
    for fn in [f for f in module.walk() if isinstance(f, func.FuncOp)]:
        planned: list[tuple[CopyOp, ConvertPlan, int]] = []
        for op in [o for o in fn.walk() if is_conversion(o)]:
            copy = cast(CopyOp, op)
            try:
                plan, _, _, block = plan_conversion(copy, copy.conversion or force)
            except Rejected as e:
                report(copy, "", str(e), ())
                continue
            planned.append((copy, plan, block))
        trips = sum(plan.kind is Kind.SHARED for _, plan, _ in planned)
        scratch_seen = False
        for copy, plan, block in planned:
            chosen = () if copy.conversion is None else (
                f'chosen by the copy\'s {{conversion = "{copy.conversion}"}}',)
            if plan.kind is Kind.SHARED:
                barriers = _barriers(copy, scratch_seen, only=trips == 1)
                message = (f"{plan.describe()} through a {_scratch_bytes(copy, block)}-byte "
                           f"shared.dyn scratch tile, {len(barriers)} "
                           f"barrier{'s' if len(barriers) > 1 else ''} "
                           f"({', '.join(barriers)})")
                why = () if copy.conversion == "shared" else plan.why_not
                report(copy, message, None, (*(f"not shuffled: {w}" for w in why), *chosen))
                _round_trip(copy, fn, block, barriers)
                scratch_seen = True
                continue
            assert plan.shuffle is not None
            lanes = WARP if copy.scope.data.scope is not Scope.THREAD else 1
            ops = emit_shuffles(copy.src, copy.dst, plan.shuffle, lanes)
            Rewriter.replace_op(copy, ops, [])
            report(copy, plan.describe(), None, (*plan.why_not, *chosen))


def _barriers(op: CopyOp, scratch_seen: bool, only: bool) -> list[str]:
    """The round trip's barriers, ``warp`` (``__syncwarp``) or ``CTA``: the one between its
    two copies, after a leading one where an earlier use of the scratch may still read it.
    A warp-scope conversion's warp touches only its own slice, so its middle barrier is the
    warp's; its leading one too when it is the function's only round trip (it then follows
    only itself, in a loop: the same slices), else the CTA's (another conversion's tile,
    at the same offset, may overlap other warps' slices)."""
    warp = op.scope.data.scope is Scope.WARP
    out = ["warp" if warp else "CTA"]
    if scratch_seen or _in_loop(op):
        out.insert(0, "warp" if warp and only else "CTA")
    return out


def _in_loop(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        if isinstance(parent, scf.ForOp | scf.WhileOp):
            return True
        parent = parent.parent_op()
    return False


def _scratch_shape(op: CopyOp, block: int) -> tuple[int, list[int], list[int]]:
    """``(groups, tile shape, scratch shape)``: one tile of the region's non-unit sizes per
    scope group of the CTA."""
    scope = op.scope.data.scope
    shape = [z for z in op.region("src")[1] if z != 1] or [1]
    groups = block // scope.threads(block)
    return groups, shape, ([groups, *shape] if groups > 1 else shape)


def _scratch_bytes(op: CopyOp, block: int) -> int:
    bits = element_bits(op.src_type.element_type) or 8
    return prod(_scratch_shape(op, block)[2]) * bits // 8


def _barrier(kind: str) -> gpu.BarrierOp:
    """``gpu.barrier``; ``{regcopy.warp}`` on it for a warp-level one (``__syncwarp()``:
    dropping the attribute leaves a CTA barrier, always correct)."""
    op = gpu.BarrierOp()
    if kind == "warp":
        op.attributes[WARP_BARRIER] = UnitAttr()
    return op


def _round_trip(op: CopyOp, fn: func.FuncOp, block: int, barriers: list[str]) -> None:
    """Replace ``op`` by ``R1 -> scratch``, barrier, ``scratch -> R2`` (module doc)."""
    scope = op.scope.data.scope
    src_offsets, src_sizes = op.region("src")
    dst_offsets, dst_sizes = op.region("dst")
    groups, shape, full = _scratch_shape(op, block)
    t = MemRefType(op.src_type.element_type, full, LayoutAttr.auto(),
                   MemSpaceAttr(MemSpace.SHARED_DYN))
    alloca = memref.AllocaOp.get(t.element_type, shape=full, layout=t.layout,
                                 memory_space=t.memory_space)
    alloca.attributes[SCRATCH_ATTR] = UnitAttr()
    alloca.memref.name_hint = "scratch"
    entry = fn.body.blocks[0]
    Rewriter.insert_op(alloca, InsertPoint.at_start(entry))
    before: list[Operation] = []
    region: tuple[list[int | SSAValue], list[int]] | None = None
    if groups > 1:
        tid = gpu.ThreadIdOp(gpu.DimensionAttr(gpu.DimensionEnum.X))
        size = arith.ConstantOp.from_int_and_width(scope.threads(block), IndexType())
        group = arith.DivUIOp(tid, size)
        before += [tid, size, group]
        region = ([group.result, *[0] * len(shape)], [1, *shape])
    if len(barriers) > 1:
        before.append(_barrier(barriers[0]))
    scope_enum = ExecScope(op.scope.data.value)
    store = CopyOp(scope_enum, op.src, alloca.memref, (src_offsets, src_sizes), region)
    load = CopyOp(scope_enum, alloca.memref, op.dst, region, (dst_offsets, dst_sizes))
    new = [*before, store, _barrier(barriers[-1]), load]
    for n in (*new, alloca):
        n.location = op.location  # diagnostics of the new copies point at the conversion
    Rewriter.replace_op(op, new, [])
