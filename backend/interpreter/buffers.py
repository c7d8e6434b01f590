"""Buffers of the CPU interpreter and the ownership table of a reference ``regcopy.copy``.

A buffer is a ``Buffer``: its memref type and a flat Python list of its physical span (for
``local``: one thread's registers). Copies never reinterpret bits, so holding elements as plain
Python values is exact, and any value (ints, floats, tags) traces where each element went.

Addresses come from the layout algebra (``regcopy_dialect.address``): a buffer's
``AddressMap`` evaluated with ``INT_MATH`` on Python ints for one element, or on numpy integer
arrays for a whole region at once (``INT_MATH``'s operators are numpy's too), which is how a
copy's table is built.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from math import prod
from typing import Any, cast

import numpy as np
from xdsl.dialects.builtin import MemRefType, NoneAttr
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import InterpretationError

from regcopy_dialect.address import AddressMap, address_map, suffix_product
from regcopy_dialect.index_math import INT_MATH
from regcopy_dialect.layout import Layout, replica_shifts
from regcopy_dialect.regcopy import (
    CopyOp,
    LayoutAttr,
    MemSpace,
    buffer_layout,
    memory_space,
)

# --------------------------------------------------------------------------------------------
# Buffers
# --------------------------------------------------------------------------------------------


@cache
def layout_of(t: MemRefType) -> Layout:
    """The layout that maps a logical index of ``t`` to its element (row-major by default)."""
    if not isinstance(t.layout, LayoutAttr | NoneAttr):
        raise InterpretationError(f"memref layout {t.layout} is not supported by the regcopy "
                                  "interpreter (use a #regcopy.layout or none)")
    return buffer_layout(t)


@cache
def address_of(t: MemRefType) -> AddressMap:
    """The addressing of a buffer of type ``t`` (``address.address_map`` of its layout)."""
    return address_map(layout_of(t), tuple(t.get_shape()))


def is_local(t: MemRefType) -> bool:
    return memory_space(t) == MemSpace.LOCAL


def storage_size(t: MemRefType) -> int:
    """Elements of physical storage: one thread's registers for ``local``, else the span."""
    lay = layout_of(t)
    return lay.storage().span() if is_local(t) else lay.span()


def check_index(index: Sequence[int], shape: Sequence[int]) -> None:
    """``InterpretationError`` unless ``0 <= index[d] < shape[d]`` in every dim."""
    if len(index) != len(shape) or not all(0 <= i < n for i, n in zip(index, shape)):
        raise InterpretationError(f"index {list(index)} is out of bounds of shape "
                                  f"{list(shape)}")


def region_arrays(offsets: Sequence[int], sizes: Sequence[int]) -> list[np.ndarray]:
    """Per dim, the logical indices of every element of the region ``offsets + [0, sizes)``,
    row-major over ``sizes`` (flat int64 arrays of ``prod(sizes)`` elements)."""
    grid = np.indices(tuple(sizes), dtype=np.int64).reshape(len(sizes), -1)
    return [grid[d] + o for d, o in enumerate(offsets)]


def _full(value: Any, n: int) -> np.ndarray:
    """``value`` (an address map's int or array result) as an int64 array of ``n`` elements."""
    return np.broadcast_to(np.asarray(value, dtype=np.int64), (n,))


@lru_cache(maxsize=256)
def logical_offsets(t: MemRefType) -> tuple[int, ...]:
    """The physical offset of every logical element of ``t``, in row-major order."""
    shape = tuple(t.get_shape())
    offsets = address_of(t).offset(cast(Any, INT_MATH), region_arrays((0,) * len(shape), shape))
    return tuple(_full(offsets, prod(shape)).tolist())


@lru_cache(maxsize=1024)
def region_offsets(t: MemRefType, offsets: tuple[int, ...], sizes: tuple[int, ...]
                   ) -> tuple[int, ...]:
    """The physical offset in a buffer of type ``t`` of every element of the region
    ``offsets + [0, sizes)``, row-major over the region; ``-1`` for an element outside
    ``t``'s shape (a bounds-checked region past a runtime extent). One vectorized evaluation
    of the address map per (type, region), shared by every thread that asks."""
    shape = tuple(t.get_shape())
    idx = region_arrays(offsets, sizes)
    n = prod(sizes)
    inside = np.ones(n, dtype=bool)
    for d, extent in enumerate(shape):
        inside &= (idx[d] >= 0) & (idx[d] < extent)
    clipped = [np.clip(i, 0, max(extent - 1, 0)) for i, extent in zip(idx, shape, strict=True)]
    offs = _full(address_of(t).offset(INT_MATH, clipped), n)
    return tuple(np.where(inside, offs, -1).tolist())


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
        for off, v in zip(logical_offsets(t), values):
            buf.storage[off] = v
        return buf

    def to_logical(self) -> list[Any]:
        """The elements in logical row-major order (non-local buffers)."""
        return [self.storage[off] for off in logical_offsets(self.type)]

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

    @cached_property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.type.get_shape())

    @cached_property
    def places(self) -> tuple[int, ...] | None:
        """The row-major place values of the shape when the buffer has no layout (its
        physical offset is then ``crd2idx(index, places)``), else None."""
        return suffix_product(self.shape) if isinstance(self.type.layout, NoneAttr) else None

    def owner(self, index: Sequence[int]) -> dict[str, int]:
        """The thread-axis values of the thread that owns ``index`` (``{}`` unless local)."""
        check_index(index, self.shape)
        return cast(dict[str, int], self.address.owner(INT_MATH, index))

    def offset(self, index: Sequence[int]) -> int:
        """The physical offset of ``index`` in ``storage`` (``address.physical_offset``)."""
        check_index(index, self.shape)
        off = cast(int, self.address.offset(INT_MATH, index))
        if not 0 <= off < len(self.storage):
            raise InterpretationError(f"physical offset {off} of index {list(index)} is outside "
                                      f"the {len(self.storage)}-element storage of {self.type}")
        return off

    def read(self, index: Sequence[int]) -> Any:
        return self.storage[self.offset(index)]

    def write(self, index: Sequence[int], value: Any) -> None:
        self.storage[self.offset(index)] = value


# --------------------------------------------------------------------------------------------
# The table of a reference copy
# --------------------------------------------------------------------------------------------

Region = tuple[tuple[int, ...], tuple[int, ...]]
"""A region at run time: its offsets (dynamic ones resolved) and its sizes."""


@dataclass(frozen=True)
class CopyTable:
    """Where each region element of a copy lives: per owner key (R's thread-axis values, in
    ``axes`` order) the R offsets and the S offsets of the elements it owns, in region order.
    For a copy without a local side, R is the destination and every thread owns everything."""

    axes: tuple[str, ...]
    owned: dict[tuple[int, ...], tuple[list[int], list[int]]]
    shifts: tuple[tuple[int, ...], ...] = ((),)
    """R's replica shifts in ``axes`` order (``layout.replica_shifts``), replica 0 first."""

    def mine(self, values: tuple[int, ...], every_replica: bool
             ) -> tuple[Sequence[int], Sequence[int]]:
        """The (R, S) offsets that the thread with axis values ``values`` moves: those of the
        key it is a replica of (``every_replica``: a load into R fills every replica), or
        only as replica 0 (a store out of R writes each element once)."""
        for shift in self.shifts if every_replica else self.shifts[:1]:
            key = tuple(v - d for v, d in zip(values, shift)) if shift else values
            if key in self.owned:
                return self.owned[key]
        return (), ()


def check_region(region: Region, shape: Sequence[int], what: str | Callable[[], str]) -> None:
    """``InterpretationError`` naming ``what`` (or what it returns, made only on failure)
    unless the region lies inside ``shape``."""
    offsets, sizes = region
    if all(0 <= o and o + z <= n for o, z, n in zip(offsets, sizes, shape, strict=True)):
        return
    what = what if isinstance(what, str) else what()
    last = [o + z - 1 for o, z in zip(offsets, sizes, strict=True)]
    raise InterpretationError(f"{what}: region {list(offsets)} .. {last} (sizes {list(sizes)}) "
                              f"is out of bounds of shape {list(shape)}")


def _build_table(r_type: MemRefType, r_region: Region, s_type: MemRefType, s_region: Region
                 ) -> CopyTable:
    """``copy_table`` uncached: the address maps evaluated on the regions' index arrays, the
    elements grouped by their owner key (in region order within each group)."""
    r_lay = layout_of(r_type)
    axes = tuple(dict.fromkeys(i.axis for i in r_lay.owner_iters if i.axis is not None))
    shifts = tuple(tuple(sh.get(a, 0) for a in axes) for sh in replica_shifts(r_lay))
    n = prod(r_region[1])
    r_idx, s_idx = region_arrays(*r_region), region_arrays(*s_region)
    r_map = address_of(r_type)
    r_off = _full(r_map.offset(INT_MATH, r_idx), n)
    s_off = _full(address_of(s_type).offset(INT_MATH, s_idx), n)
    if not axes:
        return CopyTable(axes, {(): (r_off.tolist(), s_off.tolist())})
    owners = r_map.owner(cast(Any, INT_MATH), r_idx)
    keys = np.stack([_full(owners.get(a, 0), n) for a in axes], axis=1)
    uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
    order = np.argsort(inverse.reshape(-1), kind="stable")
    bounds = np.searchsorted(inverse.reshape(-1)[order], np.arange(len(uniq) + 1))
    owned: dict[tuple[int, ...], tuple[list[int], list[int]]] = {}
    for k, key in enumerate(uniq.tolist()):
        mine = order[bounds[k]:bounds[k + 1]]
        owned[tuple(key)] = (r_off[mine].tolist(), s_off[mine].tolist())
    return CopyTable(axes, owned, shifts)


_table_lock = threading.Lock()
_by_op: dict[tuple[CopyOp, Region, Region], tuple[CopyTable, MemRefType, MemRefType]] = {}
"""Tables by copy op and runtime regions, with the R and S types they were built for: a
lookup that hashes no types (the hot path of every thread of every copy); emptied when it
holds 4096."""


@lru_cache(maxsize=128)
def _memo_table(r_type: MemRefType, r_region: Region, s_type: MemRefType, s_region: Region
                ) -> CopyTable:
    return _build_table(r_type, r_region, s_type, s_region)


def copy_table(r_type: MemRefType, r_region: Region, s_type: MemRefType, s_region: Region
               ) -> CopyTable:
    """Map every logical element of the two regions (the l-th of each, row-major) to its
    owner key, R offset and S offset, from the unsliced layouts (the layout algebra's owner
    and physical offset, evaluated on whole regions at once).

    The table depends only on these hashable facts, so it is built once and shared: by every
    thread of a CTA (the threads of a phased CTA wait for the one building it instead of each
    building its own) and by every copy with the same buffers and regions."""
    with _table_lock:
        return _memo_table(r_type, r_region, s_type, s_region)


# ---- reference semantics of regcopy.copy ---------------------------------------------------


_regions: dict[tuple[Operation, str], tuple[tuple[int | None, ...], tuple[int, ...]]] = {}
"""``static_region`` by op and side (the hot path of every thread of every copy reads them;
the attributes behind them are slow to decode); emptied when it holds 4096."""


def static_region(op: CopyOp, side: str) -> tuple[tuple[int | None, ...], tuple[int, ...]]:
    """``op.region(side)`` with its dynamic offsets as None, decoded once per op."""
    key = (op, side)
    if (hit := _regions.get(key)) is None:
        offsets, sizes = op.region(side)
        hit = (tuple(None if isinstance(o, SSAValue) else o for o in offsets), tuple(sizes))
        if len(_regions) > 4096:
            _regions.clear()
        _regions[key] = hit
    return hit


def runtime_region(op: CopyOp, side: str, dynamic: Sequence[int]) -> Region:
    """The region of ``op``'s ``side`` (``src``/``dst``) with its dynamic offsets filled in
    from ``dynamic``, in order."""
    offsets, sizes = static_region(op, side)
    if None not in offsets:
        return cast(tuple[int, ...], offsets), sizes
    dyn = iter(dynamic)
    return tuple(next(dyn) if o is None else o for o in offsets), sizes


_src_counts: dict[Operation, int] = {}


def src_offset_count(op: CopyOp) -> int:
    """How many of ``op``'s dynamic offset operands are the source's (counted once per op)."""
    if (n := _src_counts.get(op)) is None:
        n = _src_counts[op] = len(op.src_offsets)
        if len(_src_counts) > 4096:
            _src_counts.clear()
    return n


def buffer_name(value: SSAValue) -> str:
    """How messages name a buffer: ``%A``, or ``buffer`` when it has no name."""
    return f"%{value.name_hint}" if value.name_hint else "buffer"


def run_reference_copy(axis: Callable[[str], int], op: CopyOp, src: Buffer, dst: Buffer,
                       src_dyn: Sequence[int], dst_dyn: Sequence[int]) -> None:
    """The executing thread (whose thread-axis values ``axis`` gives) moves every region
    element it owns by R's thread axes (``copy_table``): into R, every replica takes its
    copy; out of R, only replica 0 writes."""
    src_region = runtime_region(op, "src", src_dyn)
    dst_region = runtime_region(op, "dst", dst_dyn)
    check_region(src_region, src.shape, lambda: f"source {buffer_name(op.src)}")
    check_region(dst_region, dst.shape, lambda: f"destination {buffer_name(op.dst)}")
    if src.local and dst.local:
        raise InterpretationError("regcopy.copy between two local buffers is not supported")
    r_is_dst = dst.local or not src.local
    r, s = (dst, src) if r_is_dst else (src, dst)
    r_region, s_region = (dst_region, src_region) if r_is_dst else (src_region, dst_region)
    key = (op, r_region, s_region)
    hit = _by_op.get(key)
    if hit is not None and hit[1] is r.type and hit[2] is s.type:
        table = hit[0]
    else:
        table = copy_table(r.type, r_region, s.type, s_region)
        if len(_by_op) > 4096:
            _by_op.clear()
        _by_op[key] = (table, r.type, s.type)
    r_offs, s_offs = table.mine(tuple(axis(a) for a in table.axes), every_replica=r_is_dst)
    if r_is_dst:
        to, frm, to_offs, frm_offs = r.storage, s.storage, r_offs, s_offs
    else:
        to, frm, to_offs, frm_offs = s.storage, r.storage, s_offs, r_offs
    for t, f in zip(to_offs, frm_offs):
        to[t] = frm[f]
