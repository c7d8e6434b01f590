"""The staged form of a misaligned copy on a dynamic global buffer (``BoundedPath.staged``):
the vectors of each warp's round pass through the warp's own slice of shared memory, so that
global memory is read or written in lane order, as a plain masked copy moves it.

A thread's vector of ``n`` elements in round ``f`` sits in its warp's slice ``f`` at
``n * lane`` (one ``n``-wide shared access a thread, conflict-free: the warp's vectors lie end
to end). Global memory sees the slice as ``32 u`` units of ``g`` elements (``g``: the granule
the row length is proven a multiple of, ``u = n / g``): transfer ``j`` of lane ``l`` moves unit
``l + 32 j``, i.e. part ``q = l mod u`` of the vector of lane ``(l + 32 j) / u``: that lane's
coordinates (the layout's thread math run on it) plus ``q g`` columns, under one predicate
(rows and column against the extents; a unit is wholly in or out). A read fills the slice
(the padding where out of bounds), meets the warp (``__syncwarp``), and takes its vectors; a
write puts its vectors, meets the warp, and stores the units. Every lane of every warp runs
the form (no thread skips it), and a warp barrier opens it, so a slice reused by the kernel's
next staged copy is not overwritten while a lane still reads it.

The slices (one per warp and round) are a ``shared`` alloca marked ``regcopy.staging``; the
pass hoists them to the kernel's entry and gives every staged copy of a kernel with the same
element type and size the same one (``merge_staging``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from regcopy_passes.core.bounds import project
from regcopy_passes.core.emit_thread import emit_thread_share
from regcopy_passes.core.index_builder import IndexBuilder, Value
from regcopy_passes.core.planning import CopyPlan, round_offsets
from xdsl.dialects import arith, builtin, func, gpu, memref, scf, vector
from xdsl.dialects.builtin import MemRefType, UnitAttr, VectorType
from xdsl.ir import Attribute, Operation, SSAValue

from regcopy_dialect.regcopy import MemSpace, MemSpaceAttr, StorageOp

STAGING_ATTR = "regcopy.staging"
"""On a ``shared`` alloca: the slices of the staged misaligned copies (module doc)."""
WARP_BARRIER = "regcopy.warp"
"""On a ``gpu.barrier``: only the executing warp meets (``__syncwarp()``)."""

RoundOps = Callable[[IndexBuilder, Value], list[Operation]]


@dataclass
class Staging:
    """What the staged form reads of the copy (``emit_bounds`` makes it)."""

    b: IndexBuilder
    """The path's prologue (values made once, before its rounds)."""
    plan: CopyPlan
    sizes: Sequence[int]
    offsets: Sequence[Value]
    strides: Sequence[Value]
    extents: Sequence[Value]
    checked: Sequence[int]
    reads: bool
    elem: Attribute
    granule: int
    t: Value
    pad: Callable[[int], SSAValue]
    r_offset: Callable[[IndexBuilder, Value], Value]
    rounds: Callable[[int, RoundOps], list[Operation]]
    mul: Callable[[Value, Value, IndexBuilder], Value]


def _barrier() -> gpu.BarrierOp:
    op = gpu.BarrierOp()
    op.attributes[WARP_BARRIER] = UnitAttr()
    return op


def _lt(b: IndexBuilder, a: Value, e: Value) -> SSAValue:
    return b.emit(arith.CmpiOp(b.value(a), b.value(e), "ult"))


@dataclass
class _Unit:
    """Transfer ``j``'s unit, made once before the rounds: its coordinates on every dim (the
    innermost: its first column), its global start and its slot in the round's slice."""

    rows: list[Value]
    start: Value
    slot: Value


def unit_deltas(plan: CopyPlan, sizes: Sequence[int], u: int
                ) -> list[tuple[int, ...] | None]:
    """Per transfer ``j``: the coordinates of its unit minus unit 0's, where that difference
    is the same for every lane of every warp (None where it is not): unit ``j`` of lane
    ``l`` in warp ``w`` is part ``l mod u`` of the vector of thread ``32 w + (l + 32 j) / u``,
    unit 0 of thread ``32 w + l / u``, so where the layout's thread digits carry alike in
    every lane (the 64 x 64 tile: 16 threads a row, a warp's 8 owners of a transfer one row's
    half), unit ``j`` is unit 0 moved by a constant: its offsets fold into the address (one
    base a warp's row, the rest immediate), as a hand-written copy computes them."""
    dims = [project(plan, sizes, i) for i in range(len(sizes))]
    out: list[tuple[int, ...] | None] = []
    for j in range(u):
        seen: set[tuple[int, ...]] = set()
        for t in range(0, plan.threads, 32):
            for lane in range(32):
                a, b = t + lane // u, t + (lane + 32 * j) // u
                seen.add(tuple(d.thread_share(b)[0] - d.thread_share(a)[0] for d in dims))
        out.append(seen.pop() if len(seen) == 1 else None)
    return out


def staged_ops(s: Staging, g: SSAValue, r: SSAValue) -> list[Operation]:
    """The staged path's ops (module doc): prologue, barrier, the rounds of one side,
    barrier, the rounds of the other."""
    b, plan, n, gr = s.b, s.plan, s.plan.n, s.granule
    u, last, rounds = n // gr, len(s.sizes) - 1, plan.rounds
    lane = b.rem(s.t, 32)
    warp = b.div(s.t, 32)  # (a CTA-wide copy of a 1-D block: t is the thread's index)
    first = b.mul(warp, 32)
    size = plan.threads * rounds * n
    alloca = memref.AllocaOp.get(s.elem, shape=[size],
                                 memory_space=MemSpaceAttr(MemSpace.SHARED))
    alloca.attributes[STAGING_ATTR] = UnitAttr()
    slices = b.emit(alloca, "staging")
    view = b.emit(StorageOp(slices), "slices")
    base = b.mul(warp, rounds * 32 * n)
    part = b.mul(b.rem(lane, u), gr)
    units: list[_Unit] = []
    deltas = unit_deltas(plan, s.sizes, u)
    for j in range(u):
        slot = b.add(base, b.mul(b.add(lane, 32 * j), gr))
        if units and (d := deltas[j]) is not None:  # unit 0's coordinates, moved by d
            rows = [b.add(x, d[i]) for i, x in enumerate(units[0].rows)]
            start = units[0].start
            for i, di in enumerate(d):
                start = b.add(start, s.mul(di, s.strides[i], b) if di else 0)
            units.append(_Unit(rows, start, slot))
            continue
        owner = b.add(first, b.div(b.add(lane, 32 * j), u))
        rows = [b.add(o, emit_thread_share(b, project(plan, s.sizes, i), owner)[0])
                for i, o in enumerate(s.offsets)]
        rows[last] = b.add(rows[last], part)
        start = 0
        for i in range(len(rows)):
            start = b.add(start, s.mul(rows[i], s.strides[i], b))
        units.append(_Unit(rows, start, slot))
    own = b.add(base, b.mul(lane, n))
    vtype, utype = VectorType(s.elem, [n]), VectorType(s.elem, [gr])

    def unit_round(body: IndexBuilder, f: Value) -> list[Operation]:
        steps = [round_offsets(body, project(plan, s.sizes, i).outer, f)[0]
                 for i in range(len(s.sizes))]
        ops: list[Operation] = []
        for unit in units:
            at: Value = unit.start
            for i, d in enumerate(steps):
                at = body.add(at, s.mul(d, s.strides[i], body))
            checks = [_lt(body if steps[i] != 0 else b, body.add(unit.rows[i], steps[i])
                          if steps[i] != 0 else unit.rows[i], s.extents[i])
                      for i in s.checked if i != last]
            if last in s.checked:
                end = body.add(unit.rows[last], steps[last]) if steps[last] != 0 else \
                    unit.rows[last]
                where = body if steps[last] != 0 else b
                checks.append(_lt(where, where.add(end, gr - 1) if gr > 1 else end,
                                  s.extents[last]))
            pred = body.all_of(checks)
            slot = body.value(body.add(unit.slot, body.mul(f, 32 * n) if f != 0 else 0))
            goff = body.value(at)
            if s.reads:
                load = vector.LoadOp(g, [goff], utype)
                load.result.name_hint = "v"
                if pred is None:
                    ops += [*body.take(), load, vector.StoreOp(load.result, view, [slot])]
                    continue
                sel = scf.IfOp(pred, [utype], [load, scf.YieldOp(load.result)],
                               [scf.YieldOp(s.pad(gr))])
                sel.results[0].name_hint = "v"
                ops += [*body.take(), sel, vector.StoreOp(sel.results[0], view, [slot])]
            else:
                load = vector.LoadOp(view, [slot], utype)
                load.result.name_hint = "v"
                store = vector.StoreOp(load.result, g, [goff])
                guarded: Operation = store if pred is None else \
                    scf.IfOp(pred, [], [store, scf.YieldOp()])
                ops += [*body.take(), load, guarded]
        return ops

    def vector_round(body: IndexBuilder, f: Value) -> list[Operation]:
        slot = body.value(body.add(own, body.mul(f, 32 * n) if f != 0 else 0))
        roff = body.value(s.r_offset(body, f))
        src, src_at, dst, dst_at = (view, slot, r, roff) if s.reads else (r, roff, view, slot)
        load = vector.LoadOp(src, [src_at], vtype)
        load.result.name_hint = "v"
        return [*body.take(), load, vector.StoreOp(load.result, dst, [dst_at])]

    sides = [s.rounds(rounds, unit_round), s.rounds(rounds, vector_round)]
    if not s.reads:
        sides.reverse()
    return [*b.take(), _barrier(), *sides[0], _barrier(), *sides[1]]


def merge_staging(module: builtin.ModuleOp) -> None:
    """Each kernel's staging allocas (``STAGING_ATTR``) of one type become one, at the
    kernel's entry: the staged copies' slices are warp-private and each copy opens with a
    warp barrier, so they share it."""
    for fn in [f for f in module.walk() if isinstance(f, func.FuncOp)]:
        kept: dict[Attribute, memref.AllocaOp] = {}
        for op in [o for o in fn.walk() if isinstance(o, memref.AllocaOp)
                   and STAGING_ATTR in o.attributes]:
            t = op.memref.type
            assert isinstance(t, MemRefType)
            if t not in kept:
                entry = fn.body.blocks[0]
                op.detach()
                assert entry.first_op is not None  # (the kernel's return at least)
                entry.insert_op_before(op, entry.first_op)
                kept[t] = op
                continue
            op.memref.replace_all_uses_with(kept[t].memref)
            op.detach()
            op.erase()
