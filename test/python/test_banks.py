"""The shared-memory bank model (``regcopy_passes.core.banks``) against hand-computed cases.

Hand computation, seed f32 k=8 (R ``(32,8):(1@laneid,1)``, 128-bit accesses, 2 rounds):
lane l reads bytes ``32 l + 16 f .. + 15`` = words ``8 l + 4 f .. + 3``. The 8 lanes of a
quarter-warp touch words ``8 l + {0..3}`` for l = 0..7: banks ``{0-3, 8-11, 16-19, 24-27}``,
each twice (l and l + 4) -> 2 wavefronts per quarter, 8 per instruction, ideal 4.
"""

from __future__ import annotations

import pytest

from bank_cases import pitch65, planned, seed, seed_cta, swizzled_wg
from regcopy_passes.core.banks import (
    NO_ROTATION,
    Rotation,
    bank_report,
    choose_rotation,
    instruction_wavefronts,
    lane_groups,
    xor_span,
)
from regcopy_passes.reg_copy.shared_plan import plan_shared




def test_lane_groups() -> None:
    assert [lane_groups(b) for b in (1, 2, 4, 8, 16)] == [32, 32, 32, 16, 8]


def test_instruction_wavefronts_by_hand() -> None:
    # 32 lanes, 4-byte words, stride 1 word: every bank once
    assert instruction_wavefronts([4 * l for l in range(32)], 4) == (1, 1)
    # stride 2 words: banks 0, 2, .., 30 twice each
    assert instruction_wavefronts([8 * l for l in range(32)], 4) == (2, 1)
    # every lane the same word: broadcast
    assert instruction_wavefronts([64] * 32, 4) == (1, 1)
    # 128-bit, lane l at 32 l bytes: 2 wavefronts in each of 4 quarter-warps
    assert instruction_wavefronts([32 * l for l in range(32)], 16) == (8, 4)
    # inactive lanes issue nothing
    assert instruction_wavefronts([None] * 32, 16) == (0, 0)


@pytest.mark.parametrize("case,wavefronts,ideal", [
    (seed("f32", 8), 8, 4),        # 2-way
    (seed("f32", 16), 16, 4),      # 4-way: lane l at 64 l bytes, 2 distinct 16 B slots a bank
    (seed("f16", 8), 4, 4),        # 16 B a lane, contiguous: no conflict
    (seed("f16", 16), 8, 4),       # 32 B a lane: like f32 k=8
    (seed_cta("f32", 8), 8, 4),
    (seed_cta("f16", 16), 8, 4),
    (swizzled_wg(), 4, 4),          # swizzle<3,3,3>: 8 rows of a quarter-warp hit 8 chunks
    (swizzled_wg(False), 32, 4),    # the same tile unswizzled: 8 rows x 128 B, 8-way
    (pitch65(), 1, 1),              # 32-bit, pitch 65 words: lane l at bank (65 l) % 32 = l
])
def test_bank_report(case, wavefronts: int, ideal: int) -> None:
    acc, plan = planned(case)
    report = bank_report(plan, acc.element_bits // 8)
    assert (report.wavefronts / plan.rounds, report.ideal / plan.rounds) == (wavefronts, ideal)


def test_notes() -> None:
    _, plan = planned(seed("f32", 8))
    assert bank_report(plan, 4).describe() == \
        "2-way bank conflict: 8 wavefronts per round, ideal 4"
    _, plan = planned(seed("f16", 8))
    assert bank_report(plan, 2).describe() == "no bank conflict: 4 wavefronts per round, ideal 4"


def test_pitch_64_is_32_way_at_32_bit() -> None:
    # the same copy without padding: lane l at word 64 l, all in bank 0
    from bank_cases import CopyCase, Side
    case = CopyCase(Side((32, 64), "local", "(32,64):(1@laneid,1)"), Side((32, 64), "shared"),
                    "f32")
    _, plan = planned(case, max_vector_bits=32)
    assert bank_report(plan, 4).wavefronts == 32 * plan.rounds


def test_rotation_h() -> None:
    rot = Rotation(((1, 1), (2, 2)))
    assert [rot.h(l) for l in range(8)] == [0, 0, 1, 1, 2, 2, 3, 3]
    assert rot.selects_per_word == 2 and NO_ROTATION.selects_per_word == 0
    assert [xor_span(r) for r in (1, 2, 6, 8, 12)] == [1, 2, 2, 8, 4]


@pytest.mark.parametrize("case,pairs,after", [
    (seed("f32", 8), ((2, 1),), 4),      # lanes 4-7 of a quarter take chunk 1 first
    (seed("f16", 16), ((2, 1),), 4),
    (seed_cta("f32", 8), ((2, 1),), 4),
    # 4-way: two lane bits reach the ideal at two selects a word (a two-stage butterfly), which
    # beat one bit (half the conflict at one select a word) on the H200 in every benchmark kernel
    (seed("f32", 16), ((1, 1), (2, 2)), 4),
    # 8-way (32 floats a lane, 8 rounds of 128 bits): three lane bits reach the ideal 4; two
    # stopped at 8 before the selects were counted as a butterfly
    (seed("f32", 32), ((0, 1), (1, 2), (2, 4)), 4),
    (seed("f16", 64), ((0, 1), (1, 2), (2, 4)), 4),
    (seed_cta("f32", 32), ((0, 1), (1, 2), (2, 4)), 4),
])
def test_choose_rotation(case, pairs, after: int) -> None:
    acc, plan = planned(case)
    rot = choose_rotation(plan, acc.element_bits // 8)
    assert rot.pairs == pairs
    assert bank_report(plan, acc.element_bits // 8, rot).wavefronts / plan.rounds == after


@pytest.mark.parametrize("case", [seed("f16", 8), swizzled_wg(), pitch65()])
def test_no_rotation_without_conflict(case) -> None:
    acc, plan = planned(case)
    assert choose_rotation(plan, acc.element_bits // 8) == NO_ROTATION
    shared = plan_shared(acc, plan, rotate=True, shared=True)
    assert not shared.rotates and shared.note is not None and "no bank conflict" in shared.note


def test_plan_shared_note_and_off() -> None:
    acc, plan = planned(seed("f32", 8))
    on = plan_shared(acc, plan, rotate=True, shared=True)
    assert on.rotates and on.note is not None
    assert on.note.startswith("2-way bank conflict: 8 wavefronts per round, ideal 4; "
                              "lane-rotated rounds (lane bit 2 -> round ^ 1): 4 wavefronts")
    off = plan_shared(acc, plan, rotate=False, shared=True)
    assert not off.rotates
    assert off.note == "2-way bank conflict: 8 wavefronts per round, ideal 4 (bank-rotation=off)"
    assert plan_shared(acc, plan, rotate=True, shared=False).note is None
