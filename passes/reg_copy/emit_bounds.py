"""The emitter of ``BoundedTransfer`` (``bounds``): a copy on a dynamic global buffer.

Hoisted: the runtime extents (``memref.dim``), the strides (row-major, or the buffer's
``strided<[...]>``: ``strides.buffer_strides``), the thread's coordinate
on every dim (``bounds.project`` run through the thread math) and its start
``sum((o_i + coord_i) * stride_i)``. Then, per path (versioned: ``scf.if`` on the stride
tests, wide path first), the rounds; each round moves one vector under ONE predicate (the
row coordinates against their extents, the vector's last element, and its first where the
column offset is dynamic, against the innermost extent): a read ``scf.if -> vector`` that
yields the load or the padding, a write ``scf.if`` around the store. A vector that may
straddle the innermost extent (``tail < n``) is, when its predicate fails, done as pieces of
``tail`` elements, each with its own predicate (all but the last, which ends where the vector
does and so is outside too). A read's pieces are its ``else`` (they yield registers); a
write's follow its store, each under the rows' checks, its own column check and "the vector's
last column is outside", that column part made once before the path's rounds where no round
moves the column: a warp with one straddling lane then runs no ``else``, and the other path
does not pay for it (on the H200, 32 x 256 bench tile: 7-11% more bandwidth on misaligned rows
of 5-35 columns, 0-4.5% on longer ones; the 64 x 64 tile's versioned kernel down from 38 to 32
registers; ``lab/ragged/ab_sources.py``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from regcopy_passes.core.bounds import BoundedPath, BoundedTransfer, fixed_dims, project
from regcopy_passes.reg_copy.emit_realign import (
    Realign,
    load_pieces,
    staging_buffer,
    store_pieces,
)
from regcopy_passes.reg_copy.emit_shuffled import RoundAt, Shuffling, shuffled_ops
from regcopy_passes.reg_copy.emit_staged import Staging, staged_ops
from regcopy_passes.reg_copy.plan_bounds import row_group
from regcopy_passes.core.emit_thread import emit_thread_share
from regcopy_passes.core.index_builder import IndexBuilder, Value
from regcopy_passes.core.planning import Atom, CopyPlan, round_offsets
from regcopy_passes.core.strides import buffer_strides
from regcopy_passes.reg_copy.transfer import LoweringPlan
from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerType,
    MemRefType,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from regcopy_dialect.regcopy import CopyOp, StorageOp


class _Frame:
    """The hoisted values one copy's paths share."""

    def __init__(self, b: IndexBuilder, op: CopyOp, lp: LoweringPlan, t: Value):
        self.b, self.op, self.acc = b, op, lp.acc
        bt = lp.transfer
        assert isinstance(bt, BoundedTransfer)
        self.bt = bt
        s_side = "src" if lp.acc.r_is_dst else "dst"
        self.g = op.src if lp.acc.r_is_dst else op.dst
        g_type = self.g.type
        assert isinstance(g_type, MemRefType)
        self.elem = g_type.element_type
        self.shape = g_type.get_shape()
        offsets, self.sizes = op.region(s_side)
        self.offsets = offsets
        self.rank = len(self.shape)
        self._extents: dict[int, Value] = {}
        self._realign: Realign | None = None
        self.pads: dict[int, SSAValue] = {}
        self.hoisted_checks: dict[tuple[SSAValue, SSAValue], SSAValue] = {}
        self.path_b = IndexBuilder(hoist_to=b)
        """Values a path makes once, before its rounds (``_path_ops``): the column parts of a
        straddling write's pieces, which the other path does not need."""
        self.implied: set[SSAValue] = set()
        """Checks the rounds run under (``_reach``), left out of their predicates."""
        self.strides: list[Value] = buffer_strides(b, self.g, self.extent)
        plan = bt.paths[0].plan
        coords = [emit_thread_share(b, project(plan, self.sizes, i), t)
                  for i in range(self.rank)]
        self.recon = coords[0][1]
        self.dynamic_col = not isinstance(offsets[-1], int)
        self.rows: list[Value] = [b.add(o, c) for o, (c, _) in zip(offsets, coords)]
        start: Value = 0
        for i in range(self.rank):
            start = b.add(start, self.mul(self.rows[i], self.strides[i]))
        self.start = start

    def realign(self, path: BoundedPath) -> Realign:
        """The staging buffer a realigned store uses (emitted once)."""
        if self._realign is None:
            n = path.plan.n
            self._realign = Realign(self.elem, n, path.realign,
                                    staging_buffer(self.b, self.elem, n))
        return self._realign

    def extent(self, i: int) -> Value:
        """Extent ``i``: its static size, or ``memref.dim`` (emitted once, hoisted)."""
        if self.shape[i] != DYNAMIC_INDEX:
            return self.shape[i]
        if i not in self._extents:
            self._extents[i] = self.b.emit(
                memref.DimOp(self.g, self.b.value(i)), f"e{i}")
        return self._extents[i]

    def mul(self, a: Value, c: Value, b: IndexBuilder | None = None) -> Value:
        """``a * c`` for index values (the builder's ``mul`` takes a constant factor)."""
        b = self.b if b is None else b
        if isinstance(c, int):
            return b.mul(a, c)
        if isinstance(a, int):
            return b.mul(c, a)
        return b.binary(arith.MuliOp, a, c)


def _cmp(b: IndexBuilder, a: Value, e: Value, pred: str = "ult") -> SSAValue:
    return b.emit(arith.CmpiOp(b.value(a), b.value(e), pred))


def _pad(fr: _Frame, n: int) -> SSAValue:
    """``arith.constant dense<V> : vector<n x T>`` in the hoisted code (V: the padding),
    emitted once per width."""
    if n in fr.pads:
        return fr.pads[n]
    vtype = VectorType(fr.elem, [n])
    pad: Attribute | None = fr.bt.padding  # type: ignore[assignment]
    if pad is None:
        value: float | int = 0 if isinstance(fr.elem, IntegerType) else 0.0
    else:
        value = pad.value.data  # type: ignore[attr-defined]
        if isinstance(pad, FloatAttr):
            value = float(value)
    attr = DenseIntOrFPElementsAttr.from_list(vtype, [value] * n)  # type: ignore[arg-type]
    fr.pads[n] = fr.b.emit(arith.ConstantOp(attr, vtype), f"pad{n}")
    return fr.pads[n]


def _vector_ops(fr: _Frame, body: IndexBuilder, g: SSAValue, r: SSAValue, g_off: Value,
                r_off: Value, n: int, pred: SSAValue | None) -> list[Operation]:
    """One vector of ``n`` under ``pred`` (None: unchecked), as ops appended after ``body``'s."""
    vtype = VectorType(fr.elem, [n])
    goff, roff = body.value(g_off), body.value(r_off)
    if fr.acc.r_is_dst:  # read: registers get the load or the padding
        load = vector.LoadOp(g, [goff], vtype)
        load.result.name_hint = "v"
        if pred is None:
            return [load, vector.StoreOp(load.result, r, [roff])]
        sel = scf.IfOp(pred, [vtype], [load, scf.YieldOp(load.result)],
                       [scf.YieldOp(_pad(fr, n))])
        sel.results[0].name_hint = "v"
        return [sel, vector.StoreOp(sel.results[0], r, [roff])]
    load = vector.LoadOp(r, [roff], vtype)
    load.result.name_hint = "v"
    store = vector.StoreOp(load.result, g, [goff])
    if pred is None:
        return [load, store]
    return [load, scf.IfOp(pred, [], [store, scf.YieldOp()])]


def _check(fr: _Frame, body: IndexBuilder, at: Value, step: Value, extent: Value,
           path: bool = False) -> SSAValue:
    """``at + step <u extent``: in ``body``, or hoisted (made once) when ``step`` is 0, i.e.
    the same in every round: before the copy's paths, or with ``path`` before this path's
    rounds (``_Frame.path_b``) unless the copy's prologue has it already."""
    if step != 0:
        return _cmp(body, body.add(at, step), extent)
    b = fr.path_b if path else fr.b
    key = (b.value(at), b.value(extent))
    if key in fr.hoisted_checks:
        return fr.hoisted_checks[key]
    if path:  # (a path's round body is built once: nothing to share within the path)
        return _cmp(b, *key)
    fr.hoisted_checks[key] = _cmp(b, *key)
    return fr.hoisted_checks[key]


def _row_checks(fr: _Frame, body: IndexBuilder, steps: Sequence[Value]) -> list[SSAValue]:
    """The row coordinates ``o_i + coord_i`` (the thread's, hoisted, plus the round's
    ``steps[i]``) against their extents: every checked dim but the innermost."""
    return [_check(fr, body, fr.rows[i], steps[i], fr.extent(i))
            for i in fr.bt.checked if i != fr.rank - 1]


def _column_checks(fr: _Frame, body: IndexBuilder, steps: Sequence[Value], first: int,
                   n: int, path: bool = False) -> list[SSAValue]:
    """The run ``[first, first + n)`` of the innermost dim against its extent: its last
    element (and its first, with a dynamic column offset). Hoisted when no round moves the
    column (``path``: before the path's rounds, ``_check``)."""
    last = fr.rank - 1
    if last not in fr.bt.checked:
        return []
    col, e, step = fr.rows[last], fr.extent(last), steps[last]
    b = fr.path_b if path else fr.b
    preds: list[SSAValue] = []
    if fr.dynamic_col and n > 1:  # (for one element, the last check is this one)
        preds.append(_check(fr, body, b.add(col, first) if step == 0 else col,
                            body.add(step, first) if step != 0 else 0, e, path))
    end = first + n - 1
    if step == 0:
        preds.append(_check(fr, body, b.add(col, end), 0, e, path))
    else:
        preds.append(_check(fr, body, col, body.add(step, end), e))
    return preds


def _predicate(fr: _Frame, body: IndexBuilder, steps: Sequence[Value], first: int,
               n: int) -> SSAValue | None:
    """In bounds iff the rows are (``_row_checks``) and the run ``[first, first + n)`` of the
    innermost dim (``_column_checks``). A check that does not change from round to round is
    hoisted; those the rounds run under (``_reach``) are left out."""
    preds = [*_row_checks(fr, body, steps), *_column_checks(fr, body, steps, first, n)]
    return body.all_of([p for p in preds if p not in fr.implied])


def _straddle_columns(fr: _Frame, body: IndexBuilder, steps: Sequence[Value], n: int,
                      w: int, pred: SSAValue) -> list[SSAValue]:
    """The column part of each written piece ``[j, j + w)`` of a vector of ``n`` that may
    straddle the innermost extent (``j`` in ``range(0, n - w, w)``): the piece inside, and the
    vector's own store not run (``pred``, the vector's predicate, false). Where no round moves
    the column, ``not pred`` is ``not`` the check of the vector's last column alone (the piece
    predicate adds the rows), and the parts are made before the path's rounds (in the copy's
    prologue the other path paid for them: 3-4% at N <= 16 on the 32 x 256 bench tile); else
    in ``body``. (A path's round body is built once, so this runs once per path.)"""
    hoisted = steps[fr.rank - 1] == 0
    b = fr.path_b if hoisted else body
    whole = _column_checks(fr, body, steps, n - 1, 1)[0] if hoisted else pred
    outside = b.emit(arith.XOrIOp(whole, b.emit(arith.ConstantOp.from_int_and_width(1, 1))))
    # (a negated check, not a second compare: with an ``uge`` compare ptxas kept 2 more
    # registers on the 32 x 256 bench tile)
    cols = []
    for j in range(0, n - w, w):
        inside = [p for p in _column_checks(fr, body, steps, j, w, hoisted)
                  if p not in fr.implied]
        col = b.all_of([*inside, outside])
        assert col is not None
        cols.append(col)
    return cols


def _round_steps(fr: _Frame, body: IndexBuilder, plan: CopyPlan, f: Value
                 ) -> tuple[list[Value], Value]:
    """``(steps, g_off)`` of round ``f``: its offset along each dim, and the thread's global
    offset there (the copy's start plus each step times its stride)."""
    steps: list[Value] = []
    g_off: Value = fr.start
    for i in range(fr.rank):
        di, _ = round_offsets(body, project(plan, fr.sizes, i).outer, f)
        steps.append(di)
        g_off = body.add(g_off, fr.mul(di, fr.strides[i], body))
    return steps, g_off


def _round(fr: _Frame, body: IndexBuilder, path: BoundedPath, f: Value, g: SSAValue,
           r: SSAValue) -> list[Operation]:
    """The ops of round ``f``: offsets, the predicate, the vector (or its pieces)."""
    plan = path.plan
    steps, g_off = _round_steps(fr, body, plan, f)
    r_off = _r_offset(fr, body, plan, f)
    pred = _predicate(fr, body, steps, 0, plan.n)
    whole = (pred is None or path.tail >= plan.n  # else a straddling vector: pieces below
             or fr.rank - 1 not in fr.bt.checked)  # (no vector straddles a static column)
    gate = pred if whole else None
    if path.realign:  # vectors realigned at run time (``bounds.choose_paths``)
        pieces = load_pieces if fr.acc.r_is_dst else store_pieces
        wide = pieces(fr.realign(path), body, g, r, g_off, r_off)
        if gate is not None:
            pad = IndexBuilder(hoist_to=fr.b)  # a read outside: the registers get the padding
            wide = [scf.IfOp(gate, [], [*wide, scf.YieldOp()],
                             [*_padding_ops(fr, pad, r, r_off, plan.n), scf.YieldOp()]
                             if fr.acc.r_is_dst else None)]
    else:
        wide = _vector_ops(fr, body, g, r, g_off, r_off, plan.n, gate)
    head = body.take()  # after the wide ops: the realigned store's misalignment math
    if whole:
        return [*head, *wide]
    assert pred is not None
    pieces = IndexBuilder(hoist_to=fr.b)
    parts: list[Operation] = []
    if fr.acc.r_is_dst:  # a read: the pieces in the vector's else, each under its predicate
        for j in range(0, plan.n - path.tail, path.tail):  # the last piece ends where the
            # vector does: it is outside whenever the vector's predicate fails
            p = _predicate(fr, pieces, steps, j, path.tail)
            parts += _piece_ops(fr, pieces, g, r, g_off, r_off, j, path.tail, p)
        parts += _padding_ops(fr, pieces, r, pieces.add(r_off, plan.n - path.tail), path.tail)
        return [*head, scf.IfOp(pred, [], [*wide, scf.YieldOp()], [*parts, scf.YieldOp()])]
    # a write: the pieces after the vector's store, each under its rows and a column part
    # that says the vector's store did not run, so that a warp with one straddling lane runs
    # no else
    rows = [p for p in _row_checks(fr, pieces, steps) if p not in fr.implied]
    cols = _straddle_columns(fr, pieces, steps, plan.n, path.tail, pred)
    for j, col in zip(range(0, plan.n - path.tail, path.tail), cols):
        parts += _piece_ops(fr, pieces, g, r, g_off, r_off, j, path.tail,
                            pieces.all_of([*rows, col]))
    return [*head, scf.IfOp(pred, [], [*wide, scf.YieldOp()]), *parts]


def _piece_ops(fr: _Frame, pieces: IndexBuilder, g: SSAValue, r: SSAValue, g_off: Value,
               r_off: Value, j: int, w: int, p: SSAValue | None) -> list[Operation]:
    """Piece ``[j, j + w)`` of a straddling vector under ``p``, with its index math."""
    ops = _vector_ops(fr, pieces, g, r, pieces.add(g_off, j), pieces.add(r_off, j), w, p)
    return [*pieces.take(), *ops]


def _r_offset(fr: _Frame, body: IndexBuilder, plan: CopyPlan, f: Value) -> Value:
    """Round ``f``'s first register: the plan's register base plus the round's step."""
    registers = tuple(Atom(a.extent, 0, a.r_step) for a in plan.outer)
    _, dr = round_offsets(body, registers, f)
    return body.add(fr.b.affine(plan.r_base), dr)


def _reach(fr: _Frame) -> list[SSAValue]:
    """The checks that the thread can have an element in bounds at all: on each dim no
    round moves it along (``bounds.fixed_dims``), its first element's coordinate
    ``o_i + coord_i <u extent_i``. The rounds run under their conjunction, and drop them from
    their own predicates (``_Frame.implied``)."""
    return [_check(fr, fr.b, fr.rows[i], 0, fr.extent(i))
            for i in fixed_dims(fr.bt, fr.sizes)]


def _padding_rounds(fr: _Frame, r: SSAValue) -> list[Operation]:
    """Every register of the thread gets the padding (a read none of whose elements is in
    bounds), round by round over the first path's plan."""
    plan = fr.bt.paths[0].plan
    return _rounds(fr, plan.rounds, lambda body, f: _padding_ops(
        fr, body, r, _r_offset(fr, body, plan, f), plan.n))


def _padding_ops(fr: _Frame, b: IndexBuilder, r: SSAValue, r_off: Value, n: int
                 ) -> list[Operation]:
    """Registers ``[r_off, r_off + n)`` get the padding (reads; nothing for writes)."""
    if not fr.acc.r_is_dst:
        return []
    return [*b.take(), vector.StoreOp(_pad(fr, n), r, [b.value(r_off)])]


def _path_ops(fr: _Frame, path: BoundedPath, g: SSAValue, r: SSAValue) -> list[Operation]:
    """The rounds of one path, after the values it makes once (``_Frame.path_b``: a builder
    of its own, so that no value one path makes is reused by the other, which it does not
    dominate; both paths have straddling pieces when the test is on a strided buffer's row
    stride rather than on the row length)."""
    fr.path_b = IndexBuilder(hoist_to=fr.b)
    rounds = _rounds(fr, path.plan.rounds, lambda body, f: _round(fr, body, path, f, g, r))
    return [*fr.path_b.take(), *rounds]


def _rounds(fr: _Frame, rounds: int,
            round_ops: Callable[[IndexBuilder, Value], list[Operation]]) -> list[Operation]:
    """``round_ops(body, f)`` for ``f`` in ``[0, rounds)``: one round inline, else an
    ``scf.for`` (hoisted values go to the frame's builder)."""
    body = IndexBuilder(hoist_to=fr.b)
    if rounds == 1:
        return round_ops(body, 0)
    block = Block(arg_types=[IndexType()])
    block.args[0].name_hint = "f"
    block.add_ops([*round_ops(body, block.args[0]), scf.YieldOp()])
    return [scf.ForOp(fr.b.value(0), fr.b.value(rounds), fr.b.value(1), [], Region(block))]


def _staged_path_ops(fr: _Frame, path: BoundedPath, g: SSAValue, r: SSAValue, t: Value
                     ) -> list[Operation]:
    """The rounds of a staged path (``emit_staged``), every thread taking part."""
    fr.path_b = IndexBuilder(hoist_to=fr.b)
    plan = path.plan
    return staged_ops(Staging(
        fr.path_b, plan, fr.sizes, fr.offsets, fr.strides,
        [fr.extent(i) for i in range(fr.rank)], fr.bt.checked, fr.acc.r_is_dst, fr.elem,
        path.staged, t, lambda n: _pad(fr, n),
        lambda body, f: _r_offset(fr, body, plan, f),
        lambda count, ops: _rounds(fr, count, ops), fr.mul), g, r)


def _shuffled_path_ops(fr: _Frame, path: BoundedPath, g: SSAValue, r: SSAValue, t: Value
                       ) -> list[Operation]:
    """The rounds of a shuffled path (``emit_shuffled``), every thread taking part: each
    round's offsets and checks as ``_round`` makes them, none left out for the thread's
    reach (the path runs outside it)."""
    fr.path_b = IndexBuilder(hoist_to=fr.b)
    fr.implied = set()
    plan, last = path.plan, fr.rank - 1

    def round_at(body: IndexBuilder, f: Value) -> RoundAt:
        steps, g_off = _round_steps(fr, body, plan, f)
        rows = body.all_of(_row_checks(fr, body, steps))
        extent = fr.extent(last) if last in fr.bt.checked else None
        return RoundAt(g_off, _r_offset(fr, body, plan, f), rows,
                       body.add(fr.rows[last], steps[last]), extent)

    return shuffled_ops(Shuffling(
        fr.path_b, plan.n, path.shuffled, row_group(plan, fr.sizes), fr.elem,
        fr.bt.element_bits, t, round_at, lambda ops: _rounds(fr, plan.rounds, ops)), g, r)


def emit_bounded(b: IndexBuilder, op: CopyOp, lp: LoweringPlan, t: Value,
                 storages: tuple[StorageOp, StorageOp]) -> list[Operation]:
    """The hoisted frame and storages into ``b``; returns the paths (versioned, guarded). A
    staged or shuffled path (``emit_staged``, ``emit_shuffled``) runs outside the thread's
    reach test: every lane takes part in it."""
    fr = _Frame(b, op, lp, t)
    b.ops += storages
    src, dst = storages[0].result, storages[1].result
    g, r = (src, dst) if lp.acc.r_is_dst else (dst, src)
    paths = fr.bt.paths
    if len(paths) == 1 and paths[0].staged:
        return _staged_path_ops(fr, paths[0], g, r, t)
    if len(paths) == 1 and paths[0].shuffled:
        return _shuffled_path_ops(fr, paths[0], g, r, t)
    staged = len(paths) >= 2 and paths[1].staged
    shuffled = len(paths) == 2 and paths[1].shuffled
    parts = _reach(fr)
    fr.implied = set(parts)
    work = _path_ops(fr, paths[0], g, r)
    if len(paths) == 2 and not staged and not shuffled:
        work = _versioned(fr, paths[0], work, lambda: _path_ops(fr, paths[1], g, r))
    reach = b.all_of(parts)
    if reach is not None:
        reach.name_hint = "reach"
    work = _reached(fr, reach, work, r)
    if staged:
        return _versioned(fr, paths[0], work, lambda: _short_or_staged(fr, reach, g, r, t))
    if shuffled:
        return _versioned(fr, paths[0], work, lambda: _shuffled_path_ops(fr, paths[1], g, r, t))
    if not fr.bt.paths[0].plan.guarded:
        return work
    owned = b.emit(arith.CmpiOp(b.value(fr.recon), b.value(t), "eq"), "owned")
    return [scf.IfOp(owned, [], [*work, scf.YieldOp()])]


def _reached(fr: _Frame, reach: SSAValue | None, work: list[Operation], r: SSAValue
             ) -> list[Operation]:
    """``work`` under the thread's reach (``_reach``; a read outside gets the padding)."""
    if reach is None:
        return work
    padding = _padding_rounds(fr, r) if fr.acc.r_is_dst else []
    return [scf.IfOp(reach, [], [*work, scf.YieldOp()],
                     [*padding, scf.YieldOp()] if padding else None)]


def _short_or_staged(fr: _Frame, reach: SSAValue | None, g: SSAValue, r: SSAValue, t: Value
                     ) -> list[Operation]:
    """The staged path; where it has a short-row threshold ``T`` (``BoundedPath.short``),
    ``if extent < T`` the proven path (predicated, under the thread's reach) else the
    staged one: a test on the row length, the same for every thread of the launch."""
    staged, paths = fr.bt.paths[1], fr.bt.paths
    if not staged.short:
        return _staged_path_ops(fr, staged, g, r, t)
    b = fr.b
    short = b.emit(arith.CmpiOp(b.value(fr.extent(fr.rank - 1)), b.value(staged.short),
                                "ult"), "short")
    rows = _reached(fr, reach, _path_ops(fr, paths[2], g, r), r)
    return [scf.IfOp(short, [], [*rows, scf.YieldOp()],
                     [*_staged_path_ops(fr, staged, g, r, t), scf.YieldOp()])]


def _versioned(fr: _Frame, wide: BoundedPath, work: list[Operation],
               other: Callable[[], list[Operation]]) -> list[Operation]:
    """``if aligned`` (every stride test of the wide path) ``work``, else ``other()`` (made
    after the tests)."""
    b, n = fr.b, wide.plan.n
    tests = [b.emit(arith.CmpiOp(b.value(b.rem(fr.strides[i], n)), b.value(0), "eq"))
             for i in wide.tests]
    ok = b.all_of(tests)
    assert ok is not None
    ok.name_hint = "aligned"
    return [scf.IfOp(ok, [], [*work, scf.YieldOp()], [*other(), scf.YieldOp()])]
