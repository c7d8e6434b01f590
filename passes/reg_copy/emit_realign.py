"""The emitter of a realigned store or load (``bounds``: the fallback of a versioned copy on
a dynamic global buffer, where ``misaligned_cost`` picks it): ``n`` elements between
registers and global offset ``e``, whose misalignment ``k = e mod n`` (``e & (n - 1)``) is
known only at run time, a multiple of the granule ``g``.

The vector is moved as ``aligned_pieces(k, n)``: the misalignments with the same pieces form
one class (``misalignment_classes``), and each class is one branch of an ``scf.if`` chain on
``k`` (the last class the ``else``), so a thread issues only its own pieces. For ``n = 4``,
``g = 1``: one 128-bit store (``k = 0``), for ``k`` odd a 32-bit, a 64-bit and a 32-bit
one, else (``k = 2``) two 64-bit ones. Where a warp's lanes share ``k`` (a warp along one
row, whose vectors start a multiple of ``n`` apart) the branch does not diverge; on the H200
it ran 1-4% faster than predicating every piece of every class (``lab/ragged/ab_sources.py``).
A piece's registers ``r + p .. r + p + w`` pass through ``tmp[0:w]`` (a per-thread staging
buffer at fixed indices, so it stays in registers) to make an aligned ``vector<w>``."""

from __future__ import annotations

from dataclasses import dataclass

from regcopy_passes.core.bounds import misalignment_classes
from regcopy_passes.core.index_builder import IndexBuilder, Value
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


def staging_buffer(b: IndexBuilder, elem: Attribute, size: int, hint: str = "tmp"
                   ) -> SSAValue:
    """``memref.alloca() : memref<size x T, #regcopy.mem<local>>`` (in ``b``, hoisted): a
    per-thread buffer at fixed indices, which stays in registers."""
    t = MemRefType(elem, [size], memory_space=MemSpaceAttr(MemSpace.LOCAL))
    return b.emit(memref.AllocaOp.get(t.element_type, shape=t.get_shape(),
                                      memory_space=t.memory_space), hint)


def move(src: SSAValue, src_at: Value, dst: SSAValue, dst_at: Value, elem: Attribute,
         w: int, b: IndexBuilder) -> list[Operation]:
    """``dst[dst_at : +w] = src[src_at : +w]`` as one ``vector<w>`` load and store."""
    load = vector.LoadOp(src, [b.value(src_at)], VectorType(elem, [w]))
    load.result.name_hint = "v"
    return [load, vector.StoreOp(load.result, dst, [b.value(dst_at)])]


def store_pieces(ra: Realign, body: IndexBuilder, g: SSAValue, r: SSAValue, e: Value,
                 r_off: Value, load: bool = False) -> list[Operation]:
    """Registers ``r_off ..`` to global ``e``, realigned: one branch per class of
    misalignments (``misalignment_classes``), the last one the ``else``. The misalignment's
    math is appended to ``body``; the branches are returned. With ``load``, the other way
    (``load_pieces``)."""
    k = body.and_(e, ra.n - 1)  # e mod n (n a power of two; e >= 0 where it is stored)
    b = IndexBuilder(hoist_to=body.hoist_to or body)
    classes = misalignment_classes(ra.n, ra.granule)
    ops = _pieces(ra, b, g, r, e, r_off, classes[-1][1], load)
    for ks, pieces in reversed(classes[:-1]):
        cond: SSAValue | None = None
        for kk in ks:
            eq = b.emit(arith.CmpiOp(b.value(k), b.value(kk), "eq"))
            cond = eq if cond is None else b.emit(arith.OrIOp(cond, eq))
        assert cond is not None
        test = b.take()
        then = _pieces(ra, b, g, r, e, r_off, pieces, load)
        ops = [*test, scf.IfOp(cond, [], [*then, scf.YieldOp()], [*ops, scf.YieldOp()])]
    return ops


def load_pieces(ra: Realign, body: IndexBuilder, g: SSAValue, r: SSAValue, e: Value,
                r_off: Value) -> list[Operation]:
    """Global ``e`` to registers ``r_off ..``, realigned (a read's ``store_pieces``): one
    branch per class of misalignments, each loading its aligned pieces; piece ``(p, w)``
    is one aligned ``vector<w>`` load into ``tmp[0:w]``, then element by element into
    registers ``r_off + p ..``. The misalignment's math is appended to ``body``."""
    return store_pieces(ra, body, g, r, e, r_off, load=True)


def _pieces(ra: Realign, at: IndexBuilder, g: SSAValue, r: SSAValue, e: Value, r_off: Value,
            pieces: tuple[tuple[int, int], ...], load: bool = False) -> list[Operation]:
    """The stores of ``pieces`` (one branch: its index math is its own, constants go where
    ``at``'s do): piece ``(p, w)``'s registers gathered into ``tmp[0:w]``, stored as one
    aligned ``vector<w>``; with ``load``, one aligned ``vector<w>`` loaded into ``tmp[0:w]``
    and spread into its registers."""
    b = IndexBuilder(hoist_to=at.hoist_to)
    ops: list[Operation] = []
    for p, w in pieces:
        moves: list[Operation] = []
        for j in range(w):
            if load:
                moves += move(ra.tmp, j, r, b.add(r_off, p + j), ra.elem, 1, b)
            else:
                moves += move(r, b.add(r_off, p + j), ra.tmp, j, ra.elem, 1, b)
        if load:
            data = vector.LoadOp(g, [b.value(b.add(e, p))], VectorType(ra.elem, [w]))
            data.result.name_hint = "v"
            into = vector.StoreOp(data.result, ra.tmp, [b.value(0)])
            ops += [*b.take(), data, into, *moves]
            continue
        data = vector.LoadOp(ra.tmp, [b.value(0)], VectorType(ra.elem, [w]))
        data.result.name_hint = "v"
        store = vector.StoreOp(data.result, g, [b.value(b.add(e, p))])
        ops += [*b.take(), *moves, data, store]
    return ops
