"""The written forms of a swizzle, and a note for readers used to CuTe's parameter order.

A layout's swizzle is written positionally as ``swizzle<M,B,S>`` (base, bits, shift) or with
keywords, in any order, as ``swizzle<bits = B, base = M, shift = S>``. Both denote the map
``m ^ (((m >> (M + S)) & (2^B - 1)) << M)``: bits ``[M, M+B)`` of the offset are XORed with
bits ``[M+S, M+S+B)``. It is printed positionally, ``swizzle<M,B,S>``.

CuTe writes the same map ``Swizzle<B,M,S>``: bits first. So the text ``swizzle<2,3,3>``
means base 2, bits 3 here but bits 2, base 3 in CuTe; ``cute_order_note`` says so when the two
readings are both valid and differ, and the keyword form removes the doubt.
"""

from __future__ import annotations

from xdsl.parser import AttrParser

from regcopy_dialect.layout import Swizzle
from regcopy_dialect.xor_map import XorMap, XorSwizzle, bases_problem

KEYWORDS = {"bits": "B", "base": "M", "shift": "S"}
"""The keyword of each swizzle parameter, and the letter it has in ``swizzle<M,B,S>``."""

_KEYWORD_FORM = "swizzle<bits = B, base = M, shift = S>"


def swizzle_problem(m: int, b: int, s: int) -> str | None:
    """Why ``swizzle<m,b,s>`` is not a valid swizzle, or None. Its parameters must be
    non-negative, the shift at least the bits (else the XORed bit ranges overlap) and the
    touched bits inside 32 (``M + B + S <= 32``)."""
    if min(m, b, s) < 0 or s < b or m + b + s > 32:
        return f"swizzle<{m},{b},{s}> needs M, B, S >= 0, S >= B and M + B + S <= 32"
    return None


def parse_swizzle(parser: AttrParser, start: int) -> Swizzle:
    """Parse ``<M,B,S>`` or ``<bits = B, base = M, shift = S>`` (keywords in any order, all
    three required) after the keyword ``swizzle``, which begins at ``start``. Every error is
    a one-line parse error."""
    params = parser.parse_comma_separated_list(parser.Delimiter.ANGLE,
                                               lambda: _parse_param(parser))
    named = [p for p in params if p[0] is not None]
    if not named:
        if len(params) != 3:
            parser.raise_error(f"swizzle takes three parameters <M,B,S>, got {len(params)}",
                               start, parser.pos)
        m, b, s = (value for _, value, _ in params)
    else:
        if len(named) != len(params):
            parser.raise_error("swizzle parameters are all positional <M,B,S> or all keywords "
                               f"{_KEYWORD_FORM}, not a mix", start, parser.pos)
        given: dict[str, int] = {}
        for name, value, at in named:
            assert name is not None
            if name not in KEYWORDS:
                parser.raise_error(f"unknown swizzle parameter '{name}'; expected "
                                   f"{_KEYWORD_FORM}", at, at + len(name))
            if name in given:
                parser.raise_error(f"swizzle parameter '{name}' is given twice", at,
                                   at + len(name))
            given[name] = value
        if missing := [k for k in KEYWORDS if k not in given]:
            parser.raise_error(f"swizzle is missing {', '.join(map(repr, missing))}; all three "
                               f"keywords are required: {_KEYWORD_FORM}", start, parser.pos)
        m, b, s = given["base"], given["bits"], given["shift"]
    if (problem := swizzle_problem(m, b, s)) is not None:
        parser.raise_error(problem, start, parser.pos)
    return Swizzle(m, b, s)


def parse_xor(parser: AttrParser, start: int) -> XorSwizzle:
    """Parse ``<i:b, ...>`` after the keyword ``xor`` (which begins at ``start``): offset bit
    ``i`` XORs the mask ``b`` into the offset. Bases are kept sorted by bit; every error is a
    one-line parse error (``xor_map.bases_problem``)."""
    def base() -> tuple[int, int]:
        bit = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(":", " between an xor base's offset bit and its mask")
        return bit, parser.parse_integer(allow_boolean=False)

    bases = parser.parse_comma_separated_list(parser.Delimiter.ANGLE, base)
    if not bases:
        parser.raise_error("xor<...> needs at least one base 'bit:mask' (drop it for no "
                           "swizzle)", start, parser.pos)
    if (problem := bases_problem(tuple(bases))) is not None:
        parser.raise_error(problem, start, parser.pos)
    return XorSwizzle(tuple(sorted(bases)))


def _parse_param(parser: AttrParser) -> tuple[str | None, int, int]:
    """One parameter: ``(keyword or None, value, position of the parameter)``."""
    at = parser.pos
    name = parser.parse_optional_identifier()
    if name is not None:
        parser.parse_punctuation("=", f" after swizzle parameter '{name}'")
    return name, parser.parse_integer(allow_boolean=False), at


def cute_order_note(swz: XorMap) -> str | None:
    """A one-line note when the positional text of ``swz``, read in CuTe's order
    ``Swizzle<B,M,S>``, is a valid but different swizzle; None when that reading is invalid
    or the same (``M == B``), and for an ``xor<...>`` swizzle."""
    if not isinstance(swz, Swizzle):
        return None
    m, b, s = swz.m_base, swz.bits, swz.shift
    cute = Swizzle(b, m, s)  # the text <m,b,s> read as CuTe's <B,M,S>: bits m, base b
    if m == b or swizzle_problem(b, m, s) is not None:
        return None
    return (f"{swz} is base M = {m}, bits B = {b}, shift S = {s} (regcopy's order "
            f"swizzle<M,B,S>); CuTe's Swizzle<{m},{b},{s}> would be bits {m}, base {b}, i.e. "
            f"{cute}. Write swizzle<bits = {b}, base = {m}, shift = {s}> to make the order "
            "explicit")
