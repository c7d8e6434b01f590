"""Buffers of the CPU interpreter and the ownership table of a reference ``regcopy.copy``.

A buffer is a ``Buffer``: its memref type and a flat Python list of its physical span (for
``local``: one thread's registers). Copies never reinterpret bits, so holding elements as plain
Python values is exact, and any value (ints, floats, tags) traces where each element went.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import product
from math import prod
from typing import Any, cast

from xdsl.dialects.builtin import MemRefType, NoneAttr
from xdsl.ir import SSAValue
from xdsl.utils.exceptions import InterpretationError

from regcopy_dialect.address import AddressMap, address_map
from regcopy_dialect.index_math import INT_MATH
from regcopy_dialect.layout import Layout
from regcopy_dialect.regcopy import CopyOp, LayoutAttr, MemSpace, buffer_layout, memory_space

# --------------------------------------------------------------------------------------------
# Buffers
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=None)
def layout_of(t: MemRefType) -> Layout:
    """The layout that maps a logical index of ``t`` to its element (row-major by default)."""
    if not isinstance(t.layout, LayoutAttr | NoneAttr):
        raise InterpretationError(f"memref layout {t.layout} is not supported by the regcopy "
                                  "interpreter (use a #regcopy.layout or none)")
    return buffer_layout(t)


@lru_cache(maxsize=None)
def address_of(t: MemRefType) -> AddressMap:
    """The addressing of a buffer of type ``t`` (``address.address_map`` of its layout)."""
    return address_map(layout_of(t), tuple(t.get_shape()))


def is_local(t: MemRefType) -> bool:
    return memory_space(t) == MemSpace.LOCAL


def storage_size(t: MemRefType) -> int:
    """Elements of physical storage: one thread's registers for ``local``, else the span."""
    lay = layout_of(t)
    return lay.storage().span() if is_local(t) else lay.span()


def ravel(index: Sequence[int], shape: Sequence[int]) -> int:
    """Row-major flat index of ``index`` in ``shape``; raises when out of bounds."""
    flat = 0
    for i, n in zip(index, shape, strict=True):
        if not 0 <= i < n:
            raise InterpretationError(f"index {list(index)} is out of bounds of shape "
                                      f"{list(shape)}")
        flat = flat * n + i
    return flat


def unravel(flat: int, shape: Sequence[int]) -> tuple[int, ...]:
    """Inverse of ``ravel``."""
    out: list[int] = []
    for n in reversed(shape):
        out.append(flat % n)
        flat //= n
    return tuple(reversed(out))


@dataclass(eq=False)
class Buffer:
    """A memref value: its type and a flat list of its physical storage.

    For a ``local`` buffer the storage is *one thread's* registers (thread axes dropped); the
    buffer a thread sees is its own register file. Views made by ``regcopy.storage`` share the
    list with the buffer they view."""

    type: MemRefType
    storage: list[Any]

    @staticmethod
    def new(t: MemRefType, fill: Any = 0) -> Buffer:
        """A buffer of type ``t`` whose every physical element is ``fill``."""
        return Buffer(t, [fill] * storage_size(t))

    @staticmethod
    def from_logical(t: MemRefType, values: Sequence[Any], fill: Any = 0) -> Buffer:
        """A non-local buffer holding ``values`` in logical row-major order."""
        buf = Buffer.new(t, fill)
        shape = t.get_shape()
        for flat, v in enumerate(values):
            buf.write(unravel(flat, shape), v)
        return buf

    def to_logical(self) -> list[Any]:
        """The elements in logical row-major order (non-local buffers)."""
        shape = self.type.get_shape()
        return [self.read(unravel(flat, shape)) for flat in range(prod(shape))]

    @property
    def layout(self) -> Layout:
        return layout_of(self.type)

    @cached_property
    def address(self) -> AddressMap:
        """The layout algebra's addressing of this buffer (``address.address_map``)."""
        return address_of(self.type)

    @property
    def local(self) -> bool:
        return is_local(self.type)

    def locate(self, index: Sequence[int]) -> tuple[dict[str, int], int]:
        """``logical index -> (owner thread-axis values, physical offset)``, by the layout
        algebra's ``thread_coords`` and ``physical_offset`` on integers; raises when the
        index is out of bounds."""
        return self.owner(index), self.offset(index)

    def owner(self, index: Sequence[int]) -> dict[str, int]:
        """The thread-axis values of the thread that owns ``index`` (``{}`` unless local)."""
        shape = self.type.get_shape()
        ravel(index, shape)  # bounds check
        return cast(dict[str, int], self.address.owner(INT_MATH, index))

    def offset(self, index: Sequence[int]) -> int:
        """The physical offset of ``index`` in ``storage`` (``address.physical_offset``)."""
        ravel(index, self.type.get_shape())  # bounds check
        off = cast(int, self.address.offset(INT_MATH, index))
        if not 0 <= off < len(self.storage):
            raise InterpretationError(f"physical offset {off} of index {list(index)} is outside "
                                      f"the {len(self.storage)}-element storage of {self.type}")
        return off

    def read(self, index: Sequence[int]) -> Any:
        return self.storage[self.offset(index)]

    def write(self, index: Sequence[int], value: Any) -> None:
        self.storage[self.offset(index)] = value


@dataclass(frozen=True)
class CopyTable:
    """Where each region element of a copy lives: per owner key (R's thread-axis values, in
    ``axes`` order) the ``(R offset, S offset)`` pairs. For a copy without a local side, R is
    the destination and every thread owns everything."""

    axes: tuple[str, ...]
    owned: dict[tuple[int, ...], list[tuple[int, int]]]



def region_indices(offsets: Sequence[int], sizes: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """The logical indices of a region, row-major over its sizes."""
    for rel in product(*(range(z) for z in sizes)):
        yield tuple(o + r for o, r in zip(offsets, rel, strict=True))


def copy_table(r_type: MemRefType, r_region: tuple[Sequence[int], Sequence[int]],
               s_type: MemRefType, s_region: tuple[Sequence[int], Sequence[int]]) -> CopyTable:
    """Map every logical element of the two regions (the l-th of each, row-major) to its
    owner key, R offset and S offset, straight from the unsliced layouts (the layout
    algebra's ``thread_coords`` and ``physical_offset``)."""
    r_lay = layout_of(r_type)
    r_map, s_map = address_of(r_type), address_of(s_type)
    axes = tuple(dict.fromkeys(i.axis for i in r_lay.thread_iters if i.axis is not None))
    owned: dict[tuple[int, ...], list[tuple[int, int]]] = {}
    r_shape, s_shape = r_type.get_shape(), s_type.get_shape()
    for r_idx, s_idx in zip(region_indices(*r_region), region_indices(*s_region), strict=True):
        ravel(r_idx, r_shape), ravel(s_idx, s_shape)  # bounds checks
        r_axes = cast(dict[str, int], r_map.owner(INT_MATH, r_idx))
        r_off = cast(int, r_map.offset(INT_MATH, r_idx))
        s_off = cast(int, s_map.offset(INT_MATH, s_idx))
        key = tuple(r_axes.get(a, 0) for a in axes)
        owned.setdefault(key, []).append((r_off, s_off))
    return CopyTable(axes, owned)



# ---- reference semantics of regcopy.copy ---------------------------------------------------


def _runtime_region(op: CopyOp, side: str, dynamic: Sequence[int]
                    ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    offsets, sizes = op.region(side)
    dyn = iter(dynamic)
    return tuple(next(dyn) if isinstance(o, SSAValue) else o for o in offsets), tuple(sizes)


def run_reference_copy(axis: Callable[[str], int], tables: dict[tuple[Any, ...], CopyTable],
                       op: CopyOp, src: Buffer, dst: Buffer, src_dyn: Sequence[int],
                       dst_dyn: Sequence[int]) -> None:
    """The executing thread (whose thread-axis values ``axis`` gives) moves every region
    element it owns by R's thread axes; ``tables`` caches each region's ``CopyTable``."""
    src_region = _runtime_region(op, "src", src_dyn)
    dst_region = _runtime_region(op, "dst", dst_dyn)
    if src.local and dst.local:
        raise InterpretationError("regcopy.copy between two local buffers is not supported")
    r_is_dst = dst.local or not src.local
    r, s = (dst, src) if r_is_dst else (src, dst)
    r_region, s_region = (dst_region, src_region) if r_is_dst else (src_region, dst_region)
    key = (op, r_region, s_region)
    if (table := tables.get(key)) is None:
        table = tables[key] = copy_table(r.type, r_region, s.type, s_region)
    mine = tuple(axis(a) for a in table.axes)
    for r_off, s_off in table.owned.get(mine, ()):
        if r_is_dst:
            r.storage[r_off] = s.storage[s_off]
        else:
            s.storage[s_off] = r.storage[r_off]
