"""Hypothesis profiles of the test suite, chosen by ``REGCOPY_HYPOTHESIS``.

* ``ci`` (default): few examples (``max_examples=25``), no deadline, derandomized (the same
  examples every run, no example database), so the whole suite stays within a few minutes;
* ``thorough``: ``max_examples=500``, random (a new sample each run; failures are kept in the
  ``.hypothesis/`` database and replayed first);
* ``big``: ``thorough``, and the lowering-semantics properties check tens of thousands of
  random copies each (a long run; ``REGCOPY_HYPOTHESIS_STATS=FILE`` logs progress).

``test/conftest.py`` registers and loads the profile before any test module is imported; a
property states only what is specific to it (``suppress_health_check``), never its example
count, or it scales the count with ``examples``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

PROFILES = ("ci", "thorough", "big")
PROFILE = os.environ.get("REGCOPY_HYPOTHESIS", "ci")


def register() -> None:
    """Register the three profiles and load the one ``REGCOPY_HYPOTHESIS`` names."""
    if PROFILE not in PROFILES:
        raise ValueError(f"REGCOPY_HYPOTHESIS={PROFILE!r}: expected one of {', '.join(PROFILES)}")
    slow = [HealthCheck.too_slow]
    settings.register_profile("ci", max_examples=25, deadline=None, derandomize=True,
                              database=None, suppress_health_check=slow)
    settings.register_profile("thorough", max_examples=500, deadline=None,
                              suppress_health_check=slow)
    settings.register_profile("big", settings.get_profile("thorough"))
    settings.load_profile(PROFILE)


def examples(ci: int, thorough: int, big: int | None = None) -> int:
    """An example count for a property that draws whole copies (each costs a lowering and an
    interpretation): ``ci`` under the default profile, ``thorough`` or ``big`` otherwise."""
    if PROFILE == "big" and big is not None:
        return big
    return ci if PROFILE == "ci" else thorough
