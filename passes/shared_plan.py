"""The shared-memory side of a planned copy: its bank-conflict model and the lane rotation of
its rounds (issue: shared-memory speed). Stub: no model yet, no rotation."""

from __future__ import annotations

from dataclasses import dataclass

from regcopy_passes.dispatch import Accepted
from regcopy_passes.planning import CopyPlan


@dataclass(frozen=True)
class SharedPlan:
    """What the shared side adds to a ``CopyPlan``: a remark note (None when there is nothing
    to say) and, later, the lane rotation of the rounds."""

    note: str | None = None


def plan_shared(acc: Accepted, plan: CopyPlan, rotate: bool) -> SharedPlan:
    """The bank model (and, with ``rotate``, the rotation) of ``plan``'s shared transfers."""
    return SharedPlan()
