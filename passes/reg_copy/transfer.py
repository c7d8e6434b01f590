"""A planned copy names its *transfer*: the instruction kind that moves its bytes.

Every kind is a ``Transfer``: it says how many memory instructions a warp issues, how many
shared-memory wavefronts they cost (``bank_report``, by the one bank model of ``banks``), and
how it reads in a remark (``describe``); the rewrite has one emitter per kind
(``emit_copy.EMITTERS``):

* ``VectorTransfer``: each thread moves ``n`` contiguous elements a round with one
  ``vector.load`` + ``vector.store`` (the register dispatch's own path), rounds lane-rotated
  when ``rotation`` has pairs;
* ``MatrixTransfer`` (``matrix_plan``): warp-collective ``ldmatrix``/``stmatrix``.

``choose_transfer`` is the one choice between them; ``LoweringPlan`` is the whole decision for
one accepted copy: the acceptance (``Accepted``), the per-thread plan (``CopyPlan``), the
shared-memory side (``SharedPlan``), the transfer chosen, and why the other kind was passed
over.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol, runtime_checkable

from regcopy_passes.core.banks import NO_ROTATION, BankReport, Rotation, bank_report
from regcopy_passes.core.dispatch import Accepted
from regcopy_passes.reg_copy.matrix_plan import MatrixTransfer, plan_matrix
from regcopy_passes.core.planning import CopyPlan
from regcopy_passes.reg_copy.shared_plan import SharedPlan

from regcopy_dialect.layout import Scope


@runtime_checkable
class Transfer(Protocol):
    """What every transfer kind provides."""

    @property
    def kind(self) -> str: ...

    @property
    def instructions(self) -> int:
        """Memory instructions a warp issues on the shared/global side."""
        ...

    def bank_report(self, plan: CopyPlan) -> BankReport:
        """Shared wavefronts of one warp (the worst of the scope) against the ideal."""
        ...

    def describe(self) -> str: ...


@dataclass(frozen=True)
class VectorTransfer:
    """Per-thread transfers of ``n`` elements (``bits`` bits), ``rounds`` a copy."""

    n: int
    element_bits: int
    rounds: int
    element_type: str
    rotation: Rotation = NO_ROTATION

    kind = "vector"

    @property
    def bits(self) -> int:
        return self.n * self.element_bits

    @property
    def instructions(self) -> int:
        """Memory instructions a warp issues on one side (one per round)."""
        return self.rounds

    def bank_report(self, plan: CopyPlan) -> BankReport:
        """The rounds' wavefronts, lane-rotated as ``rotation`` says."""
        return bank_report(plan, self.element_bits // 8, self.rotation)

    def describe(self) -> str:
        """``vec 4 × f32 (128 bits), 2 rounds``."""
        rounds = f"{self.rounds} round{'s' if self.rounds != 1 else ''}"
        return f"vec {self.n} × {self.element_type} ({self.bits} bits), {rounds}"


@dataclass(frozen=True)
class LoweringPlan:
    """One accepted copy's full decision (see the module doc)."""

    acc: Accepted
    copy: CopyPlan
    shared: SharedPlan
    transfer: VectorTransfer | MatrixTransfer
    passed_over: tuple[str, ...] = ()
    """Why the other transfer kind was not chosen, or what it would have cost (remark
    notes)."""


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def choose_transfer(acc: Accepted, plan: CopyPlan, shared: SharedPlan, element_type: str,
                    s_shared: bool, option: str = "auto") -> LoweringPlan:
    """The transfer of an accepted, planned copy. The per-thread path unless S is shared
    memory, the scope has whole warps and ld/stmatrix apply (``matrix_plan.plan_matrix``);
    then ``option`` decides: ``vector`` never tries them, ``matrix`` takes them wherever they
    apply, ``auto`` takes them when they issue fewer instructions than the per-thread path in
    no more wavefronts (a bank-conflicted ldmatrix loses to conflict-free 32-bit accesses:
    0.48x against 0.88x of the shared peak on the H200), and does not try them when the
    per-thread path already moves 16 bytes a lane an instruction."""
    vector = VectorTransfer(plan.n, acc.element_bits, plan.rounds, element_type,
                            shared.rotation)
    if not s_shared or acc.scope is Scope.THREAD:  # no warp-collective kind applies
        return LoweringPlan(acc, plan, shared, vector)
    kind = "ldmatrix" if acc.r_is_dst else "stmatrix"

    def per_thread(waves: int | None = None) -> str:
        return (f"the per-thread path (vec {plan.n}) needs "
                f"{_plural(vector.instructions, 'shared instruction')} a warp"
                + ("" if waves is None else f" and {_plural(waves, 'wavefront')}"))

    def keep_vector(note: str) -> LoweringPlan:
        return LoweringPlan(acc, plan, shared, vector, (note,))

    if option == "vector":
        return keep_vector(f"{kind} not tried: transfer=vector")
    if vector.bits >= 128 and option == "auto":
        return keep_vector(f"{kind} not needed: 128-bit transfers already move 16 bytes a "
                           "lane an instruction")
    matrix = plan_matrix(acc, plan, s_shared)
    if isinstance(matrix, str):
        return keep_vector(f"{kind} not used: {matrix}")
    fewer = matrix.instructions < vector.instructions
    if not fewer and option == "auto":
        return keep_vector(f"{kind} not used: {matrix.describe()} is no fewer instructions; "
                           f"{per_thread()}")
    report = matrix.bank_report(plan)
    vw = (shared.rotated or shared.plain or vector.bank_report(plan)).wavefronts
    mw = report.wavefronts
    versus = f"{per_thread(vw)}, {kind} {matrix.instructions} and {mw}"
    take_matrix = LoweringPlan(acc, plan, replace(shared, note=report.describe()), matrix)
    if fewer and mw <= vw:
        return replace(take_matrix, passed_over=(versus,))
    if option == "matrix":
        why = ("is no fewer instructions" if not fewer
               else "needs more wavefronts: bank conflicts between its rows")
        return replace(take_matrix, passed_over=(
            f"{kind} taken as transfer=matrix asks; transfer=auto would take the per-thread "
            f"path ({kind} {why}); {versus}",))
    return keep_vector(f"{kind} not used: {matrix.describe()} needs {mw} wavefronts (bank "
                       f"conflicts between its rows); {per_thread(vw)}")
