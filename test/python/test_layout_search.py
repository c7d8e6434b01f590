"""The search of choose-shared-layouts (passes/shared_layouts/search.py): the pairwise conflict rule
agrees with the bank model, the constructed XOR bases are conflict-free whenever some map
over the same bits is (checked by brute force), and the candidates' layouts."""

from __future__ import annotations

import random
from itertools import product

import pytest
from regcopy_passes.core.banks import instruction_wavefronts
from regcopy_passes.shared_layouts.search import (
    Constraint,
    as_swizzle,
    conflicts,
    constraints,
    padded_pitches,
    row_major,
    solve_bases,
    target_bits,
    violations,
)

from regcopy_dialect.layout import Swizzle
from regcopy_dialect.xor_map import XorSwizzle


@pytest.mark.parametrize("access", [4, 8, 16])
def test_pairwise_rule_matches_the_bank_model(access: int) -> None:
    """Two aligned lanes conflict by the rule iff the bank model serves them in 2 wavefronts."""
    rng = random.Random(access)
    for _ in range(300):
        a, b = (rng.randrange(0, 4096 // access) * access for _ in range(2))
        waves, _ = instruction_wavefronts([a, b], access)
        assert conflicts(a ^ b, access) == (waves == 2), (a, b)


def _rows(first: int, pitch: int, count: int = 8) -> list[int]:
    return [first + r * pitch for r in range(count)]


def test_ldmatrix_rows_of_a_64_column_f16_tile_give_swizzle_333() -> None:
    """Eight 16-byte rows, 128 bytes apart, read together: the classic swizzle<3,3,3>."""
    cons = constraints([_rows(c * 8, 64) for c in range(8)], 16)
    bases, broken = solve_bases(cons, 2, 16)
    assert broken == 0
    assert as_swizzle(bases) == Swizzle(3, 3, 3)


def test_rows_of_32_bytes_need_one_base() -> None:
    """f32 rows of 8 elements: eight lanes' 128-bit rows span two bank lines."""
    cons = constraints([_rows(h * 4, 8) for h in range(2)], 16)
    bases, broken = solve_bases(cons, 4, 16)
    assert broken == 0 and as_swizzle(bases) == Swizzle(2, 1, 3)


def _brute_force_exists(cons: set[Constraint], eb: int, widest: int) -> bool:
    lo, hi = target_bits(eb, widest)
    sources = sorted({b for c in cons for b in range(hi, c.delta.bit_length())
                      if c.delta >> b & 1})
    masks = [m << lo for m in range(1 << (hi - lo))]
    return any(not violations(cons, dict(zip(sources, choice, strict=True)), eb)
               for choice in product(masks, repeat=len(sources)))


@pytest.mark.parametrize("seed", range(12))
def test_solver_finds_a_conflict_free_map_whenever_one_exists(seed: int) -> None:
    rng = random.Random(seed)
    eb, access = rng.choice([(2, 16), (4, 16), (4, 8)])
    pitch = rng.choice([32, 64, 128]) // eb * rng.choice([1, 2])
    groups = [[rng.randrange(4) * pitch * 8 + r * pitch * rng.choice([1, 3])
               for r in range(128 // access)] for _ in range(2)]
    _, hi = target_bits(eb, access)  # at most 3 source bits: a brute force of 8^3 maps
    cons = {c for c in constraints(groups, access) if c.delta.bit_length() <= hi + 3}
    bases, _ = solve_bases(cons, eb, access)
    in_line = [c for c in cons if c.delta < 128 // eb]  # beyond any swizzle's reach
    if _brute_force_exists({c for c in cons if c not in in_line}, eb, access):
        assert violations([c for c in cons if c not in in_line], bases, eb) == 0


def test_as_swizzle_prints_the_general_form_when_no_swizzle_fits() -> None:
    assert as_swizzle({}) is None
    assert as_swizzle({5: 4, 6: 8}) == Swizzle(2, 2, 3)
    assert as_swizzle({5: 4, 6: 4}) == XorSwizzle(((5, 4), (6, 4)))


def test_row_major_and_padded_candidates() -> None:
    assert str(row_major((3, 128, 64))) == "(3,128,64):(8192,64,1)"
    assert str(row_major((3, 128, 64), 8)) == "(3,128,64):(9216,72,1)"
    assert padded_pitches((128, 64), 2) == [2, 4, 8]
    assert padded_pitches((64,), 2) == []
