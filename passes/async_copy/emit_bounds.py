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

**Thread part and round part.** Round ``r`` of thread ``t`` moves chunk ``c = t + r * T``.
Where every coordinate splits as ``coord_i(t + r * T) = coord_i(t) + d_i(r)`` for all the
threads (``round_steps``: each ``d_i(r)`` a constant; so for the usual chunk layouts, whose
round digit is outermost or a multiple of the thread count) and there are several rounds,
the rounds share what only the thread and the region offsets decide, emitted once per
copy::

    base  = sum(o_i * stride_i) + sum(coord_i(t) * stride_i)     (one value a thread)
    left_i = select(o_i <u E_i, E_i - o_i, 0)                    (what lies past o_i)

and round ``r`` adds constants: ``off = base + sum(d_i(r) * stride_i)``, ``ok = and(coord_i(t)
<u left_i - d_i(r))`` (the difference saturating at 0; ``_past``), and ``left - d - col`` in
place of ``E - col``. The predicates are the same (``o + x <u E`` iff ``x <u E - o`` when
``o <u E``; nothing is inside otherwise), but a copy in a loop keeps one offset and one
coordinate a dim a thread live across the loop, not an offset and a row a chunk: the per-round
terms (``d_i(r) * stride_i``, ``left_i - d_i(r)``) depend on no thread, so the compiler keeps
them in uniform registers. (With 64-bit index math, a GEMM's ring of 12
chunks a thread spilled its per-chunk offsets and rows before this form.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from regcopy_passes.core.bounds import dim_of
from regcopy_passes.core.index_builder import IndexBuilder, Value
from regcopy_passes.core.strides import buffer_strides
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType
from xdsl.ir import SSAValue

from regcopy_dialect.async_ops import CopyAsyncOp
from regcopy_dialect.layout import Layout
from regcopy_dialect.radix import place_digit


@dataclass(frozen=True)
class ThreadBase:
    """What the rounds of one copy share (module doc): the thread's coordinates
    ``coord_i(t)``, its offset ``base`` (the region offsets' terms included) and ``left_i``
    per checked dim."""

    coords: tuple[Value, ...]
    base: Value
    left: dict[int, Value]


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
        for q, e, outermost, stride in digit_places(chunks):
            digit = place_digit(body, c, q, e, outermost, shifts=False)
            i, step = dim_of(stride, self.sizes)
            out[i] = body.add(out[i], body.mul(digit, step))
        return out

    def round_steps(self, chunks: Layout, threads: int, rounds: int, total: int
                    ) -> tuple[tuple[int, ...], ...] | None:
        """``d(r)`` for each round ``r``: the constant step of every coordinate from thread
        ``t``'s chunk ``t`` to its chunk ``t + r * threads`` (``round_steps``); None where
        some coordinate does not split so."""
        places = [(q, e, outermost, *dim_of(stride, self.sizes))
                  for q, e, outermost, stride in digit_places(chunks)]

        def at(c: int) -> tuple[int, ...]:  # ``coords`` of a constant chunk, on integers
            out = [0] * self.rank
            for q, e, outermost, i, step in places:
                out[i] += (c // q if outermost else c // q % e) * step
            return tuple(out)

        return round_steps(at, threads, rounds, total)

    def thread_base(self, b: IndexBuilder, chunks: Layout, t: Value) -> ThreadBase:
        """The values the rounds of thread ``t`` share (module doc), emitted on ``b``."""
        coords = tuple(self.coords(b, chunks, t))
        base: Value = 0
        for i in range(self.rank):
            base = b.add(base, b.times(self.offsets[i], self.strides[i]))
        for i in range(self.rank):
            base = b.add(base, b.times(coords[i], self.strides[i]))
        if isinstance(base, SSAValue):
            base.name_hint = "thread_base"
        left: dict[int, Value] = {}
        for i in self.checked:
            o, e = self.offsets[i], self.extent(i)
            if isinstance(o, int) and o == 0:
                left[i] = e
                continue
            past = b.binary(arith.SubiOp, e, o)
            left[i] = _select(b, _cmp(b, o, e), past, 0)
            left[i].name_hint = f"left{i}"  # type: ignore[union-attr]  # an SSA value
        return ThreadBase(coords, base, left)

    def chunk(self, body: IndexBuilder, chunks: Layout, c: Value, w: int, eb: int,
              straddle: bool, shared: tuple[ThreadBase, tuple[int, ...]] | None = None
              ) -> tuple[Value, Value]:
        """``(global offset, source bytes)`` of chunk ``c`` of ``w`` elements (``straddle``:
        whether it may straddle the last extent, ``async_bounds.may_straddle``); with
        ``shared``, ``(thread_base(...), round_steps(...)[r])`` of the round that moves it."""
        nbytes = w * eb
        off: Value = 0
        if shared is None:
            rows = [body.add(o, k) for o, k in zip(self.offsets, self.coords(body, chunks, c))]
            for i in range(self.rank):
                off = body.add(off, body.times(rows[i], self.strides[i]))
            limits = {i: self.extent(i) for i in self.checked}
        else:
            tb, d = shared
            rows = list(tb.coords)  # compared against the room left past the round's step
            for i in range(self.rank):
                off = body.add(off, body.times(self.strides[i], d[i]))
            off = body.add(tb.base, off)
            limits = {i: _past(body, tb.left[i], d[i]) for i in self.checked}
        if not self.checked:
            return off, nbytes
        last = self.rank - 1
        preds = [_cmp(body, rows[i], limits[i]) for i in self.checked]
        ok = preds[0]
        for p in preds[1:]:
            ok = body.emit(arith.AndIOp(ok, p))
        ok.name_hint = "inside"
        size: Value = nbytes
        if last in self.checked and straddle:
            e, col = limits[last], rows[last]
            whole = _cmp(body, body.add(col, w - 1), e)
            left = body.binary(arith.SubiOp, e, col)
            part = _select(body, whole, nbytes, body.mul(left, eb))
            size = _select(body, ok, part, 0)
        else:
            size = _select(body, ok, nbytes, 0)
        size.name_hint = "src_bytes"
        return _select(body, ok, off, 0), size


def digit_places(chunks: Layout) -> list[tuple[int, int, bool, int]]:
    """``(q, e, outermost, stride)`` of each iter of ``chunks``, innermost first: chunk ``c``'s
    digit there is ``(c div q) mod e`` (no ``mod`` for the outermost), weighed by ``stride``
    (``DynamicSource.coords``, ``emit.chunk_offset``)."""
    out: list[tuple[int, int, bool, int]] = []
    q = 1
    for k in range(len(chunks.iters) - 1, -1, -1):
        it = chunks.iters[k]
        out.append((q, it.extent, k == 0, it.stride))
        q *= it.extent
    return out


def round_steps(at: Callable[[int], tuple[int, ...]], threads: int, rounds: int, total: int
                ) -> tuple[tuple[int, ...], ...] | None:
    """``d(r)`` for each round ``r`` of a copy whose thread ``t`` moves chunks ``t + r *
    threads`` (those below ``total``): ``at(t + r * threads) - at(t)``, the same for every
    thread (None where it is not; ``at`` maps a chunk to its coordinates or offsets)."""
    firsts = [at(t) for t in range(min(threads, total))]
    steps: list[tuple[int, ...]] = []
    for r in range(rounds):
        d: tuple[int, ...] | None = None
        for t, first in enumerate(firsts):
            if t + r * threads >= total:
                break
            step = tuple(x - y for x, y in zip(at(t + r * threads), first))
            if d is not None and step != d:
                return None
            d = step
        steps.append(d if d is not None else (0,) * len(firsts[0]))
    return tuple(steps)


def _past(b: IndexBuilder, left: Value, d: int) -> Value:
    """The room past a round's step ``d`` along a dim with ``left`` past the origin:
    ``x + d <u left`` iff ``x <u _past(left, d)`` for the thread's coordinate ``x`` (with
    ``x + d >= 0``), so the rounds compare the one ``x`` against values that depend on no
    thread: ``left - d`` (0 when ``d >= left``) for ``d > 0``, ``left + |d|`` for ``d < 0``."""
    if d == 0:
        return left
    if d < 0:
        return b.add(left, -d)
    return _select(b, _cmp(b, d, left), b.binary(arith.SubiOp, left, d), 0)


def _cmp(b: IndexBuilder, a: Value, e: Value) -> SSAValue:
    return b.emit(arith.CmpiOp(b.value(a), b.value(e), "ult"))


def _select(b: IndexBuilder, cond: SSAValue, x: Value, y: Value) -> SSAValue:
    return b.emit(arith.SelectOp(cond, b.value(x), b.value(y)))
