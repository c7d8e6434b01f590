"""The shuffled form of a misaligned write (``BoundedPath.shuffled``): vectors realigned
across lanes by warp shuffles, so that each lane stores one aligned vector.

The lanes hold a row's consecutive vectors in groups of ``L`` (``plan_bounds.row_group``):
in every round, lane ``j`` of a group holds elements ``[c + n j, c + n j + n)`` of one row
(``c`` the group's column), at global offset ``e_j = e_0 + n j``, whose misalignment
``k = e_j mod n`` (a multiple of the granule ``g``) the group shares. The aligned vector
``[e_j - k, e_j - k + n)`` is the last ``k`` elements of lane ``j - 1``'s vector and the
first ``n - k`` of lane ``j``'s: ``out[p] = prev[n - k + p]`` for ``p < k``, else
``own[p - k]``. Each round:

1. every lane fetches its group's previous lane's vector (lane ``L - 1``'s for lane 0: a
   rotation within the group) as ``n * bits / 32`` 32-bit shuffles, outside any branch but
   one the whole warp takes alike (every lane takes part: the path runs outside the
   thread's reach test; where the group is the warp, a warp whose row is outside or whose
   first column is past the row's end skips the round: ``_warp_inside``);
2. per class of ``k`` (an ``scf.if`` chain on ``k``, one branch per multiple of ``g``),
   the lane assembles ``out`` by register moves (``k = 0``: its own vector) and stores it
   at ``e_j - k`` as one aligned vector where the lane is not its group's first (or
   ``k = 0``), the row is inside and the vector ends inside the row; else ``out``'s granule
   pieces, each under its row and column predicate. For a group's lane 0 (``k > 0``) these
   are the group's two partial vectors: positions ``[k, n)`` at ``e_0 - k`` (its own first
   ``n - k`` elements) and positions ``[0, k)`` at ``e_0 - k + n L`` (lane ``L - 1``'s last
   ``k``).

The stores sit in their class's branch, ``k`` a constant there. One store block after the
chain for every ``k`` (``k`` a register) takes half the code (``examples/gemm.mlir``'s
kernel: 7232 SASS instructions against 14336), but on the H200 it ran the 32 x 256
benchmark tile at 0.70x of the realigned form's speed at 65 columns, and the GEMMs'
epilogues no faster (``lab/results/h200_2026-12-04``).

Each aligned store writes its 16 bytes once; the realigned form's pieces touch every sector
of the warp's span once a piece (``misaligned_cost.shuffled_cost``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from regcopy_passes.core.index_builder import IndexBuilder, Value
from regcopy_passes.reg_copy.emit_realign import move, staging_buffer
from xdsl.dialects import arith, scf, vector
from xdsl.dialects.builtin import VectorType, i32
from xdsl.ir import Attribute, Operation, SSAValue

from regcopy_dialect.gpu_shuffle import ShuffleMode, ShuffleOp

WORD_BITS = 32


@dataclass(frozen=True)
class RoundAt:
    """What a round needs from the copy's frame: the lane's vector's global offset and first
    register, the row predicate (None: every row inside), the vector's first column and the
    row length it is checked against (None: not checked)."""

    g_off: Value
    r_off: Value
    rows: SSAValue | None
    col: Value
    extent: Value | None


@dataclass(frozen=True)
class Shuffling:
    """A shuffled path: the path builder (values made once), the vector width ``n``, the
    granule, the lane group ``L``, the element type and bits, the thread index ``t``, the
    round's frame (``round_at``) and the rounds' loop (``rounds``)."""

    b: IndexBuilder
    n: int
    granule: int
    group: int
    elem: Attribute
    element_bits: int
    t: Value
    round_at: Callable[[IndexBuilder, Value], RoundAt]
    rounds: Callable[[Callable[[IndexBuilder, Value], list[Operation]]], list[Operation]]


def _move(b: IndexBuilder, src: SSAValue, at: Value, dst: SSAValue, to: Value, elem: Attribute,
          w: int) -> list[Operation]:
    """``dst[to : +w] = src[at : +w]`` (``emit_realign.move``), after the index math ``b``
    holds."""
    ops = move(src, at, dst, to, elem, w, b)
    return [*b.take(), *ops]


def _source_lane(s: Shuffling) -> SSAValue:
    """``i32``: the lane this lane pulls from, the previous one of its group (rotating):
    ``(lane & ~(L-1)) | ((lane + L - 1) & (L-1))``."""
    b, group = s.b, s.group
    lane = b.and_(s.t, 31)
    src = b.add(b.and_(lane, 31 & ~(group - 1)), b.and_(b.add(lane, group - 1), group - 1))
    return b.emit(arith.IndexCastOp(b.value(src), i32), "from")


def _fetch(s: Shuffling, body: IndexBuilder, r: SSAValue, r_off: Value, prev: SSAValue,
           source: SSAValue, width: SSAValue) -> list[Operation]:
    """``prev[0:n]`` = the source lane's registers ``r_off ..``, word by word."""
    per = WORD_BITS // s.element_bits
    unit = VectorType(s.elem, [per])
    ops: list[Operation] = []
    for w in range(s.n // per):
        load = vector.LoadOp(r, [body.value(body.add(r_off, w * per))], unit)
        word = vector.BitcastOp(load.result, VectorType(i32, [1]))
        scalar = vector.ExtractOp(word.result, [0], i32)
        shuffle = ShuffleOp(scalar.result, source, width, ShuffleMode.IDX)
        back = vector.BroadcastOp(shuffle.shuffle_result, VectorType(i32, [1]))
        unit_back = vector.BitcastOp(back.vector, unit)
        store = vector.StoreOp(unit_back.result, prev, [body.value(w * per)])
        ops += [*body.take(), load, word, scalar, shuffle, back, unit_back, store]
    return ops


def _pred(b: IndexBuilder, at: RoundAt, last_col: Value) -> SSAValue | None:
    """The row inside and ``last_col < extent`` (None: nothing checked)."""
    preds = [p for p in (at.rows,) if p is not None]
    if at.extent is not None:
        preds.append(b.emit(arith.CmpiOp(b.value(last_col), b.value(at.extent), "ult")))
    return b.all_of(preds)


def _guarded(pred: SSAValue | None, ops: list[Operation],
             other: list[Operation] | None = None) -> list[Operation]:
    if pred is None:
        return ops
    return [scf.IfOp(pred, [], [*ops, scf.YieldOp()],
                     [*other, scf.YieldOp()] if other is not None else None)]


def _assemble(s: Shuffling, hoist: IndexBuilder, k: int, own: SSAValue, out: SSAValue,
              prev: SSAValue) -> list[Operation]:
    """``out`` for one class of ``k`` (module doc, step 2): ``out[p] = prev[n - k + p]``
    for ``p < k``, else ``own[p - k]`` (register moves; constants go where ``hoist``'s do)."""
    b = IndexBuilder(hoist_to=hoist)
    if k == 0:
        per = WORD_BITS // s.element_bits
        return [op for p in range(0, s.n, per) for op in _move(b, own, p, out, p, s.elem, per)]
    return [op for p in range(s.n) for op in (_move(b, prev, s.n - k + p, out, p, s.elem, 1)
                                               if p < k else
                                               _move(b, own, p - k, out, p, s.elem, 1))]


def _store_out(s: Shuffling, b: IndexBuilder, g: SSAValue, at: RoundAt, k: int,
               out: SSAValue, head: SSAValue) -> list[Operation]:
    """``out`` stored for one class of ``k`` (module doc, step 3): at ``start = e_j - k`` as
    one aligned vector where the lane is not a group's first (or ``k = 0``), the row is
    inside and the vector ends inside it; else granule pieces, each under its row and column
    predicate, the pieces below ``k`` of a group's first lane at ``start + n L``."""
    n, gr = s.n, s.granule
    start = b.binary(arith.SubiOp, at.g_off, k) if k else at.g_off
    col = b.binary(arith.SubiOp, at.col, k) if k else at.col
    ends = _pred(b, at, b.add(col, n - 1))
    wide_ok, tail = ends, (start, col)
    if k:
        body = b.emit(arith.XOrIOp(head, b.emit(arith.ConstantOp.from_int_and_width(1, 1))))
        wide_ok = body if ends is None else b.emit(arith.AndIOp(body, ends))
        jump = b.emit(arith.SelectOp(head, b.value(n * s.group), b.value(0)), "jump")
        tail = (b.add(start, jump), b.add(col, jump))
    pre = b.take()
    wide = _move(b, out, 0, g, start, s.elem, n)
    if wide_ok is None:
        return [*pre, *wide]
    pieces: list[Operation] = []
    for p in range(0, n, gr):  # below k: the run's tail for a group's first lane
        first, first_col = tail if p < k else (start, col)
        pp = _pred(b, at, b.add(first_col, p + gr - 1))
        pieces += [*b.take(), *_guarded(pp, _move(b, out, p, g, b.add(first, p), s.elem, gr))]
    return [*pre, scf.IfOp(wide_ok, [], [*wide, scf.YieldOp()], [*pieces, scf.YieldOp()])]


def _warp_inside(s: Shuffling, b: IndexBuilder, at: RoundAt, lane_j: Value
                 ) -> SSAValue | None:
    """Where a group is the whole warp (``L = 32``): whether the warp has anything to store
    this round, its row inside and its first lane's column ``c - n j`` inside the row (a
    condition every lane of the warp shares, so that a warp wholly outside skips its
    shuffles as the other forms' threads skip by their reach test); None otherwise."""
    if s.group != 32:
        return None
    return _pred(b, at, b.binary(arith.SubiOp, at.col, b.mul(lane_j, s.n)))


def shuffled_ops(s: Shuffling, g: SSAValue, r: SSAValue) -> list[Operation]:
    """The shuffled path's ops (module doc): the buffers and the source lane made once, then
    the rounds, each fetching the previous lane's vector and storing by class of ``k``."""
    b, n = s.b, s.n
    per = WORD_BITS // s.element_bits
    prev = staging_buffer(b, s.elem, n, "prev")
    out = staging_buffer(b, s.elem, n, "out")
    own = staging_buffer(b, s.elem, n, "own")
    source = _source_lane(s)
    width = b.emit(arith.ConstantOp.from_int_and_width(32, i32))
    lane_j = b.and_(b.and_(s.t, 31), s.group - 1)
    head = b.emit(arith.CmpiOp(b.value(lane_j), b.value(0), "eq"), "head")

    def round_ops(body: IndexBuilder, f: Value) -> list[Operation]:
        at = s.round_at(body, f)
        inside = _warp_inside(s, body, at, lane_j)
        lead = body.take()
        ops = _fetch(s, body, r, at.r_off, prev, source, width)
        for p in range(0, n, per):  # own[0:n] = r[r_off:+n]
            ops += _move(body, r, body.add(at.r_off, p), own, p, s.elem, per)
        k = body.and_(at.g_off, n - 1)
        ops += body.take()
        hoist = body.hoist_to or body

        def branch(kk: int) -> list[Operation]:
            return [*_assemble(s, hoist, kk, own, out, prev),
                    *_store_out(s, IndexBuilder(hoist_to=hoist), g, at, kk, out, head)]

        classes = list(range(0, n, s.granule))
        chain = branch(classes[-1])
        for kk in reversed(classes[:-1]):
            tb = IndexBuilder(hoist_to=hoist)
            test = tb.emit(arith.CmpiOp(tb.value(k), tb.value(kk), "eq"))
            chain = [*tb.take(), scf.IfOp(test, [], [*branch(kk), scf.YieldOp()],
                                          [*chain, scf.YieldOp()])]
        if inside is None:
            return [*lead, *ops, *chain]
        return [*lead, scf.IfOp(inside, [], [*ops, *chain, scf.YieldOp()])]

    return [*b.take(), *s.rounds(round_ops)]


__all__ = ["RoundAt", "Shuffling", "shuffled_ops"]
