"""The swizzle's written forms: positional swizzle<M,B,S>, keywords in any order, and the
note for text that CuTe (Swizzle<B,M,S>) would read as another swizzle."""

from __future__ import annotations

import pytest

from regcopy_dialect import LayoutSyntaxError, parse_layout
from regcopy_dialect.layout import Swizzle
from regcopy_dialect.swizzle_syntax import cute_order_note


@pytest.mark.parametrize("text", [
    "swizzle<bits = 3, base = 2, shift = 4>",
    "swizzle<shift = 4, bits = 3, base = 2>",
    "swizzle<base=2,shift=4,bits=3>",
    "swizzle<2,3,4>",
])
def test_keyword_and_positional_forms_agree(text: str) -> None:
    layout = parse_layout(f"(128,64):(64,1), {text}")
    assert layout.swizzle == Swizzle(m_base=2, bits=3, shift=4)
    assert str(layout) == "(128,64):(64,1), swizzle<2,3,4>"  # printed positionally


@pytest.mark.parametrize("text, message", [
    ("swizzle<bits = 3, base = 2>", "swizzle is missing 'shift'; all three keywords"),
    ("swizzle<bits = 3>", "swizzle is missing 'base', 'shift'"),
    ("swizzle<bit = 3, base = 2, shift = 3>", "unknown swizzle parameter 'bit'"),
    ("swizzle<base = 3, base = 2, shift = 3>", "swizzle parameter 'base' is given twice"),
    ("swizzle<2, bits = 3, shift = 3>", "all positional <M,B,S> or all keywords"),
    ("swizzle<bits = 3, base = 2, shift = 1>", r"swizzle<2,3,1> needs M, B, S >= 0, S >= B"),
])
def test_keyword_form_errors(text: str, message: str) -> None:
    with pytest.raises(LayoutSyntaxError, match=message) as info:
        parse_layout(f"(128,64):(64,1), {text}")
    assert "Traceback" not in str(info.value)


def test_cute_order_note_names_both_readings() -> None:
    note = cute_order_note(Swizzle(2, 3, 3))
    assert note is not None and "\n" not in note
    assert "base M = 2, bits B = 3, shift S = 3" in note
    assert "CuTe's Swizzle<2,3,3> would be bits 2, base 3, i.e. swizzle<3,2,3>" in note
    assert "swizzle<bits = 3, base = 2, shift = 3>" in note
    # the suggested keyword form parses to the swizzle meant here
    keyword = note[note.index("swizzle<bits"):].split(">")[0] + ">"
    assert parse_layout(f"(64,64):(64,1), {keyword}").swizzle == Swizzle(2, 3, 3)


@pytest.mark.parametrize("swz", [
    Swizzle(3, 3, 3),  # symmetric: both readings agree
    Swizzle(0, 0, 0),
    Swizzle(1, 4, 4),  # CuTe reading Swizzle<1,4,4> = swizzle<4,1,4>: valid, so noted below
])
def test_cute_order_note_none_or_one_line(swz: Swizzle) -> None:
    note = cute_order_note(swz)
    if swz.m_base == swz.bits:
        assert note is None
    else:
        assert note is not None and "\n" not in note


def test_cute_order_note_none_when_the_cute_reading_is_invalid() -> None:
    # read as CuTe's <B,M,S>: bits 4 > shift 3, not a valid swizzle, so no confusion
    assert cute_order_note(Swizzle(4, 3, 3)) is None
    assert cute_order_note(Swizzle(5, 0, 4)) is None  # CuTe: bits 5 > shift 4
