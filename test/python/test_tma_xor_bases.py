"""``transfer=tma`` with a shared tile laid out by general ``xor<...>`` bases: TMA has no such
mode, so the copy is refused with the reason (it used to stop the pass with an
``AttributeError``: the TMA planner read ``swizzle<M,B,S>`` fields off every XOR map)."""

from __future__ import annotations

from regcopy_dialect import parse_layout
from regcopy_passes.tma.plan import SwizzleMode, swizzle_mode


def test_general_xor_bases_have_no_tma_mode_and_say_why() -> None:
    xor = parse_layout("(64,64):(64,1), xor<6:8, 8:16>").swizzle
    why = swizzle_mode(xor, 2)
    assert isinstance(why, str)
    assert why.startswith("layout is not a TMA swizzle: xor<6:8, 8:16> on 2-byte elements")
    assert "swizzle<3,3,3> (128B)" in why


def test_xor_bases_equal_to_a_tma_swizzle_take_its_mode() -> None:
    """``swizzle<3,3,3>`` written as its bases (``M+S+j : 2^(M+j)``) is the 128-byte mode."""
    xor = parse_layout("(64,64):(64,1), xor<6:8, 7:16, 8:32>").swizzle
    assert swizzle_mode(xor, 2) == SwizzleMode.B128
    assert swizzle_mode(parse_layout("(64,64):(64,1)").swizzle, 2) == SwizzleMode.NONE
