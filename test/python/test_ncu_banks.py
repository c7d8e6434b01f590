"""test/gpu/ncu_banks.py on the CPU: its random cases lower with both shared copies predicted,
ncu's CSV (a sample in ncu's ``--csv`` details format) parses into per-kernel counters, the
agreement report compares them with the predictions, and the clock64 fallback wraps the
kernel body. The GPU run itself: ``bash test/gpu/device_run.sh ncu``."""

from __future__ import annotations

from pathlib import Path

import ncu_banks
from ncu_banks import METRICS, BankCase, Planned, attribute, parse_ncu_csv, plan_case, report

SAMPLE = Path(__file__).resolve().parents[1] / "gpu" / "ncu_sample.csv"

SEED = BankCase("rows", "f32", (32, 8), "(32,8):(1@laneid,1)", (32, 8),
                options=(("bank_rotation", "off"),))


def test_parse_sample_csv() -> None:
    got = parse_ncu_csv(SAMPLE.read_text())
    assert set(got) == {"bank_000", "bank_001"}
    assert got["bank_001"][METRICS[2]] == 1024 and got["bank_000"][METRICS[0]] == 8


def test_seed_case_predicted_and_reported() -> None:
    p = plan_case(SEED, "bank_000")
    assert isinstance(p, Planned)
    # the seed copy, plain rounds: 2-way, 2 rounds of 8 wavefronts each way
    assert (p.store.wavefronts, p.store.ideal, p.load.wavefronts) == (16, 8, 16)
    assert "extern \"C\" __global__" in p.source and "bank_000(" in p.source
    p.measured = parse_ncu_csv(SAMPLE.read_text())["bank_000"]
    assert attribute(p) == (8, 8)
    assert report([p]) == 1  # the sample says 8 wavefronts, the model 16: a disagreement
    p.measured = {METRICS[0]: 16, METRICS[1]: 16, METRICS[2]: 32}
    assert report([p]) == 0


def test_generated_cases_cover_the_families() -> None:
    planned = list(ncu_banks.generate(4, seed=3))
    assert [p.name for p in planned] == [f"bank_{i:03d}" for i in range(4)]
    assert all(p.load.wavefronts >= p.load.ideal > 0 for p in planned)


def test_timed_source_wraps_the_body() -> None:
    p = plan_case(SEED, "bank_000")
    assert isinstance(p, Planned)
    src = ncu_banks.timed_source(p)
    assert src.count("clock64()") == 2 and src.count("{") == src.count("}")


def test_sass_shared_counts() -> None:
    sass = "LDS.128 R4, [R2] ;\nSTS.64 [R3], R6 ;\nLDSM.16.M88.4 R8, [R9] ;\nSTSM.16.M88.2 [R1], R4 ;"
    assert ncu_banks.sass_shared(sass) == (2, 2)
