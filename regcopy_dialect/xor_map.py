"""XOR swizzles of a memory offset: one bit-linear (GF(2)) map, two written forms.

A swizzle of a shared buffer's element offset ``m`` is::

    phys(m) = m ^ (XOR of base_i over the set bits i of m)

given by its *bases*: pairs ``(i, base_i)``, offset bit ``i`` and the mask it XORs in
(Triton's ``shared_linear`` layouts give the same bases per offset bit). Every base flips
only bits below its own (``base_i < 2^i``): the map is then unitriangular over GF(2), so it
is a bijection of every aligned block of ``2^k`` offsets (injective by construction) and a
buffer's span only rounds up to whole periods ``2^read_end``.

``swizzle<M,B,S>`` is the instance with bases ``(M+S+j, 2^(M+j))`` for ``j < B``;
``xor<i:b, ...>`` (``XorSwizzle``) writes any bases. Both are evaluated, emitted and
reasoned about through ``fields``: the map as a few shifted bit fields,
``phys(m) = m ^ XOR_f (((m >> src_f) & (2^width_f - 1)) << dst_f)`` (``radix.swizzle``),
which for ``swizzle<M,B,S>`` is its one field ``(M+S, B, M)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, cast

from regcopy_dialect.index_math import INT_MATH
from regcopy_dialect.radix import swizzle


@dataclass(frozen=True)
class Field:
    """``((m >> src) & (2^width - 1)) << dst``: bits ``[src, src+width)`` of the offset,
    XORed into bits ``[dst, dst+width)``."""

    src: int
    width: int
    dst: int


def bases_problem(bases: tuple[tuple[int, int], ...]) -> str | None:
    """Why ``bases`` are not valid XOR bases, or None: each offset bit ``0 <= i < 32``
    appears once, with a mask ``0 < base < 2^i`` (a base flips only lower bits)."""
    seen: set[int] = set()
    for bit, base in bases:
        if not 0 <= bit < 32:
            return f"xor base for offset bit {bit}: the bit must be in 0..31"
        if bit in seen:
            return f"xor base for offset bit {bit} is given twice"
        if not 0 < base < (1 << bit):
            return (f"xor base {bit}:{base} must flip only bits below bit {bit} "
                    f"(0 < base < {1 << bit}), which keeps the map a bijection")
        seen.add(bit)
    return None


@lru_cache(maxsize=1024)
def fields_of(bases: tuple[tuple[int, int], ...]) -> tuple[Field, ...]:
    """The bases as shifted bit fields: every pair (source bit ``i``, target bit ``j``) of
    the map, grouped by shift ``i - j`` into runs of consecutive source bits, ordered by
    target bit. ``((6, 8), (7, 16), (8, 32))`` is the one field ``Field(6, 3, 3)``. A pure
    function of the bases, computed once per distinct map (every swizzled offset asks)."""
    pairs = sorted((i - j, i) for i, b in bases for j in range(i) if b >> j & 1)
    out: list[Field] = []
    for shift, i in pairs:
        last = out[-1] if out else None
        if last is not None and last.src - last.dst == shift and last.src + last.width == i:
            out[-1] = Field(last.src, last.width + 1, last.dst)
        else:
            out.append(Field(i, 1, i - shift))
    return tuple(sorted(out, key=lambda f: (f.dst, f.src)))


class XorMap:
    """What every XOR swizzle shares (``Swizzle``, ``XorSwizzle``): subclasses give
    ``bases``; the fields, evaluation, chunk and period follow from them."""

    @property
    def bases(self) -> tuple[tuple[int, int], ...]:
        raise NotImplementedError

    @property
    def fields(self) -> tuple[Field, ...]:
        return fields_of(self.bases)

    def apply(self, m: int) -> int:
        """``phys(m)`` on integers (``radix.swizzle``, the one definition of the map)."""
        return int(swizzle(cast(Any, INT_MATH), m, self))  # IntMath: IndexMath on ints

    @property
    def read_end(self) -> int:
        """One past the highest offset bit the map reads; it changes no bit at or above."""
        return max((i + 1 for i, _ in self.bases), default=0)

    @property
    def chunk(self) -> int:
        """Elements kept contiguous: ``2^(lowest bit any base flips)``."""
        low = min(((b & -b).bit_length() - 1 for _, b in self.bases), default=31)
        return 1 << low

    @property
    def period(self) -> int:
        """``2^read_end``: the map permutes every aligned block of this many offsets."""
        return 1 << self.read_end


@dataclass(frozen=True)
class XorSwizzle(XorMap):
    """``xor<i:b, ...>``: offset bit ``i`` XORs ``b`` into the offset (see module doc).
    ``bases`` are kept sorted by offset bit."""

    xor_bases: tuple[tuple[int, int], ...]

    @property
    def bases(self) -> tuple[tuple[int, int], ...]:
        return self.xor_bases

    def __str__(self) -> str:
        return "xor<" + ", ".join(f"{i}:{b}" for i, b in self.xor_bases) + ">"
