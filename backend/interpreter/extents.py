"""Runtime extents in the CPU interpreter: dynamic global buffers, ``memref.dim``, their flat
storage, and the reference semantics of a bounds-checked ``regcopy.copy``.

* A kernel argument of a dynamic type (``memref<?x?xf32, ...>``) is a ``Buffer`` whose type
  is the *concrete* row-major type of its runtime shape (``concrete_type``: the numpy
  array's shape, ``cpu_run.to_buffer``); ``memref.dim`` reads that shape, and
  ``regcopy.storage`` of it is a ``memref<N x T>`` view of all its ``N`` elements.
* Reference copy with bounds: a copy whose global side has runtime extents (and no
  ``{in_bounds}``) moves only the region elements inside the extents: out-of-extent elements
  are not read (the other side receives the copy's ``{padding = V}``, zero by default) and
  not written. ``{in_bounds}`` promises the region is inside: a region that is not is a
  runtime error (one line, located like every other), never a silent clip.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, cast

import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    FloatAttr,
    IntegerAttr,
    AnyFloat,
    MemRefType,
)
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import InterpretationError

from regcopy_backend.interpreter.buffers import (
    Buffer,
    CopyTable,
    buffer_name,
    check_region,
    copy_table,
    run_reference_copy,
    runtime_region,
    src_offset_count,
)
from regcopy_backend.interpreter.launch import (  # noqa: F401 - re-exported
    buffer_strides,
    divisor_problem,
    shape_problem,
)
from regcopy_backend.interpreter.regcopy import RegcopyFunctions, gpu_state
from regcopy_dialect.attrs import LayoutAttr
from regcopy_dialect.buffers import is_dynamic
from regcopy_dialect.layout import Iter, Layout
from regcopy_dialect.regcopy import CopyOp, StorageOp

PADDING = "padding"
IN_BOUNDS = "in_bounds"

Region = tuple[tuple[int, ...], tuple[int, ...]]


_VIEW_TYPES: dict[tuple[int, int], tuple[Operation, MemRefType]] = {}
"""``(id of a regcopy.storage op, storage size)`` -> the op and the static 1-D type of its view
of a dynamic buffer (one type made per op and size, not per execution; the entry keeps the
op, so its id is not reused while the entry lives)."""


def concrete_type(t: MemRefType, shape: Sequence[int],
                  strides: Sequence[int] | None = None) -> MemRefType:
    """The static type of a dynamic buffer of runtime ``shape``: row-major, or, given the
    element ``strides`` of a strided buffer, the ``#regcopy.layout`` ``(E_0, ...):(s_0, ...)``
    (its storage is then the view's span, ``strided_host``)."""
    if strides is None:
        return MemRefType(t.element_type, list(shape), memory_space=t.memory_space)
    layout = Layout(tuple(Iter(e, s) for e, s in zip(shape, strides, strict=True)))
    return MemRefType(t.element_type, list(shape), LayoutAttr.from_layout(layout),
                      t.memory_space)


def padding_value(op: CopyOp, element: Attribute) -> Any:
    """The host value the copy's ``{padding = V}`` puts in out-of-extent elements (zero by
    default), as the interpreter holds elements: Python numbers, raw bits for bf16/fp8."""
    from regcopy_backend.host_data import bf16_bits, fp8_bits

    attr = op.attributes.get(PADDING)
    value = attr.value.data if isinstance(attr, FloatAttr | IntegerAttr) else 0
    if isinstance(element, BFloat16Type):
        return bf16_bits(float(value))
    if isinstance(element, Float8E5M2Type | Float8E4M3FNType):
        return fp8_bits(float(value), element)
    return float(value) if isinstance(element, AnyFloat) else int(value)


_sides: dict[Operation, str | None] = {}


def _bounded_side(op: CopyOp) -> str | None:
    """The side (``src``/``dst``) of ``op`` with runtime extents, if any (found once per
    op)."""
    if op in _sides:
        return _sides[op]
    side = None
    for name, value in (("src", op.src), ("dst", op.dst)):
        if isinstance(value.type, MemRefType) and is_dynamic(value.type):
            side = name
            break
    if len(_sides) > 4096:
        _sides.clear()
    _sides[op] = side
    return side


_lock = threading.Lock()


@lru_cache(maxsize=256)
def _clipped_table(r_type: MemRefType, r_region: Region, s_type: MemRefType, s_region: Region,
                   global_is_r: bool, shape: tuple[int, ...], strides: tuple[int, ...]
                   ) -> CopyTable:
    """``copy_table`` with the global side (R when ``global_is_r``) of runtime ``shape`` and
    element ``strides``: its offsets are ``sum(i_d * strides_d)``, ``-1`` for region
    elements outside ``shape``. The table is built on a row-major type enlarged to hold the
    whole region, then mapped back."""
    g_region = r_region if global_is_r else s_region
    offsets, sizes = g_region
    big = tuple(max(n, o + z) for n, o, z in zip(shape, offsets, sizes, strict=True))
    g_type = r_type if global_is_r else s_type
    big_type = MemRefType(g_type.element_type, list(big), memory_space=g_type.memory_space)
    table = copy_table(big_type if global_is_r else r_type, r_region,
                       s_type if global_is_r else big_type, s_region)
    owned: dict[tuple[int, ...], tuple[list[int], list[int]]] = {}
    for key, (r_offs, s_offs) in table.owned.items():
        g = np.asarray(r_offs if global_is_r else s_offs, dtype=np.int64)
        idx = np.unravel_index(g, big)
        inside = np.ones(g.shape, dtype=bool)
        for d, n in enumerate(shape):
            inside &= idx[d] < n
        flat = sum(np.minimum(i, n - 1) * st for i, n, st in zip(idx, shape, strides))
        real = np.where(inside, flat, -1).tolist()
        owned[key] = (real, s_offs) if global_is_r else (r_offs, real)
    return CopyTable(table.axes, owned, table.shifts)


def run_bounded_copy(axis: Callable[[str], int], op: CopyOp, src: Buffer, dst: Buffer,
                     src_dyn: Sequence[int], dst_dyn: Sequence[int]) -> None:
    """The reference semantics of a copy with runtime extents (module docstring)."""
    side = _bounded_side(op)
    regions = {"src": runtime_region(op, "src", src_dyn),
               "dst": runtime_region(op, "dst", dst_dyn)}
    bufs = {"src": src, "dst": dst}
    if IN_BOUNDS in op.attributes or side is None:
        promise = " (the copy promises {in_bounds})" if IN_BOUNDS in op.attributes else ""
        check_region(regions["src"], src.shape,
                     lambda: f"source {buffer_name(op.src)}{promise}")
        check_region(regions["dst"], dst.shape,
                     lambda: f"destination {buffer_name(op.dst)}{promise}")
        return run_reference_copy(axis, op, src, dst, src_dyn, dst_dyn)
    other = "dst" if side == "src" else "src"
    check_region(regions[other], bufs[other].shape,
                 lambda: f"{'source' if other == 'src' else 'destination'} "
                         f"{buffer_name(op.src if other == 'src' else op.dst)}")
    g_offsets, g_sizes = regions[side]
    if any(o < 0 for o in g_offsets):
        raise InterpretationError(f"region offsets {list(g_offsets)} of {buffer_name(op.src if side == 'src' else op.dst)} "
                                  "are negative; bounds checks clip at the runtime extents only")
    shape = bufs[side].shape
    if all(o + z <= n for o, z, n in zip(g_offsets, g_sizes, shape, strict=True)):
        return run_reference_copy(axis, op, src, dst, src_dyn, dst_dyn)
    if src.local and dst.local:
        raise InterpretationError("regcopy.copy between two local buffers is not supported")
    r_is_dst = dst.local or not src.local
    r, s = (dst, src) if r_is_dst else (src, dst)
    r_side, s_side = ("dst", "src") if r_is_dst else ("src", "dst")
    global_is_r = r_side == side
    with _lock:
        table = _clipped_table(r.type, regions[r_side], s.type, regions[s_side], global_is_r,
                               shape, buffer_strides(bufs[side].type))
    # into R every replica takes its copy (in-bounds data, padding outside); out of R only
    # replica 0 writes
    r_offs, s_offs = table.mine(tuple(axis(a) for a in table.axes), every_replica=r_is_dst)
    to_offs, frm_offs = (r_offs, s_offs) if r_is_dst else (s_offs, r_offs)
    to, frm = dst.storage, src.storage
    if side == "dst":  # writes outside the extents are dropped
        for t, f in zip(to_offs, frm_offs):
            if t >= 0:
                to[t] = frm[f]
        return
    pad = padding_value(op, src.type.element_type)
    for t, f in zip(to_offs, frm_offs):
        to[t] = frm[f] if f >= 0 else pad


@register_impls
class ExtentFunctions(InterpreterFunctions):
    """``memref.dim``, ``regcopy.storage`` of dynamic buffers and the bounds-checked
    reference ``regcopy.copy`` (registered over ``RegcopyFunctions``)."""

    def __init__(self) -> None:
        self._regcopy = RegcopyFunctions()

    @impl(memref.DimOp)
    def run_dim(self, interp: Interpreter, op: memref.DimOp, args: PythonValues):
        buf, dim = args
        shape = buf.shape if isinstance(buf, Buffer) else tuple(buf.shape)
        if not 0 <= dim < len(shape):
            raise InterpretationError(f"dimension {dim} of a rank-{len(shape)} buffer")
        return (shape[dim],)

    @impl(memref.ExtractStridedMetaDataOp)
    def run_metadata(self, interp: Interpreter, op: memref.ExtractStridedMetaDataOp,
                     args: PythonValues):
        """The buffer, offset 0, its runtime extents and element strides."""
        (buf,) = args
        if not isinstance(buf, Buffer):
            raise InterpretationError("memref.extract_strided_metadata of a value that is "
                                      "not a buffer")
        return (buf, 0, *buf.shape, *buffer_strides(buf.type))

    @impl(StorageOp)
    def run_storage(self, interp: Interpreter, op: StorageOp, args: PythonValues):
        (buf,) = args
        t = cast(MemRefType, op.result.type)
        if not is_dynamic(t):
            return self._regcopy.run_storage(interp, op, args).values
        n = len(buf.storage)
        hit = _VIEW_TYPES.get((id(op), n))
        if hit is None or hit[0] is not op:
            hit = (op, MemRefType(t.element_type, [n], memory_space=t.memory_space))
            if len(_VIEW_TYPES) >= 4096:
                _VIEW_TYPES.clear()
            _VIEW_TYPES[id(op), n] = hit
        return (Buffer(hit[1], buf.storage),)

    @impl(CopyOp)
    def run_copy(self, interp: Interpreter, op: CopyOp, args: PythonValues):
        if _bounded_side(op) is None and IN_BOUNDS not in op.attributes:
            return self._regcopy.run_copy(interp, op, args).values
        src, dst, *dyn = args
        n_src = src_offset_count(op)
        run_bounded_copy(gpu_state(interp).thread.axis, op, src, dst, dyn[:n_src],
                         dyn[n_src:])
        return ()

