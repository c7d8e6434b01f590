"""Row-major mixed-radix arithmetic, written once over ``IndexMath``: pure Python.

A row-major radix with extents ``(E_0, ..., E_{n-1})`` (last fastest) has the place values
``Q_k = E_{k+1} * ... * E_{n-1}`` (``suffix_product``). An index ``x`` in ``[0, prod(E))``
has the digits ``c_k = (x / Q_k) % E_k`` (``idx2crd``; the outermost digit needs no ``%``)
and ``x = sum(c_k * Q_k)`` (``crd2idx`` with the place values as strides). A layout's
offset is the same ``crd2idx`` with the layout's strides instead of the place values.

Every function takes an ``IndexMath`` first: ``INT_MATH`` evaluates on Python integers (the
layout algebra, the interpreter, the tests), the pass's ``IndexBuilder`` emits ``arith``
ops. Constants are plain ``int`` and fold. Indices are non-negative, so a division or
remainder by a power of two is the shift or mask ``x >> k`` / ``x & (2^k - 1)``.

The names follow CUTLASS's pycute (``idx2crd``, ``crd2idx``; ``suffix_product`` is its
``prefix_product`` for row-major radices).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from regcopy_dialect.index_math import IndexMath


class XorField(Protocol):
    """One field of an XOR map: bits ``[src, src+width)`` XORed into ``[dst, dst+width)``."""

    @property
    def src(self) -> int: ...

    @property
    def width(self) -> int: ...

    @property
    def dst(self) -> int: ...


class XorFields(Protocol):
    """What ``swizzle`` reads of an XOR map (``xor_map.XorMap``, which imports this module)."""

    @property
    def fields(self) -> Sequence[XorField]: ...


V = TypeVar("V")


def suffix_product(extents: Sequence[int]) -> tuple[int, ...]:
    """The row-major place values of a mixed radix: ``out[k] = prod(extents[k+1:])``.

    pycute's ``prefix_product`` is for a column-major (first-fastest) radix; ours is
    row-major (last fastest): ``suffix_product((4, 2, 8)) == (16, 8, 1)``."""
    out = [1] * len(extents)
    for k in range(len(extents) - 2, -1, -1):
        out[k] = out[k + 1] * extents[k + 1]
    return tuple(out)


def _log2(k: int) -> int | None:
    """``log2(k)`` when ``k`` is a power of two, else None."""
    return k.bit_length() - 1 if k > 0 and k & (k - 1) == 0 else None


def div(math: IndexMath[V], a: V | int, k: int, shifts: bool = True) -> V | int:
    """``a / k`` for ``a >= 0``: a right shift when ``k`` is a power of two (and ``shifts``)."""
    if k == 1:
        return a
    shift = _log2(k) if shifts else None
    return math.div(a, k) if shift is None else math.shr(a, shift)


def rem(math: IndexMath[V], a: V | int, k: int, shifts: bool = True) -> V | int:
    """``a % k`` for ``a >= 0``: a mask when ``k`` is a power of two (and ``shifts``)."""
    shift = _log2(k) if shifts else None
    return math.rem(a, k) if shift is None else math.and_(a, k - 1)


def place_digit(math: IndexMath[V], index: V | int, place: int, extent: int, outermost: bool,
                shifts: bool = True) -> V | int:
    """The digit ``(index / place) % extent``, without the remainder for the outermost digit.

    With ``shifts`` (the default) powers of two become shifts and masks; without, the
    division and remainder are kept as written (the round counter of a copy's loop is
    decoded that way, which keeps its emitted IR as it has always been)."""
    q = div(math, index, place, shifts)
    return q if outermost else rem(math, q, extent, shifts)  # type: ignore[arg-type]  # mypy binds V to V | int (see IndexMath)


def digit(math: IndexMath[V], index: V | int, extents: Sequence[int], k: int) -> V | int:
    """Digit ``k`` of ``index`` in the row-major radix ``extents``:
    ``c_k = (index / Q_k) % E_k`` with ``Q = suffix_product(extents)``."""
    return place_digit(math, index, suffix_product(extents)[k], extents[k], k == 0)


def idx2crd(math: IndexMath[V], index: V | int, extents: Sequence[int]
            ) -> tuple[V | int, ...]:
    """All digits ``(c_0, ..., c_{n-1})`` of ``index`` in the row-major radix ``extents``
    (outermost first): the inverse of ``crd2idx`` with the radix's place values."""
    places = suffix_product(extents)
    return tuple(place_digit(math, index, q, e, k == 0)  # type: ignore[arg-type]  # mypy binds V to V | int (see IndexMath)
                 for k, (q, e) in enumerate(zip(places, extents, strict=True)))


def crd2idx(math: IndexMath[V], coords: Sequence[V | int], strides: Sequence[int]
            ) -> V | int:
    """``sum(c_k * s_k)``: constants fold into one term, added last (``base + 5``)."""
    const = 0
    total: V | int = 0
    for c, s in zip(coords, strides, strict=True):
        if isinstance(c, int):
            const += c * s
        elif s:
            total = math.add(total, math.mul(c, s))
    return math.add(total, const)


def swizzle(math: IndexMath[V], m: V | int, sw: XorFields) -> V | int:
    """The XOR swizzle ``sw`` of the offset ``m``: ``m ^ XOR_f (((m >> src) & (2^w - 1)) << dst)``
    over its fields (``xor_map.fields_of``). ``swizzle<M,B,S>`` is its one field
    ``(M+S, B, M)``: ``m ^ (((m >> (M + S)) & (2^B - 1)) << M)``, bits ``[M, M+B)`` XORed
    with bits ``[M+S, M+S+B)``; chunks of ``2^M`` elements stay contiguous and the map is its
    own inverse."""
    out = m
    for f in sw.fields:
        bits = math.and_(math.shr(m, f.src), (1 << f.width) - 1)
        out = math.xor(out, math.shl(bits, f.dst))
    return out
