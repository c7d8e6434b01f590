"""A planned copy names its *transfer*: the instruction kind that moves its bytes.

``LoweringPlan`` is the whole decision for one accepted copy: the acceptance (``Accepted``),
the per-thread plan of steps 1-8 (``CopyPlan``), the shared-memory side (``SharedPlan``), the
transfer chosen, and why the other kinds were passed over. The rewrite dispatches on the
transfer's type, one emitter per kind (``emit_copy.EMITTERS``):

* ``VectorTransfer``: each thread moves ``n`` contiguous elements a round with one
  ``vector.load`` + ``vector.store`` (the register dispatch's own path), rounds lane-rotated
  when ``rotation`` has pairs;
* ``MatrixTransfer`` (``matrix_plan``): warp-collective ``ldmatrix``/``stmatrix``.
"""

from __future__ import annotations

from dataclasses import dataclass

from regcopy_passes.banks import NO_ROTATION, Rotation
from regcopy_passes.dispatch import Accepted
from regcopy_passes.matrix_plan import MatrixTransfer
from regcopy_passes.planning import CopyPlan
from regcopy_passes.shared_plan import SharedPlan


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

    def describe(self) -> str:
        """``vec 4 × f32 (128 bits), 2 rounds``."""
        rounds = f"{self.rounds} round{'s' if self.rounds != 1 else ''}"
        return f"vec {self.n} × {self.element_type} ({self.bits} bits), {rounds}"


Transfer = VectorTransfer | MatrixTransfer
"""Every transfer kind the pass can emit; each has ``kind``, ``instructions`` (memory
instructions a warp issues on the shared/global side) and ``describe()``."""


@dataclass(frozen=True)
class LoweringPlan:
    """One accepted copy's full decision (see the module doc)."""

    acc: Accepted
    copy: CopyPlan
    shared: SharedPlan
    transfer: Transfer
    passed_over: tuple[str, ...] = ()
    """Why each other transfer kind was not chosen (remark notes)."""


def vector_transfer(acc: Accepted, plan: CopyPlan, shared: SharedPlan,
                    element_type: str) -> VectorTransfer:
    """The per-thread transfer of ``plan`` (lane-rotated as ``shared`` chose)."""
    return VectorTransfer(plan.n, acc.element_bits, plan.rounds, element_type, shared.rotation)
