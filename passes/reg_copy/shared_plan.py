"""The shared-memory side of a planned copy: its bank-conflict model (``banks``) and the lane
rotation of its rounds (``banks.choose_rotation``). ``plan_shared`` is pure: it reads the
plan, not the IR."""

from __future__ import annotations

from dataclasses import dataclass

from regcopy_passes.core.banks import (
    FMA_SWAP_SHARE,
    NO_ROTATION,
    SELECT_WEIGHT,
    BankReport,
    Rotation,
    bank_report,
    choose_rotation,
)
from regcopy_passes.core.dispatch import Accepted
from regcopy_passes.core.planning import CopyPlan


@dataclass(frozen=True)
class SharedPlan:
    """What the shared side adds to a ``CopyPlan``: the bank report of the plain rounds, the
    lane rotation chosen (``NO_ROTATION``: plain rounds) and its report, and the remark note
    (None when there is nothing to say: global S, or a thread-scope copy)."""

    note: str | None = None
    rotation: Rotation = NO_ROTATION
    plain: BankReport | None = None
    rotated: BankReport | None = None

    @property
    def rotates(self) -> bool:
        return bool(self.rotation.pairs)


def swaps_note(rotation: Rotation, rounds: int, chunk_bytes: int) -> str:
    """``k swaps per word`` (``k`` stages of the butterfly), and how many of its chunk swaps
    are multiply-adds when some are: ``…, 4 of 12 chunk swaps multiply-add``."""
    k = rotation.selects_per_word
    out = f"{k} swap{'' if k == 1 else 's'} per word"
    fma = rotation.fma_swaps(rounds, chunk_bytes)
    if fma:
        out += f", {fma} of {k * rounds // 2} chunk swaps multiply-add"
    return out


def plan_shared(acc: Accepted, plan: CopyPlan, rotate: bool, shared: bool,
                select_weight: float = SELECT_WEIGHT,
                fma_share: float = FMA_SWAP_SHARE) -> SharedPlan:
    """The bank model of ``plan``'s shared transfers and, with ``rotate``, the lane rotation
    that minimises wavefronts plus select cost (``banks.choose_rotation``). ``shared`` says
    whether S is shared memory (global S has no banks: nothing to model)."""
    if not shared:
        return SharedPlan()
    eb = acc.element_bits // 8
    plain = bank_report(plan, eb)
    note = plain.describe()
    if plan.threads < 2:  # one thread: nothing to rotate
        return SharedPlan(note, NO_ROTATION, plain)
    if not rotate or not plain.conflicted:
        return SharedPlan(note + ("" if rotate or not plain.conflicted
                                  else " (bank-rotation=off)"), NO_ROTATION, plain)
    if not plan.r_base.is_static:  # rotated registers must be indexed by constants
        return SharedPlan(note + "; rounds not rotated (dynamic register offset)",
                          NO_ROTATION, plain)
    rotation = choose_rotation(plan, eb, select_weight, fma_share)
    if not rotation.pairs:
        return SharedPlan(note + "; rounds not rotated (no rotation pays for its selects)",
                          NO_ROTATION, plain)
    rotated = bank_report(plan, eb, rotation)
    per, ideal = rotated.wavefronts / plan.rounds, rotated.ideal / plan.rounds
    note += (f"; lane-rotated rounds ({rotation}): {per:g} wavefront{'' if per == 1 else 's'} "
             f"per round, ideal {ideal:g}, {swaps_note(rotation, plan.rounds, plan.n * eb)}")
    return SharedPlan(note, rotation, plain, rotated)
