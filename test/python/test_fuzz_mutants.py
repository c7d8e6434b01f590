"""The mutation fuzzer (``python -m regcopy_tools.fuzz_mutants``) in CI: a small fixed-seed run
must end every mutant in exit 0 or one diagnostic, never in an exception; and the fuzzer itself
must tell the outcomes apart (a crash is reported, not mistaken for a diagnostic)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis_profiles import examples

from regcopy_tools import fuzz_mutants
from regcopy_tools.fuzz_mutants import RUNS, Seeds, fuzz, mutant, run_one

CI_MUTANTS = examples(100, 1000)
"""Mutants of the fixed-seed run: 100 by default (each runs through both ``RUNS``, about 0.04
CPU-s), 1000 under ``REGCOPY_HYPOTHESIS=thorough`` or ``big``."""


def test_fixed_seed_run_has_no_failures() -> None:
    report = fuzz(CI_MUTANTS, seed=2026, jobs=1, timeout=20.0)
    assert report.mutants == CI_MUTANTS
    assert sum(report.outcomes[k] for k in ("ok", "diagnostic")) == CI_MUTANTS * len(RUNS)
    assert report.failures == {}, "\n".join(
        f"{sig}: mutant {i} ({' '.join(RUNS[r])}): {o.detail}"
        for sig, (i, r, o) in report.failures.items())
    # the run is not vacuous: mutants reach the parser, the verifiers and the pass
    assert report.outcomes["ok"] > 0
    assert report.outcomes["diagnostic: parse"] > 0
    assert report.outcomes["diagnostic: verify"] > 0


def test_mutants_are_reproducible_and_mutated() -> None:
    seeds = Seeds.load()
    assert len(seeds.all) > 50 and len(seeds.valid) > 20
    first = [mutant(seeds, 7, i) for i in range(100)]
    assert first == [mutant(seeds, 7, i) for i in range(100)]
    assert sum(m not in seeds.all for m in first) >= 80  # no-op mutations are rare


def test_outcomes_are_classified(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.mlir"
    seeds = Seeds.load()
    valid = next(s for s in seeds.valid if "regcopy.copy" in s)
    assert run_one(path, valid, RUNS[0], 20.0).kind == "ok"
    parse = run_one(path, valid.replace("regcopy.copy", "regcopy.copy %", 1), RUNS[0], 20.0)
    assert (parse.kind, parse.signature) == ("diagnostic", "parse")

    def boom(*args: object) -> None:
        raise KeyError("internal")

    monkeypatch.setattr(fuzz_mutants.RegcopyOptMain, "apply_passes", boom)
    crash = run_one(path, valid, RUNS[0], 20.0)
    assert crash.kind == "crash" and crash.signature.startswith("KeyError at ")


def test_mutators_change_what_they_target() -> None:
    rng = random.Random(1)
    text = (Path(fuzz_mutants.ROOT) / "examples" / "seed_demo.mlir").read_text()
    for mutate in fuzz_mutants.MUTATORS:
        assert any(mutate(rng, text) != text for _ in range(20)), mutate.__name__
