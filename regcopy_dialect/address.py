"""Layout -> address arithmetic, written once over ``IndexMath``: pure Python, no xDSL imports.

A buffer of shape ``(N_0, ..., N_{r-1})`` with layout ``L`` (its ``#regcopy.layout``, or
row-major) stores the element at logical indices ``(i_0, ..., i_{r-1})`` at::

    physical_offset = swizzle( sum_d  crd2idx(idx2crd(i_d, E_d), S_d) )     (memory iters only)

where ``L``'s iters are grouped against the shape (``layout.group``), dim ``d``'s group has
extents ``E_d`` and strides ``S_d``, and ``idx2crd`` decodes ``i_d`` row-major (last iter
fastest) into the group's digits. Thread-axis iters are left out of the offset (a ``local``
buffer is accessed by the thread that owns the element, so only its register slot counts);
they give the owner instead (``thread_coords``).

Every function takes an ``IndexMath`` first (``regcopy_dialect.index_math``): ``INT_MATH``
evaluates on Python integers (the CPU interpreter, tests), the pass's ``IndexBuilder``
emits ``arith`` ops (``lower-layout-access``). Constants are plain ``int`` and fold. Indices
are non-negative and in range, so a digit's division and remainder by a power of two are the
shift and mask ``x >> k`` / ``x & (2^k - 1)`` (one instruction each in SASS), and the
outermost digit needs no remainder.

The helpers follow CUTLASS's pycute (``idx2crd``, ``crd2idx``; ``suffix_product`` is its
``prefix_product`` for row-major radices); ``AddressMap`` is a buffer's addressing precomputed
once (what the interpreter holds per buffer).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

from regcopy_dialect.index_math import IndexMath
from regcopy_dialect.layout import Iter, Layout, Swizzle, group, merge_contiguous

V = TypeVar("V")


# --------------------------------------------------------------------------------------------
# Mixed-radix helpers
# --------------------------------------------------------------------------------------------


def suffix_product(extents: Sequence[int]) -> tuple[int, ...]:
    """The row-major place values of a mixed radix: ``out[k] = prod(extents[k+1:])``.

    pycute's ``prefix_product`` for a column-major (first-fastest) radix; ours is row-major
    (last fastest): ``suffix_product((4, 2, 8)) == (16, 8, 1)``."""
    out = [1] * len(extents)
    for k in range(len(extents) - 2, -1, -1):
        out[k] = out[k + 1] * extents[k + 1]
    return tuple(out)


def _log2(k: int) -> int | None:
    """``log2(k)`` when ``k`` is a power of two, else None."""
    return k.bit_length() - 1 if k > 0 and k & (k - 1) == 0 else None


def div(math: IndexMath[V], a: V | int, k: int) -> V | int:
    """``a / k`` for ``a >= 0``: a right shift when ``k`` is a power of two."""
    if k == 1:
        return a
    shift = _log2(k)
    return math.div(a, k) if shift is None else math.shr(a, shift)


def rem(math: IndexMath[V], a: V | int, k: int) -> V | int:
    """``a % k`` for ``a >= 0``: a mask when ``k`` is a power of two."""
    shift = _log2(k)
    return math.rem(a, k) if shift is None else math.and_(a, k - 1)


def digit(math: IndexMath[V], index: V | int, extents: Sequence[int], k: int) -> V | int:
    """Digit ``k`` of ``index`` in the row-major radix ``extents``:
    ``c_k = (index / Q_k) % E_k`` with ``Q = suffix_product(extents)``; the outermost digit is
    ``index / Q_0`` (an index in ``[0, prod(extents))`` needs no remainder there)."""
    return place_digit(math, index, suffix_product(extents)[k], extents[k], k == 0)


def place_digit(math: IndexMath[V], index: V | int, place: int, extent: int, outermost: bool
           ) -> V | int:
    """``(index / place) % extent``, without the remainder for the outermost digit (shifts
    and masks for powers of two)."""
    q = div(math, index, place)
    return q if outermost else rem(math, q, extent)


def idx2crd(math: IndexMath[V], index: V | int, extents: Sequence[int]
            ) -> tuple[V | int, ...]:
    """All digits ``(c_0, ..., c_{n-1})`` of ``index`` in the row-major radix ``extents``
    (``digit`` for each ``k``): the inverse of ``crd2idx`` with the radix's place values."""
    return tuple(digit(math, index, extents, k) for k in range(len(extents)))


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


def swizzle(math: IndexMath[V], m: V | int, sw: Swizzle) -> V | int:
    """SPEC §2.1's ``swizzle<M,B,S>`` as ``m ^ (((m >> (M + S)) & (2^B - 1)) << M)``.

    Equal to ``Swizzle.apply``: ``g(x) = x ^ ((x & ((2^B-1) << S)) >> S)`` on ``x = m >> M``
    changes only bits ``[M, M+B)`` of ``m``, by the bits ``[M+S, M+S+B)``."""
    if sw.bits == 0:
        return m
    bits = math.and_(math.shr(m, sw.m_base + sw.shift), (1 << sw.bits) - 1)
    return math.xor(m, math.shl(bits, sw.m_base))


# --------------------------------------------------------------------------------------------
# Buffer addressing
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def dim_iters(layout: Layout, shape: tuple[int, ...]
              ) -> tuple[tuple[tuple[Iter, int], ...], ...]:
    """Per dim of ``shape``, the iters of ``layout`` (swizzle dropped) that decode its index,
    each with its place value in the dim (``suffix_product`` of the group's extents):
    ``group``'s groups with contiguous neighbours merged (``(4,2):(8,4)`` is ``8:4``), which
    leaves the map unchanged and saves a digit. Raises ``LayoutError`` when the layout does
    not group against the shape."""
    out: list[tuple[tuple[Iter, int], ...]] = []
    for members in group(layout.without_swizzle(), shape):
        iters = merge_contiguous(Layout(members)).iters
        out.append(tuple(zip(iters, suffix_product([i.extent for i in iters]), strict=True)))
    return tuple(out)


@dataclass(frozen=True)
class Term:
    """One iter's share of an address: ``digit * stride`` with ``digit = (i_dim / place) %
    extent`` (no remainder when ``outermost``), on thread axis ``axis`` (None: memory)."""

    dim: int
    place: int
    extent: int
    outermost: bool
    stride: int
    axis: str | None

    def digit(self, math: IndexMath[V], indices: Sequence[V | int]) -> V | int:
        """The digit (not yet scaled by the stride)."""
        return place_digit(math, indices[self.dim], self.place, self.extent, self.outermost)


@dataclass(frozen=True)
class AddressMap:
    """A buffer's addressing, precomputed from its layout and shape (``address_map``):
    the memory terms (zero strides dropped), the thread terms per axis, the swizzle."""

    rank: int
    memory: tuple[Term, ...]
    threads: tuple[tuple[str, tuple[Term, ...]], ...]
    swizzle: Swizzle | None = None

    def _check_rank(self, indices: Sequence[object]) -> None:
        if len(indices) != self.rank:
            raise ValueError(f"{len(indices)} indices for a rank-{self.rank} buffer")

    def offset(self, math: IndexMath[V], indices: Sequence[V | int]) -> V | int:
        """``swizzle(sum(digit * stride))`` over the memory terms (``physical_offset``)."""
        self._check_rank(indices)
        m = crd2idx(math, [t.digit(math, indices) for t in self.memory],
                    [t.stride for t in self.memory])
        return m if self.swizzle is None else swizzle(math, m, self.swizzle)

    def owner(self, math: IndexMath[V], indices: Sequence[V | int]) -> dict[str, V | int]:
        """Per thread axis, ``sum(digit * stride)`` over its terms (``thread_coords``)."""
        self._check_rank(indices)
        return {axis: crd2idx(math, [t.digit(math, indices) for t in terms],
                              [t.stride for t in terms])
                for axis, terms in self.threads}


@lru_cache(maxsize=4096)
def address_map(layout: Layout, shape: tuple[int, ...]) -> AddressMap:
    """The ``AddressMap`` of a buffer of ``shape`` with ``layout`` (see ``dim_iters``).
    A thread axis whose iters all have extent 1 is kept with no terms: it pins the owner's
    value to 0, as ``layout.ownership`` reads it."""
    memory: list[Term] = []
    threads: dict[str, list[Term]] = {it.axis: [] for it in layout.thread_iters
                                      if it.axis is not None}
    for d, iters in enumerate(dim_iters(layout, shape)):
        for k, (it, place) in enumerate(iters):
            term = Term(d, place, it.extent, k == 0, it.stride, it.axis)
            if it.axis is not None:
                threads[it.axis].append(term)
            elif it.stride:
                memory.append(term)
    return AddressMap(len(shape), tuple(memory),
                      tuple((a, tuple(ts)) for a, ts in threads.items()), layout.swizzle)


def physical_offset(math: IndexMath[V], layout: Layout, shape: Sequence[int],
                    indices: Sequence[V | int]) -> V | int:
    """The element offset, inside a buffer's flat storage, of the logical ``indices``:
    ``swizzle(sum over memory iters of digit * stride)`` (see the module doc). For a
    ``local`` buffer this is the register slot in the owner thread (thread iters dropped)."""
    return address_map(layout, tuple(shape)).offset(math, indices)


def thread_coords(math: IndexMath[V], layout: Layout, shape: Sequence[int],
                  indices: Sequence[V | int]) -> dict[str, V | int]:
    """The owner of the logical ``indices``: per thread axis of ``layout``, the sum of
    ``digit * stride`` over its iters on that axis (empty for a layout without thread axes).
    An axis whose iters all have extent 1 is pinned: its value is 0."""
    return address_map(layout, tuple(shape)).owner(math, indices)
