"""The global side of a ``cp_async`` chunk on a buffer with runtime extents (``async_bounds``):
its offset from the runtime strides, and its source size under one predicate.

Hoisted once per copy: the extents (``memref.dim``) and the strides: row-major,
``stride_i = E_{i+1} * ... * E_{k-1}``, or the buffer's ``strided<[...]>``
(``strides.buffer_strides``). Per chunk ``c``: its coordinate on each dim
(``coord_i``: the chunk layout's digits of ``c`` whose stand-in stride lies on dim ``i``, times
their step), the row ``o_i + coord_i`` of each dim and the offset
``sum((o_i + coord_i) * stride_i)``. Then, unless ``{in_bounds}``::

    ok    = and(o_i + coord_i <u E_i for each checked dim)     (the column's too)
    size  = select(ok, select(col + w - 1 <u E, bytes, (E - col) * bytes(T)), 0)
            (select(ok, bytes, 0) where no chunk straddles ``E``: ``async_bounds.may_straddle``)
    off   = select(ok, off, 0)                                   (the buffer's base)
"""

from __future__ import annotations

from collections.abc import Sequence

from regcopy_passes.core.bounds import dim_of
from regcopy_passes.core.index_builder import IndexBuilder, Value
from regcopy_passes.core.strides import buffer_strides
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType
from xdsl.ir import SSAValue

from regcopy_dialect.async_ops import CopyAsyncOp
from regcopy_dialect.layout import Layout
from regcopy_dialect.radix import place_digit


class DynamicSource:
    """The hoisted extents and strides of ``op``'s dynamic source, and each chunk's offset
    and source size (see the module doc)."""

    def __init__(self, b: IndexBuilder, op: CopyAsyncOp, checked: Sequence[int]):
        self.b, self.checked = b, tuple(checked)
        t = op.src.type
        assert isinstance(t, MemRefType)
        self.src, self.shape = op.src, t.get_shape()
        self.offsets, self.sizes = op.region("src")
        self.rank = len(self.shape)
        self._extents: dict[int, Value] = {}
        self.strides: list[Value] = buffer_strides(b, op.src, self.extent)
        for i in self.checked:
            self.extent(i)

    def extent(self, i: int) -> Value:
        """Extent ``i``: its static size, or ``memref.dim`` (emitted once, hoisted)."""
        if self.shape[i] != DYNAMIC_INDEX:
            return self.shape[i]
        if i not in self._extents:
            self._extents[i] = self.b.emit(memref.DimOp(self.src, self.b.value(i)), f"e{i}")
        return self._extents[i]

    def coords(self, body: IndexBuilder, chunks: Layout, c: Value) -> list[Value]:
        """Chunk ``c``'s coordinate on each dim (the stand-in's chunk layout, per dim)."""
        out: list[Value] = [0] * self.rank
        q = 1
        iters = chunks.iters
        for k in range(len(iters) - 1, -1, -1):
            it = iters[k]
            digit = place_digit(body, c, q, it.extent, k == 0, shifts=False)
            i, step = dim_of(it.stride, self.sizes)
            out[i] = body.add(out[i], body.mul(digit, step))
            q *= it.extent
        return out

    def chunk(self, body: IndexBuilder, chunks: Layout, c: Value, w: int, eb: int,
              straddle: bool) -> tuple[Value, Value]:
        """``(global offset, source bytes)`` of chunk ``c`` of ``w`` elements (``straddle``:
        whether it may straddle the last extent, ``async_bounds.may_straddle``)."""
        rows = [body.add(o, k) for o, k in zip(self.offsets, self.coords(body, chunks, c))]
        off: Value = 0
        for i in range(self.rank):
            off = body.add(off, body.times(rows[i], self.strides[i]))
        nbytes = w * eb
        if not self.checked:
            return off, nbytes
        last = self.rank - 1
        preds = [_cmp(body, rows[i], self.extent(i)) for i in self.checked]
        ok = preds[0]
        for p in preds[1:]:
            ok = body.emit(arith.AndIOp(ok, p))
        ok.name_hint = "inside"
        size: Value = nbytes
        if last in self.checked and straddle:
            e, col = self.extent(last), rows[last]
            whole = _cmp(body, body.add(col, w - 1), e)
            left = body.binary(arith.SubiOp, e, col)
            part = _select(body, whole, nbytes, body.mul(left, eb))
            size = _select(body, ok, part, 0)
        else:
            size = _select(body, ok, nbytes, 0)
        size.name_hint = "src_bytes"
        return _select(body, ok, off, 0), size


def _cmp(b: IndexBuilder, a: Value, e: Value) -> SSAValue:
    return b.emit(arith.CmpiOp(b.value(a), b.value(e), "ult"))


def _select(b: IndexBuilder, cond: SSAValue, x: Value, y: Value) -> SSAValue:
    return b.emit(arith.SelectOp(cond, b.value(x), b.value(y)))
