"""lab/ncu/ncu_banks.py on the CPU: its random cases lower with both shared copies predicted,
ncu's CSV (a sample in ncu's ``--csv`` details format) parses into per-kernel counters, the
agreement report compares them with the predictions, and the clock64 fallback wraps the
kernel body. The GPU run itself: ``bash test/gpu/device_run.sh ncu``."""

from __future__ import annotations

from pathlib import Path

import pytest

import ncu_banks
import ncu_controls
from ncu_banks import METRICS, BankCase, Planned, attribute, parse_ncu_csv, plan_case, report

SAMPLE = Path(__file__).resolve().parents[1] / "ncu" / "ncu_sample.csv"

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


# ---- the +1 of the first H200 run: a per-kernel excess, not the ldmatrix model -------------

FRAG_A = BankCase("frag-a", "f16", (16, 16), "(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)",
                  (16, 24), options=(("transfer", "matrix"), ("bank_rotation", "off")))


def _matrix_case() -> Planned:
    p = plan_case(FRAG_A, "bank_001")
    assert isinstance(p, Planned) and (p.load.kind, p.store.kind) == ("ldmatrix", "stmatrix")
    return p


def test_matrix_sides_take_the_excess_beyond_the_baseline() -> None:
    p = _matrix_case()
    pl, ps = p.load.wavefronts, p.store.wavefronts
    # what the H200 showed: op_ld = op_st = 0, the all-ops counter 2 above the model's sum
    p.measured = {METRICS[0]: 0, METRICS[1]: 0, METRICS[2]: pl + ps + 2}
    assert attribute(p) == (pl + 1, ps + 1)  # the old reading: +1 on each side
    assert attribute(p, baseline=2) == (pl, ps)
    # with op_ldsm counted, the load is read off it and the store gets the rest
    p.measured[ncu_banks.LDSM] = pl
    assert attribute(p, baseline=2) == (pl, ps)
    assert attribute(p) == (pl, ps + 2)


def test_baseline_is_the_vector_kernels_excess() -> None:
    seed, mat = plan_case(SEED, "bank_000"), _matrix_case()
    assert isinstance(seed, Planned)
    seed.measured = {METRICS[0]: 16, METRICS[1]: 16, METRICS[2]: 34}
    mat.measured = {METRICS[0]: 0, METRICS[1]: 0,
                    METRICS[2]: mat.load.wavefronts + mat.store.wavefronts + 2}
    assert ncu_banks.baseline_rest([seed, mat]) == 2  # the matrix kernel is not looked at
    assert report([seed, mat]) == 0  # both agree once the baseline is taken off
    mat.measured[METRICS[2]] += 2  # an excess the baseline does not explain
    assert report([seed, mat]) == 1


def test_sass_shared_ops_lists_every_shared_instruction() -> None:
    sass = ("STS.U16 [R1], R2 ;\nSTS.U16 [R1+0x40], R3 ;\nBAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
            "LDSM.16.M88.4 R8, [R9] ;\nLDG.E R2, desc[UR4][R2.64] ;")
    assert ncu_banks.sass_shared_ops(sass) == ("STS.U16 x2, BAR.SYNC.DEFER_BLOCKING x1, "
                                               "LDSM.16.M88.4 x1")


def _control_counters(per_kernel: int, per_matrix_kernel: int) -> dict[str, dict[str, float]]:
    """Synthetic counters of the controls: the model's wavefronts plus ``per_kernel`` in the
    all-ops counter of every kernel and ``per_matrix_kernel`` more for each matrix op kind
    a kernel uses; ldmatrix/stmatrix in neither op counter."""
    out = {}
    for c in ncu_controls.controls():
        extra = per_kernel + per_matrix_kernel * ((c.ldsm > 0) + (c.stsm > 0))
        out[c.name] = {METRICS[0]: c.ld, METRICS[1]: c.st, METRICS[2]: c.total + extra}
    return out


def test_controls_expect_the_bank_model() -> None:
    by = {c.name: c for c in ncu_controls.controls()}
    assert by["ctl_none"].total == 0 and by["ctl_sts_bar_lds32"].instructions == (1, 1)
    assert [by[f"ctl_ldsm_x{n}"].ldsm for n in (1, 2, 4)] == [1, 2, 4]
    assert by["ctl_ldsm_x4_twice"].instructions == (2, 0) and by["ctl_ldsm_x4_twice"].ldsm == 8
    assert by["ctl_stsm_x4_conflict"].stsm == 32  # 8 rows 128 bytes apart: 8-way, 4 matrices
    src = by["ctl_stsm_bar_ldsm_x4"].source()
    assert "stmatrix.sync.aligned.m8n8.x4" in src and "ldmatrix.sync.aligned.m8n8.x4" in src


def test_control_findings_tell_the_hypotheses_apart() -> None:
    const = "\n".join(ncu_controls.findings(_control_counters(2, 0), *METRICS))
    assert "per-kernel constant (ctl_none, no shared access): 2" in const
    assert "ldsm extra wavefronts: x1 +2, x4 +2, two x4 +2: none beyond" in const
    per_kernel = "\n".join(ncu_controls.findings(_control_counters(0, 1), *METRICS))
    assert "ldsm extra wavefronts: x1 +1, x4 +1, two x4 +1: +1 per kernel using it" in per_kernel


def test_report_prints_controls_and_raw_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = plan_case(SEED, "bank_000")
    assert isinstance(p, Planned)
    p.measured = {METRICS[0]: 16, METRICS[1]: 16, METRICS[2]: 32}
    raw = tmp_path / "raw.tsv"
    assert report([p], _control_counters(0, 0), str(raw)) == 0
    out = capsys.readouterr().out
    assert "ctl_ldsm_x4: model 0/0/4/0; total=4" in out and "model differs" in out
    assert "bank_000\tvector 16\tvector 16" in raw.read_text()
