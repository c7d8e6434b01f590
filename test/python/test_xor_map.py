"""General XOR swizzles (``xor<i:b, ...>``) and ``swizzle<M,B,S>`` as one instance of them."""

from __future__ import annotations

import pytest

from regcopy_dialect import LayoutSyntaxError, parse_layout
from regcopy_dialect.index_math import INT_MATH
from regcopy_dialect.layout import Swizzle
from regcopy_dialect.radix import swizzle
from regcopy_dialect.xor_map import Field, XorSwizzle, fields_of


def _old_swizzle(m: int, sw: Swizzle) -> int:
    """The map as it was written before the general form: one shifted field."""
    return m ^ (((m >> (sw.m_base + sw.shift)) & ((1 << sw.bits) - 1)) << sw.m_base)


@pytest.mark.parametrize("mbs", [(3, 3, 3), (2, 3, 3), (0, 2, 4), (4, 1, 1), (1, 0, 2)])
def test_swizzle_is_one_field_of_the_general_map(mbs: tuple[int, int, int]) -> None:
    sw = Swizzle(*mbs)
    m, b, s = mbs
    assert sw.fields == ((Field(m + s, b, m),) if b else ())
    general = XorSwizzle(sw.bases)
    for x in range(1 << 12):
        assert sw.apply(x) == general.apply(x) == _old_swizzle(x, sw)
    assert general.read_end == sw.read_end or b == 0


def test_fields_group_runs_by_shift() -> None:
    assert fields_of(((6, 8), (7, 16), (8, 32))) == (Field(6, 3, 3),)
    # bit 5 flips bits 0 and 2: two shifts, two fields
    assert fields_of(((5, 5),)) == (Field(5, 1, 0), Field(5, 1, 2))


@pytest.mark.parametrize("bases", [((5, 4), (6, 8), (7, 3)), ((3, 7), (9, 256)), ((4, 1),)])
def test_general_map_is_a_bijection_of_each_period(bases: tuple[tuple[int, int], ...]) -> None:
    sw = XorSwizzle(bases)
    images = {sw.apply(x) for x in range(sw.period)}
    assert images == set(range(sw.period))
    assert all(int(swizzle(INT_MATH, x, sw)) == sw.apply(x) for x in range(64))


def test_xor_form_parses_and_prints() -> None:
    layout = parse_layout("(32,32):(32,1), xor<7:16, 5:4, 6:8>")
    assert layout.swizzle == XorSwizzle(((5, 4), (6, 8), (7, 16)))
    assert str(layout) == "(32,32):(32,1), xor<5:4, 6:8, 7:16>"


@pytest.mark.parametrize("text, message", [
    ("xor<5:32>", r"xor base 5:32 must flip only bits below bit 5"),
    ("xor<5:0>", r"must flip only bits below"),
    ("xor<5:1, 5:2>", "offset bit 5 is given twice"),
    ("xor<40:1>", "the bit must be in 0..31"),
    ("xor<5>", "between an xor base's offset bit and its mask"),
])
def test_xor_form_errors(text: str, message: str) -> None:
    with pytest.raises(LayoutSyntaxError, match=message) as info:
        parse_layout(f"(32,32):(32,1), {text}")
    assert "Traceback" not in str(info.value)
