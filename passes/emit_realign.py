"""The emitter of a realigned vector (``bounds``: the fallback of a versioned copy): ``n``
elements at global offset ``e`` whose misalignment ``k = e mod n`` is known only at run time,
a multiple of the granule ``g``.

``k == 0``: one aligned vector. Else one branch per ``k`` (``scf.if`` on ``k``, static code in
each), through a per-thread staging buffer ``tmp`` of ``2n`` elements:

* read: the aligned chunks ``[e - k, e - k + n)`` and ``[e - k + n, e - k + 2n)`` into
  ``tmp[0:2n]`` when the second ends inside the buffer (``e - k + 2n <= size``), else the
  vector's own ``aligned_pieces(k, n)`` into ``tmp[k:k+n]``; then ``R[r + j] = tmp[k + j]``;
* write: ``tmp[k + j] = R[r + j]``, then each aligned piece ``(p, w)`` from ``tmp[k + p]``
  (aligned: ``w`` divides ``k + p``) to ``e + p``.

Every index into ``tmp`` and the registers is static in its branch, so the CUDA compiler keeps
``tmp`` in registers; the chunks that cover a vector lie inside the buffer, and what they hold
besides the vector is dropped."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from regcopy_passes.bounds import aligned_pieces
from regcopy_passes.index_builder import IndexBuilder, Value
from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import MemRefType, VectorType
from xdsl.ir import Attribute, Operation, SSAValue

from regcopy_dialect.attrs import MemSpace, MemSpaceAttr


@dataclass(frozen=True)
class Realign:
    """What a realigned vector needs: the element type, the width ``n`` and granule ``g``,
    the staging buffer, the global buffer's size in elements, and the direction."""

    elem: Attribute
    n: int
    granule: int
    tmp: SSAValue
    size: Value
    read: bool


def staging_buffer(b: IndexBuilder, elem: Attribute, n: int) -> SSAValue:
    """``memref.alloca() : memref<2n x T, #regcopy.mem<local>>`` (in ``b``, hoisted)."""
    t = MemRefType(elem, [2 * n], memory_space=MemSpaceAttr(MemSpace.LOCAL))
    return b.emit(memref.AllocaOp.get(t.element_type, shape=t.get_shape(),
                                      memory_space=t.memory_space), "tmp")


def _move(src: SSAValue, src_at: Value, dst: SSAValue, dst_at: Value, elem: Attribute,
          w: int, b: IndexBuilder) -> list[Operation]:
    """``dst[dst_at : +w] = src[src_at : +w]`` as one ``vector<w>`` load and store."""
    load = vector.LoadOp(src, [b.value(src_at)], VectorType(elem, [w]))
    load.result.name_hint = "v"
    return [load, vector.StoreOp(load.result, dst, [b.value(dst_at)])]


def _take(b: IndexBuilder) -> list[Operation]:
    """The ops ``b`` collected so far (and forget them)."""
    ops, b.ops = b.ops, []
    return ops


def _region(hoist: IndexBuilder, build: Callable[[IndexBuilder], list[Operation]]
            ) -> list[Operation]:
    """``build``'s ops, after the index math it emitted, on a fresh builder (one region)."""
    b = IndexBuilder(hoist_to=hoist)
    ops = build(b)
    return [*_take(b), *ops]


def _case(ra: Realign, hoist: IndexBuilder, g: SSAValue, r: SSAValue, e: Value,
          r_off: Value, k: int) -> list[Operation]:
    """The static code for misalignment ``k > 0``."""
    pieces = aligned_pieces(k, ra.n)

    def pieces_ops(src: SSAValue, src_at: Callable[[IndexBuilder, int], Value], dst: SSAValue,
                   dst_at: Callable[[IndexBuilder, int], Value]) -> Callable[
                       [IndexBuilder], list[Operation]]:
        def build(b: IndexBuilder) -> list[Operation]:
            ops: list[Operation] = []
            for p, w in pieces:
                ops += _move(src, src_at(b, p), dst, dst_at(b, p), ra.elem, w, b)
            return ops
        return build

    def moves(b: IndexBuilder, to_tmp: bool) -> list[Operation]:
        ops: list[Operation] = []
        for j in range(ra.n):
            ops += (_move(r, b.add(r_off, j), ra.tmp, k + j, ra.elem, 1, b) if to_tmp
                    else _move(ra.tmp, k + j, r, b.add(r_off, j), ra.elem, 1, b))
        return ops

    if not ra.read:
        return [*_region(hoist, lambda b: moves(b, True)),
                *_region(hoist, pieces_ops(ra.tmp, lambda b, p: k + p,
                                           g, lambda b, p: b.add(e, p)))]

    def chunks(b: IndexBuilder) -> list[Operation]:
        chunk = b.add(e, -k)
        return [*_move(g, chunk, ra.tmp, 0, ra.elem, ra.n, b),
                *_move(g, b.add(chunk, ra.n), ra.tmp, ra.n, ra.elem, ra.n, b)]

    b = IndexBuilder(hoist_to=hoist)
    end = b.add(e, 2 * ra.n - k)
    fits = b.emit(arith.CmpiOp(b.value(end), b.value(ra.size), "ule"), "fits")
    own = _region(hoist, pieces_ops(g, lambda b, p: b.add(e, p), ra.tmp, lambda b, p: k + p))
    return [*_take(b),
            scf.IfOp(fits, [], [*_region(hoist, chunks), scf.YieldOp()], [*own, scf.YieldOp()]),
            *_region(hoist, lambda b: moves(b, False))]


def realigned_ops(ra: Realign, body: IndexBuilder, g: SSAValue, r: SSAValue, e: Value,
                  r_off: Value) -> list[Operation]:
    """The vector at global offset ``e`` <-> registers ``r_off``, realigned (see module);
    the misalignment test's math is appended to ``body``."""
    hoist = body.hoist_to or body
    k = body.rem(e, ra.n)
    if ra.read:
        aligned = _region(hoist, lambda b: _move(g, e, r, r_off, ra.elem, ra.n, b))
    else:
        aligned = _region(hoist, lambda b: _move(r, r_off, g, e, ra.elem, ra.n, b))
    cases = list(range(ra.granule, ra.n, ra.granule))
    rest: list[Operation] = _case(ra, hoist, g, r, e, r_off, cases[-1])
    for c in reversed(cases[:-1]):
        b = IndexBuilder(hoist_to=hoist)
        test = b.emit(arith.CmpiOp(b.value(k), b.value(c), "eq"))
        rest = [*_take(b), scf.IfOp(test, [], [*_case(ra, hoist, g, r, e, r_off, c),
                                               scf.YieldOp()], [*rest, scf.YieldOp()])]
    zero = body.emit(arith.CmpiOp(body.value(k), body.value(0), "eq"), "k0")
    return [scf.IfOp(zero, [], [*aligned, scf.YieldOp()], [*rest, scf.YieldOp()])]
