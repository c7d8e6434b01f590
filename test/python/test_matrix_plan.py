"""``passes/matrix_plan``: which register copies move as ldmatrix/stmatrix, and exactly how.

Every accepted case is checked by an independent simulation of the PTX instructions
(``matrix_cases.simulate``: lane addresses -> per-lane register words, from the ISA's rules)
against the layouts' own placement of every element (``copy_harness.placement``); the
refusals are checked for their reason.
"""

from __future__ import annotations

import pytest

from matrix_cases import (
    A_16x16,
    A_64x64,
    A_CTA,
    A_I8,
    A_WG,
    B_KN,
    B_NK,
    C_16x8,
    counts,
    expected,
    frag,
    planned,
    simulate,
)
from copy_harness import BlockRow, CopyCase, Side, parse
from regcopy_dialect.regcopy import CopyOp
from regcopy_passes.lower_reg_copy import plan_for
from regcopy_passes.reg_copy.matrix_plan import BitField, MatrixTransfer
from regcopy_passes.reg_copy.transfer import LoweringPlan, Transfer, VectorTransfer


def lowered(case: CopyCase, r_to_s: bool, transfer: str = "auto") -> LoweringPlan:
    """The pass's whole decision for the case's copy (``plan_for``)."""
    op = next(o for o in parse(case.kernel_text(r_to_s)).walk() if isinstance(o, CopyOp))
    return plan_for(op, transfer=transfer)

SWIZZLED_64 = "(64,64):(64,1), swizzle<3,3,3>"

# name: (case, trans, matrices of each instruction)
ACCEPTED: dict[str, tuple[CopyCase, bool, list[int]]] = {
    "A f16": (frag((16, 16), A_16x16), False, [4]),
    "A bf16": (frag((16, 16), A_16x16, dtype="bf16"), False, [4]),
    "A 64x64 (gemm_tiles %FA)": (frag((64, 64), A_64x64), False, [4] * 16),
    "B K x N": (frag((16, 8), B_KN), True, [2]),
    "B N x K": (frag((8, 16), B_NK), False, [2]),
    "C f16": (frag((16, 8), C_16x8), False, [2]),
    "C bf16": (frag((16, 8), C_16x8, dtype="bf16"), False, [2]),
    "C f16 16x16": (frag((16, 16), A_16x16), False, [4]),
    "A i8 k32": (frag((16, 32), A_I8, dtype="i8"), False, [4]),
    "A i8 k32 ui8": (frag((16, 32), A_I8, dtype="ui8"), False, [4]),
    "A slice of a wider tile": (frag((16, 16), A_16x16, (32, 64), offsets=(16, 24)), False, [4]),
    "warpgroup A": (frag((64, 16), A_WG, scope="warpgroup", block=128), False, [4]),
    "cta A": (frag((128, 16), A_CTA, scope="cta", block=256), False, [4]),
    "warp scope, 2 warps": (frag((16, 16), A_16x16, block=64), False, [4]),
    "swizzled 128-byte rows": (frag((64, 64), A_64x64, s_layout=SWIZZLED_64), False, [4] * 16),
    "swizzled slice": (frag((16, 16), A_16x16, (64, 64), s_layout=SWIZZLED_64,
                            offsets=(16, 8)), False, [4]),
    "x4 + x2 remainder": (frag((48, 8), "(3,2,8,4,2):(4,2,4@laneid,1@laneid,1)"), False,
                          [4, 2]),
}


@pytest.mark.parametrize("r_to_s", [False, True], ids=["S->R", "R->S"])
@pytest.mark.parametrize("name", list(ACCEPTED))
def test_fragment_transfers(name: str, r_to_s: bool) -> None:
    case, trans, want_counts = ACCEPTED[name]
    acc, plan, transfer = planned(case, r_to_s)
    assert isinstance(transfer, MatrixTransfer), transfer
    assert transfer.kind == ("stmatrix" if r_to_s else "ldmatrix")
    assert transfer.trans == trans
    assert counts(transfer) == want_counts
    # an x2 after x4s repeats lanes mod 16, so its table differs from theirs
    assert len(transfer.tables) == len(set(want_counts))
    assert simulate(transfer, case, acc.s.base.const, plan.swizzle) == expected(case)


def test_a_fragment_address_table() -> None:
    """m16n8k16 A from a row-major 16 x 16 tile: lane t supplies row t % 16 at column
    8 * (t / 16): one 4-bit field of 16 elements and one 1-bit field of 8."""
    _, plan, transfer = planned(frag((16, 16), A_16x16), False)
    assert isinstance(transfer, MatrixTransfer)
    (op,) = transfer.ops
    assert op.registers == (0, 2, 4, 6) and op.delta == 0
    assert op.fields == (BitField(0, 4, 16), BitField(4, 1, 8))
    assert transfer.describe() == "ldmatrix.x4 (1 instruction a warp, 16 bytes a lane)"
    assert plan.rounds == 4  # fewer instructions; its rows conflict (test_choice_notes)


def test_describe_mixed_counts() -> None:
    _, _, transfer = planned(ACCEPTED["x4 + x2 remainder"][0], True)
    assert isinstance(transfer, MatrixTransfer)
    assert transfer.describe() == "stmatrix.x4/.x2 (2 instructions a warp, 24 bytes a lane, 2 address tables)"
    _, _, trans = planned(ACCEPTED["B K x N"][0], False)
    assert isinstance(trans, MatrixTransfer)
    assert trans.describe() == "ldmatrix.x2.trans (1 instruction a warp, 8 bytes a lane)"


def test_not_preferred_when_no_fewer_instructions() -> None:
    """One 8 x 8 f16 matrix, one word a lane: ldmatrix.x1 applies, but the per-thread path
    also needs just one 32-bit access (a matrix word is never adjacent to another, so the
    per-thread path never moves more than one word an access)."""
    _, plan, transfer = planned(frag((8, 8), "(8,4,2):(4@laneid,1@laneid,1)"), False)
    assert isinstance(transfer, MatrixTransfer) and counts(transfer) == [1]
    assert plan.n == 2 and plan.rounds == 1
    lp = lowered(frag((8, 8), "(8,4,2):(4@laneid,1@laneid,1)"), False)
    assert not isinstance(lp.transfer, MatrixTransfer)
    assert lp.passed_over == (
        "ldmatrix not used: ldmatrix.x1 (1 instruction a warp, 4 bytes a lane) is no fewer "
        "instructions; the per-thread path (vec 2) needs 1 shared instruction a warp",)
    assert simulate(transfer, frag((8, 8), "(8,4,2):(4@laneid,1@laneid,1)"), 0, None) == \
        expected(frag((8, 8), "(8,4,2):(4@laneid,1@laneid,1)"))


REFUSED: dict[str, tuple[CopyCase, str]] = {
    "global S": (frag((16, 16), A_16x16, space="global"), "S is global memory"),
    "thread scope": (CopyCase(Side((8,), "local", "(8):(1)"), Side((8,), "shared"), "f16",
                              "thread", 32), "exec scope thread is not a warp collective"),
    "guarded half warp": (frag((4, 8), "(4,4,2):(4@laneid,1@laneid,1)"),
                          "some lanes own no data (guarded)"),
    "64-bit elements": (frag((16, 8), C_16x8, dtype="f64"), "64-bit elements"),
    "f32 C fragment": (frag((16, 8), C_16x8, dtype="f32"),
                       "not 8x8 b16 matrices: lane 1's byte 0 of the word at register 0 is "
                       "byte 8 of the slice, not 4"),
    "trans on 32-bit": (frag((16, 8), C_16x8, dtype="f32"),
                        "transposed: trans needs 16-bit elements, not 32-bit"),
    "misaligned slice base": (frag((16, 16), A_16x16, (16, 24), offsets=(0, 4)),
                              "the S slice base is provably a multiple of 8 bytes only"),
    "misaligned row pitch": (frag((16, 16), A_16x16, (16, 20), offsets=(0, 0)),
                             "row 1 of the matrix of warp 0 at register 0 starts at byte 40"),
    "narrow swizzle chunk": (frag((16, 16), A_16x16, s_layout="(16,16):(16,1), swizzle<2,2,2>"),
                             "swizzle<2,2,2> keeps 8 contiguous bytes"),
    "dynamic register offset": (
        CopyCase(Side((2, 16, 16), "local", "(2,2,8,2,4,2):(8,2,4@laneid,4,1@laneid,1)",
                      (BlockRow(1), 0, 0), (1, 16, 16)), Side((16, 16), "shared"), "f16",
                 "warp", 32, 2), "R's register offset is dynamic"),
    "not a matrix (thread owns a row)": (frag((32, 8), "(32,8):(1@laneid,1)"),
                                         "not 8x8 b16 matrices"),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_refusals(name: str) -> None:
    case, reason = REFUSED[name]
    for r_to_s in (False, True):
        transfer = planned(case, r_to_s)[2]
        assert isinstance(transfer, str) and reason in transfer, transfer


def test_choice_notes() -> None:
    lp = lowered(frag((16, 16), A_16x16), False)  # 32-byte rows: 2-way conflicts
    assert not isinstance(lp.transfer, MatrixTransfer)
    assert lp.passed_over == (
        "ldmatrix not used: ldmatrix.x4 (1 instruction a warp, 16 bytes a lane) needs 8 "
        "wavefronts (bank conflicts between its rows); the per-thread path (vec 2) needs 4 "
        "shared instructions a warp and 4 wavefronts",)
    lp = lowered(ACCEPTED["swizzled slice"][0], False)
    assert isinstance(lp.transfer, MatrixTransfer)
    assert lp.passed_over == ("the per-thread path (vec 2) needs 4 shared instructions a warp "
                              "and 4 wavefronts, ldmatrix 1 and 4",)
    assert lp.shared.note == "no bank conflict: 4 wavefronts per instruction, ideal 4"
    case, reason = REFUSED["misaligned slice base"]
    _, _, refused = planned(case, True)
    lp = lowered(case, True)
    assert lp.passed_over == (f"stmatrix not used: {refused}",) and reason in refused


def test_forced_matrix_note_agrees_with_the_choice() -> None:
    """Under ``transfer=matrix`` an ld/stmatrix that ``auto`` would refuse is taken, and the
    note says so (it used to say "ldmatrix not used" under a head naming ldmatrix)."""
    case = frag((8, 8), "(8,4,2):(4@laneid,1@laneid,1)")
    lp = lowered(case, False, "matrix")
    assert isinstance(lp.transfer, MatrixTransfer)
    (note,) = lp.passed_over
    assert "not used" not in note
    assert note.startswith("ldmatrix taken as transfer=matrix asks; transfer=auto would take "
                           "the per-thread path (ldmatrix is no fewer instructions)")
    assert lp.shared.note is not None and "wavefront" in lp.shared.note


def test_both_kinds_are_transfers_measured_by_one_bank_model() -> None:
    """Each kind provides instructions, wavefronts (``bank_report``) and ``describe``; the
    per-thread report is the shared plan's own (lane rotation included)."""
    for name in ("swizzled slice", "A f16"):
        lp = lowered(ACCEPTED[name][0], False)
        assert isinstance(lp.transfer, Transfer)
        report = lp.transfer.bank_report(lp.copy)
        if isinstance(lp.transfer, VectorTransfer):
            assert report == (lp.shared.rotated or lp.shared.plain)
        else:
            assert lp.shared.note == report.describe()
        assert report.wavefronts >= report.ideal > 0
