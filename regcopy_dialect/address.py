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
emits ``arith`` ops (``lower-layout-access``). The mixed-radix helpers (``idx2crd``,
``crd2idx``, ``suffix_product``, ``place_digit``, ``swizzle``; one definition each) live in
``regcopy_dialect.radix`` and are re-exported here. ``AddressMap`` is a buffer's addressing
precomputed once (what the interpreter holds per buffer).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

from regcopy_dialect.index_math import IndexMath
from regcopy_dialect.layout import Iter, Layout, group, merge_contiguous
from regcopy_dialect.xor_map import XorMap
from regcopy_dialect.radix import (  # noqa: F401 (the helpers are re-exported from here)
    crd2idx,
    digit,
    div,
    idx2crd,
    place_digit,
    rem,
    suffix_product,
    swizzle,
)

V = TypeVar("V")


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
    swizzle: XorMap | None = None

    def _check_rank(self, indices: Sequence[object]) -> None:
        if len(indices) != self.rank:
            raise ValueError(f"{len(indices)} indices for a rank-{self.rank} buffer")

    def offset(self, math: IndexMath[V], indices: Sequence[V | int]) -> V | int:
        """``swizzle(sum(digit * stride))`` over the memory terms (``physical_offset``)."""
        self._check_rank(indices)
        m = crd2idx(math, [t.digit(math, indices) for t in self.memory],  # type: ignore[arg-type]  # mypy binds V to V | int (see IndexMath)
                    [t.stride for t in self.memory])
        return m if self.swizzle is None else swizzle(math, m, self.swizzle)  # type: ignore[arg-type]  # mypy binds V to V | int (see IndexMath)

    def owner(self, math: IndexMath[V], indices: Sequence[V | int]) -> dict[str, V | int]:
        """Per thread axis, ``sum(digit * stride)`` over its terms (``thread_coords``)."""
        self._check_rank(indices)
        return {axis: crd2idx(math, [t.digit(math, indices) for t in terms],  # type: ignore[arg-type]  # mypy binds V to V | int (see IndexMath)
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
