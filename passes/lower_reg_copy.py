"""``lower-reg-copy``: the register-copy dispatch as an xDSL pass.

Every ``regcopy.copy`` that ``dispatch.accept`` takes is planned (``reg_copy.plan.plan_for``:
per-thread plan, shared-memory bank model and lane rotation, transfer kind) and becomes, in place
(``emit_copy``): hoisted thread-index and base-offset math, ``regcopy.storage`` views of both
buffers, an optional ``scf.if`` guarding out threads that own nothing, then the transfer's
own ops: one ``scf.for`` over the rounds (omitted for one round, unrolled when lane-rotated)
moving ``vector<n x T>`` with ``vector.load`` + ``vector.store``, or ``regcopy.ldmatrix`` /
``regcopy.stmatrix``. Copies alike in every input of the plan are planned once per run.
Rejected copies stay as they are, each reported once: an error under ``strict``, a remark
under ``remarks``, else a warning (unless ``warn-unlowered=false``).
"""

from __future__ import annotations

import gc
from collections.abc import Hashable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from regcopy_passes.core.banks import FMA_SWAP_SHARE, SELECT_WEIGHT
from regcopy_passes.core.dispatch import Rejected, check_all_threads_active
from regcopy_passes.async_copy.emit import async_label, lower_async_ops
from regcopy_passes.reg_copy.emit import emit_copy
from regcopy_passes.reg_copy.emit_staged import merge_staging
from regcopy_passes.shared_layouts.choose import choose_layouts, has_auto_layout
from regcopy_passes.tma.emit import lower_tma_ops
from regcopy_passes.convert.lower import is_conversion, lower_conversions
from regcopy_passes.mma.lower import lower_mma_ops
from regcopy_passes.mma.wgmma import (
    assign_wgmma_layouts,
    lower_wgmma_ops,
    wgmma_fences,
)
from regcopy_passes.reg_copy.matrix_plan import MatrixTransfer
from regcopy_passes.core.options import OptionSpec, PassOptionError, option_specs, parse_options
from regcopy_passes.reg_copy.plan import plan_for
from regcopy_passes.reg_copy.plan_bounds import bounds_key
from regcopy_passes.reg_copy.transfer import LoweringPlan, VectorTransfer
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.utils.arg_spec import ArgSpec
from xdsl.utils.exceptions import PassFailedException

from regcopy_dialect.async_ops import CopyAsyncOp
from regcopy_dialect.buffers import buffer_layout, is_dynamic
from regcopy_dialect.diagnostics import (
    Diagnostic,
    Severity,
    copy_label,
    copy_labels,
    emit,
    inherit_location,
    op_error,
    op_location,
    split_clauses,
)
from regcopy_dialect.regcopy import CONVERSIONS, MISALIGNED_STORES, CopyOp
from regcopy_dialect.swizzle_syntax import cute_order_note

VECTOR_BITS = (8, 16, 32, 64, 128)
CHOICES: dict[str, tuple[object, ...]] = {
    "max_vector_bits": VECTOR_BITS,
    "bank_rotation": ("auto", "off"),
    "transfer": ("auto", "vector", "matrix", "tma"),
    "conversion": CONVERSIONS,
    "misaligned_stores": MISALIGNED_STORES,
}
__all__ = ["LowerRegCopyPass", "LowerRegCopyPattern", "PassOptionError"]


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Python's cycle collector off for the duration (restored after, as it was). The pass
    only adds objects, and each full collection walks every live one: with it on, the cost
    per copy grew with the module's size (1.5x from 200 to 2,000 copies)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def plan_key(op: CopyOp, block: int) -> Hashable:
    """Everything ``plan_for`` reads from ``op`` besides the checks of its place in the IR:
    exec scope, block size, both buffer types and regions (dynamic offsets by SSA value, whose
    divisibility and name are then the same); for a dynamic buffer, ``bounds_key`` (its
    extents' divisors, its name, ``{in_bounds}`` and the padding) and the copy's own
    ``{misaligned_stores}``."""
    return (op.scope.data, block, op.src_type, op.dst_type,
            *(tuple(tuple(x) for x in op.region(side)) for side in ("src", "dst")),
            bounds_key(op), op.misaligned_stores)


@dataclass(frozen=True)
class LowerRegCopyPattern(RewritePattern):
    """Rewrite one accepted ``regcopy.copy``; report a rejected one (or fail under strict)."""

    options: LowerRegCopyPass
    """The pass's options (declared once, by the pass; ``transfer`` as register copies read it)."""
    labels: Mapping[CopyOp, str] = field(default_factory=dict[CopyOp, str], hash=False,
                                         compare=False)
    """Copy labels computed before any rewrite (``copy_labels``)."""
    plans: dict[Hashable, LoweringPlan | Rejected] = field(
        default_factory=dict[Hashable, "LoweringPlan | Rejected"], hash=False, compare=False)
    """This run's plans (or rejections) by ``plan_key``: copies alike in every input of the
    plan are planned once."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CopyOp, rewriter: PatternRewriter, /) -> None:
        if is_conversion(op):  # refused by lower_conversions, which said why
            return
        try:
            lp = self._plan(op)
        except Rejected as reason:
            self.refuse(op, str(reason))
            return
        if self.options.remarks:
            emit(_lowered_remark(op, self._label(op), lp))
        lowered = emit_copy(op, lp)
        inherit_location(lowered, op)
        rewriter.replace(op, lowered, [])

    def _plan(self, op: CopyOp) -> LoweringPlan:
        """``plan_for(op)``, computed once per ``plan_key``. The checks that read the copy's
        place in the IR (its kernel's launch, enclosing branches) run for every copy."""
        block = check_all_threads_active(op, op.scope.data.scope)
        key = plan_key(op, block)
        if key not in self.plans:
            try:
                o = self.options
                self.plans[key] = plan_for(op, o.max_vector_bits, o.bank_rotation == "auto",
                                           o.transfer, o.select_weight, o.fma_swap_share,
                                           o.misaligned_stores)
            except Rejected as reason:
                self.plans[key] = reason
        plan = self.plans[key]
        if isinstance(plan, Rejected):
            raise plan
        return plan

    def refuse(self, op: CopyOp | CopyAsyncOp, reason: str) -> None:
        """A copy the planners refuse. Strict: an error. Otherwise one line: a remark under
        ``remarks``, else a warning."""
        if self.options.strict:
            raise PassFailedException(op_error(op, f"rejected by lower-reg-copy: {reason}"))
        severity: Severity | None = ("remark" if self.options.remarks
                                     else "warning" if self.options.warn_unlowered else None)
        if severity is not None:
            label = async_label(op) if isinstance(op, CopyAsyncOp) else self._label(op)
            emit(_not_lowered(op, label, severity, reason))

    def _label(self, op: CopyOp) -> str:
        return self.labels[op] if op in self.labels else copy_label(op)


def _diagnostic(op: Operation, label: str, severity: Severity, message: str,
                notes: tuple[str, ...] = ()) -> Diagnostic:
    return Diagnostic(severity, message, label, op_location(op), notes)


def _not_lowered(op: Operation, label: str, severity: Severity, reason: str) -> Diagnostic:
    """``not lowered: <first clause of the reason> [<copy>]``, then the reason's later clauses
    (``; ``-separated: how to fix it), one per indented line, so the first line stays short
    and the same whatever the file's path."""
    first, *rest = split_clauses(reason)
    return _diagnostic(op, label, severity, f"not lowered: {first}", tuple(rest))


def _lowered_remark(op: CopyOp, label: str, lp: LoweringPlan) -> Diagnostic:
    """``<transfer>, <k> registers/thread[, guarded]`` (e.g. ``vec 4 × f32 (128 bits), 2
    rounds, 8 registers/thread``), then why a wider vector or another transfer kind was not
    chosen and the shared-memory note, one per indented line."""
    head = f"{lp.transfer.describe()}, {lp.acc.describe_registers()}"
    if lp.copy.guarded and isinstance(lp.transfer, VectorTransfer):
        head += ", guarded"
    head += lp.copy.describe_replicas()
    notes: list[str] = []
    if lp.copy.replicas > 1 and isinstance(lp.transfer, MatrixTransfer):
        notes.append(f"each of the {lp.copy.replicas} replica groups issues the same "
                     f"{lp.transfer.kind} (the replica digits of the thread index leave its "
                     "lane addresses unchanged)")
    if lp.copy.narrowed_by and isinstance(lp.transfer, VectorTransfer):
        notes.append(f"narrowed: {lp.copy.narrowed_by}")
    notes += lp.passed_over
    if lp.shared.note is not None:
        notes.append(lp.shared.note)
    notes += _swizzle_order_notes(op)
    return _diagnostic(op, label, "remark", head, tuple(notes))


def _swizzle_order_notes(op: CopyOp) -> list[str]:
    """For each swizzled side whose ``swizzle<M,B,S>``, read in CuTe's ``Swizzle<B,M,S>``
    order, would be another valid swizzle: a note giving both readings. Not for a layout
    the compiler chose (``#regcopy.layout<auto>``): nobody wrote its parameters."""
    from regcopy_passes.shared_layouts.choose import chosen_by_compiler

    notes: list[str] = []
    for side, t in ((op.src, op.src_type), (op.dst, op.dst_type)):
        if is_dynamic(t) or chosen_by_compiler(side):
            continue
        swizzle = buffer_layout(t).swizzle
        if swizzle is not None and (note := cute_order_note(swizzle)) is not None:
            notes.append(note)
    return notes


@dataclass(frozen=True)
class LowerRegCopyPass(ModulePass):
    """Lower every register copy the dispatch accepts.

    Options (``-p 'lower-reg-copy{strict max-vector-bits=64}'``; dashes or underscores; a bare
    boolean means true):

    * ``max-vector-bits`` (8/16/32/64/128, default 128): the widest transfer;
    * ``strict`` (default false): a copy the dispatch rejects is an error;
    * ``remarks`` (default false): one remark per copy on stderr (result, or why not lowered);
    * ``warn-unlowered`` (default true): a warning per copy left in the IR;
    * ``bank-rotation`` (``auto``/``off``): lane-rotated rounds for bank-conflicted transfers;
    * ``transfer`` (``auto``/``vector``/``matrix``/``tma``): ``auto`` moves shared <-> register
      fragments with ``ldmatrix``/``stmatrix`` where they fit and need fewer instructions and
      no more wavefronts, and asynchronous copies with ``cp.async``; ``vector`` forces the
      per-thread path; ``matrix`` (an extension) takes ld/stmatrix wherever they fit; ``tma``
      lowers asynchronous global -> shared copies to the Hopper bulk tensor copy
      (``cp.async.bulk.tensor``, an mbarrier, one elected thread) where the region and
      swizzle fit it, ``cp.async`` with a remark saying why elsewhere (register copies as
      under ``auto``);
    * ``select-weight`` (a number >= 0, default 0.25): what one integer-pipe instruction of
      a lane rotation's butterfly (a 32-bit select) costs, in shared wavefronts, when the pass
      weighs a rotation (a calibration knob: the default was measured on the H200);
    * ``fma-swap-share`` (a number from 0 to 1, default 1/3): the share of a lane rotation's
      conditional swaps done as integer multiply-adds (``IMAD``, the FMA pipe) instead of
      selects (``LOP3``, the integer pipe); 0 keeps every swap in selects;
    * ``conversion`` (``auto``/``shuffle``/``shared``): how a register ↔ register copy moves
      its elements: the cheapest kind (``auto``), warp shuffles wherever they apply, or always
      the shared round trip (``lower_convert``);
    * ``misaligned-stores`` (``auto``/``realigned``/``predicated``/``shuffled``/``staged``):
      how a write to a runtime-shaped buffer stores vectors that only a runtime extent may
      misalign: as picked by the cost model (``misaligned_cost``), or always realigned
      128-bit pieces, or always the proven width with a predicate per piece, or realigned
      across lanes by warp shuffles (one aligned vector a lane; where lanes hold a row's
      consecutive vectors), or staged through shared memory in lane order (where the copy
      allows it; the loads follow the model, staged only under ``auto`` and ``staged``); under
      ``auto``, a store's own ``{misaligned_stores = "..."}`` takes the model's place for it.
    """

    name = "lower-reg-copy"

    max_vector_bits: int = 128
    strict: bool = False
    remarks: bool = False
    warn_unlowered: bool = True
    bank_rotation: str = "auto"
    transfer: str = "auto"
    select_weight: float = SELECT_WEIGHT
    fma_swap_share: float = FMA_SWAP_SHARE
    conversion: str = "auto"
    misaligned_stores: str = "auto"

    def __post_init__(self) -> None:
        for option, choices in CHOICES.items():
            if (value := getattr(self, option)) not in choices:
                raise PassOptionError(
                    f"lower-reg-copy: {option.replace('_', '-')} must be one of "
                    f"{', '.join(map(str, choices))}, got {value!r}")
        if not self.select_weight >= 0:
            raise PassOptionError("lower-reg-copy: select-weight must be a number >= 0 (the "
                                  f"cost of a select in wavefronts), got {self.select_weight!r}")
        if not 0 <= self.fma_swap_share <= 1:
            raise PassOptionError("lower-reg-copy: fma-swap-share must be a number from 0 to 1 "
                                  "(the share of a rotation's swaps done as multiply-adds), got "
                                  f"{self.fma_swap_share!r}")

    @classmethod
    def options(cls) -> tuple[OptionSpec, ...]:
        """The options as the fields above declare them (names, types, defaults, choices)."""
        return option_specs(cls, CHOICES)

    @classmethod
    def from_spec(cls, spec: ArgSpec) -> LowerRegCopyPass:
        """``-p`` options: dashes or underscores, bare booleans, errors in dash spelling."""
        if spec.name != cls.name:
            return super().from_spec(spec)
        return cls(**parse_options(cls, spec.parameters, CHOICES))

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        with _gc_paused():
            self._apply(op)

    def _apply(self, op: builtin.ModuleOp) -> None:
        assign_wgmma_layouts(op)  # before the others: wgmma's operands need its swizzles
        fenced = wgmma_fences(op, self.transfer == "tma")
        self._lower_conversions(op)
        if has_auto_layout(op):  # #regcopy.layout<auto> buffers get their layout first
            choose_layouts(op, self.remarks)
        registers = "auto" if self.transfer == "tma" else self.transfer  # register copies
        pattern = LowerRegCopyPattern(replace(self, transfer=registers), copy_labels(op))
        PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(op)
        merge_staging(op)
        if self.transfer == "tma":  # first: what TMA refuses stays for cp.async
            lower_tma_ops(op, self.strict, self.remarks)
        lower_async_ops(op, pattern.refuse, self.remarks)
        lower_mma_ops(op, self.remarks)
        lower_wgmma_ops(op, fenced, self.remarks)

    def _lower_conversions(self, module: builtin.ModuleOp) -> None:
        """Register ↔ register copies first (``lower_convert``): in place, or into two shared
        copies that the pattern below lowers."""
        labels = copy_labels(module)
        reporter = LowerRegCopyPattern(self, labels)

        def report(copy: CopyOp, message: str, reason: str | None,
                   notes: tuple[str, ...]) -> None:
            if reason is not None:
                reporter.refuse(copy, reason)
            elif self.remarks:
                emit(_diagnostic(copy, reporter._label(copy),  # pyright: ignore
                                 "remark", message, notes))

        lower_conversions(module, report, self.conversion)
