"""The emitter of a realigned store (``bounds``: the fallback of a versioned copy that writes
a dynamic global buffer): ``n`` elements from registers to global offset ``e``, whose
misalignment ``k = e mod n`` (``e & (n - 1)``) is known only at run time, a multiple of the granule ``g``.

Every piece ``(p, w)`` that ``aligned_pieces(k, n)`` yields for some ``k`` is stored under its
own predicate (the vector's, and ``k`` in the set that needs the piece), so no branch depends
on ``k``: lanes of one warp whose vectors sit at different misalignments run the same
instructions, the stores of the other misalignments predicated off. A piece's registers
``r + p .. r + p + w`` are gathered into ``tmp[0:w]`` (a per-thread staging buffer at a fixed
index, so it stays in registers) to make an aligned ``vector<w>``. For ``n = 4``, ``g = 1``:
one 128-bit store (``k = 0``), two 64-bit ones (``k = 2``), and for ``k`` odd a 32-bit, a
64-bit and a 32-bit store."""

from __future__ import annotations

from dataclasses import dataclass

from regcopy_passes.bounds import piece_users
from regcopy_passes.index_builder import IndexBuilder, Value
from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import MemRefType, VectorType
from xdsl.ir import Attribute, Operation, SSAValue

from regcopy_dialect.attrs import MemSpace, MemSpaceAttr


@dataclass(frozen=True)
class Realign:
    """What a realigned store needs: the element type, the width ``n``, the granule ``g``
    (the proven alignment of every vector start) and the staging buffer."""

    elem: Attribute
    n: int
    granule: int
    tmp: SSAValue


def staging_buffer(b: IndexBuilder, elem: Attribute, size: int) -> SSAValue:
    """``memref.alloca() : memref<size x T, #regcopy.mem<local>>`` (in ``b``, hoisted)."""
    t = MemRefType(elem, [size], memory_space=MemSpaceAttr(MemSpace.LOCAL))
    return b.emit(memref.AllocaOp.get(t.element_type, shape=t.get_shape(),
                                      memory_space=t.memory_space), "tmp")


def _move(src: SSAValue, src_at: Value, dst: SSAValue, dst_at: Value, elem: Attribute,
          w: int, b: IndexBuilder) -> list[Operation]:
    """``dst[dst_at : +w] = src[src_at : +w]`` as one ``vector<w>`` load and store."""
    load = vector.LoadOp(src, [b.value(src_at)], VectorType(elem, [w]))
    load.result.name_hint = "v"
    return [load, vector.StoreOp(load.result, dst, [b.value(dst_at)])]


def store_pieces(ra: Realign, body: IndexBuilder, g: SSAValue, r: SSAValue, e: Value,
                 r_off: Value, pred: SSAValue | None) -> list[Operation]:
    """Registers ``r_off ..`` to global ``e``, realigned under ``pred`` (None: unchecked).
    The misalignment's math is appended to ``body``; the pieces are returned."""
    k = body.and_(e, ra.n - 1)  # e mod n (n a power of two; e >= 0 where it is stored)
    b = IndexBuilder(hoist_to=body.hoist_to or body)
    ops: list[Operation] = []
    for (p, w), ks in piece_users(ra.n, ra.granule).items():
        cond = b.emit(arith.CmpiOp(b.value(k), b.value(ks[0]), "eq"))
        for kk in ks[1:]:
            cond = b.emit(arith.OrIOp(cond, b.emit(arith.CmpiOp(b.value(k), b.value(kk),
                                                                 "eq"))))
        if pred is not None:
            cond = b.emit(arith.AndIOp(pred, cond))
        moves: list[Operation] = []
        for j in range(w):
            moves += _move(r, b.add(r_off, p + j), ra.tmp, j, ra.elem, 1, b)
        data = vector.LoadOp(ra.tmp, [b.value(0)], VectorType(ra.elem, [w]))
        data.result.name_hint = "v"
        store = vector.StoreOp(data.result, g, [b.value(b.add(e, p))])
        ops += [*b.take(), *moves, data, scf.IfOp(cond, [], [store, scf.YieldOp()])]
    return ops
