"""The bounded lowering of copies on dynamic global buffers against a model: for random
runtime extents, region offsets and extent promises, the elements the lowered plan moves (the
predicates and pieces exactly as ``emit_bounds`` writes them, evaluated on integers) are
exactly the in-bounds elements of the region, each once, into the register the static
lowering of the same copy would use; every other register gets the padding."""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from xdsl.parser import Parser

from regcopy_dialect.context import regcopy_context
from regcopy_dialect.regcopy import CopyOp
from regcopy_passes.core.bounds import (
    BoundedTransfer,
    aligned_pieces,
    fixed_dims,
    misalignment_classes,
    project,
)
from regcopy_passes.lower_reg_copy import plan_for
from regcopy_passes.core.planning import CopyPlan, round_deltas, thread_share

Coord = tuple[int, ...]
PAD = None


@dataclass(frozen=True)
class Case:
    """A register tile and the region of S it reads (S's rank = len(sizes))."""

    r_type: str
    sizes: tuple[int, ...]
    block: int
    scope: str
    elem: str = "f32"


CASES = [
    Case("memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>",
         (32, 8), 32, "warp"),
    Case("memref<32x8xf16, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>",
         (32, 8), 32, "warp", "f16"),
    Case("memref<8x16xf32, #regcopy.layout<(8,4,4):(4@laneid,1@laneid,1)>, "
         "#regcopy.mem<local>>", (8, 16), 32, "warp"),
    Case("memref<128xf32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>",
         (1, 128), 32, "warp"),
    Case("memref<128xf32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>",
         (128,), 32, "warp"),
    Case("memref<4x64xf32, #regcopy.layout<(4,16,4):(4,1@tx,1)>, #regcopy.mem<local>>",
         (4, 64), 16, "cta"),
]


def _copy(case: Case, s_type: str, offsets: Coord, arg_attr: str = "") -> CopyOp:
    region = f"[{', '.join(map(str, offsets))}] [{', '.join(map(str, case.sizes))}]"
    text = (f"func.func @k(%A: {s_type}{arg_attr}, %R: {case.r_type}) attributes "
            f"{{regcopy.launch = #regcopy.launch<block = {case.block}, grid = [1]>}} {{\n"
            f"  regcopy.copy {case.scope} %A{region} -> %R : {s_type} -> {case.r_type}\n"
            "  func.return\n}")
    module = Parser(regcopy_context(), text).parse_module()
    return next(op for op in module.walk() if isinstance(op, CopyOp))


def static_map(case: Case, offsets: Coord) -> dict[tuple[int, int], Coord]:
    """(thread, register) -> coordinate, from the static lowering of the copy on a buffer
    just holding the region."""
    shape = tuple(o + s for o, s in zip(offsets, case.sizes))
    s_type = f"memref<{'x'.join(map(str, shape))}x{case.elem}, #regcopy.mem<global>>"
    lp = plan_for(_copy(case, s_type, offsets))
    plan = lp.copy
    out: dict[tuple[int, int], Coord] = {}
    strides = [prod(shape[i + 1:]) for i in range(len(shape))]
    for t in range(plan.threads):
        share, owned = plan.thread_share(t)
        if not owned:
            continue
        for f in range(plan.rounds):
            ds, dr = round_deltas(plan.outer, f)
            for k in range(plan.n):
                off = plan.s_base.const + share + ds + k
                out[(t, plan.r_base.const + dr + k)] = tuple(
                    off // s % e for s, e in zip(strides, shape))
    return out


def bounded_map(case: Case, offsets: Coord, extents: Coord, divisors: Coord
                ) -> tuple[dict[tuple[int, int], Coord | None], BoundedTransfer]:
    """(thread, register) -> coordinate or PAD, as the bounded lowering moves them."""
    rank = len(case.sizes)
    s_type = f"memref<{'x'.join('?' * rank)}x{case.elem}, #regcopy.mem<global>>"
    attr = f" {{regcopy.divisibility = array<i64: {', '.join(map(str, divisors))}>}}"
    lp = plan_for(_copy(case, s_type, offsets, attr))
    bt = lp.transfer
    assert isinstance(bt, BoundedTransfer)
    strides = [prod(extents[i + 1:]) for i in range(rank)]
    wide = bt.paths[0]
    path = wide if all(strides[i] % wide.plan.n == 0 for i in wide.tests) else bt.paths[-1]
    plan: CopyPlan = path.plan
    last = rank - 1
    projected = [project(plan, case.sizes, i) for i in range(rank)]
    out: dict[tuple[int, int], Coord | None] = {}

    def inside(rows: list[int], first: int, n: int) -> bool:
        ok = all(rows[i] < extents[i] for i in bt.checked if i != last)
        return ok and (last not in bt.checked or rows[last] + first + n - 1 < extents[last])

    for t in range(plan.threads):
        if not plan.thread_share(t)[1]:
            continue
        base = [o + thread_share(p.thread_atoms, t, plan.thread_decode)[0]
                for o, p in zip(offsets, projected)]
        for f in range(plan.rounds):
            rows = [b + round_deltas(p.outer, f)[0] for b, p in zip(base, projected)]
            reg = plan.r_base.const + round_deltas(plan.outer, f)[1]
            whole = inside(rows, 0, plan.n)
            for k in range(plan.n):
                piece = k - k % path.tail
                moved = whole or (path.tail < plan.n and inside(rows, piece, path.tail))
                coord = (*rows[:last], rows[last] + k)
                out[(t, reg + k)] = coord if moved else PAD
    return out, bt


@given(st.sampled_from(range(len(CASES))), st.integers(1, 80), st.integers(1, 20),
       st.sampled_from([1, 2, 4, 8]), st.integers(0, 3), st.integers(0, 2))
def test_bounded_plan_moves_exactly_the_inside(which: int, n_cols: int, n_rows: int,
                                               d: int, row_off: int, col_blocks: int) -> None:
    case = CASES[which]
    rank = len(case.sizes)
    cols = d * n_cols if rank > 1 else d * n_cols * 2
    extents = (n_rows, cols) if rank == 2 else (cols,)
    divisors = (1, d) if rank == 2 else (d,)
    offsets = (row_off, 8 * col_blocks) if rank == 2 else (8 * col_blocks,)
    got, bt = bounded_map(case, offsets, extents, divisors)
    want = {k: (c if all(x < e for x, e in zip(c, extents)) else PAD)
            for k, c in static_map(case, offsets).items()}
    assert got == want
    inside = [c for c in got.values() if c is not PAD]
    assert len(inside) == len(set(inside))
    assert len(bt.paths) in (1, 2)


@pytest.mark.parametrize("n", [1, 2, 4, 8, 16])
def test_aligned_pieces_tile_the_vector_aligned_and_widest(n: int) -> None:
    """For every misalignment k: the pieces cover [0, n) in order, each a power of two that
    starts aligned ((k + p) % w == 0), and none could be wider (the next power of two is
    misaligned there or does not fit)."""
    for k in range(n):
        pieces = aligned_pieces(k, n)
        assert [p for p, _ in pieces] == list(np.cumsum([0] + [w for _, w in pieces[:-1]]))
        assert sum(w for _, w in pieces) == n
        for p, w in pieces:
            assert w & (w - 1) == 0 and (k + p) % w == 0
            assert 2 * w > n - p or (k + p) % (2 * w) != 0


def test_misalignment_classes_of_a_4_vector() -> None:
    """n = 4: 128-bit at k = 0; 32 + 64 + 32 bits for odd k (granule 1); 64-bit halves at
    k = 2; granule 2 drops the odd ones."""
    assert misalignment_classes(4, 1) == (((0,), ((0, 4),)), ((1, 3), ((0, 1), (1, 2), (3, 1))),
                                          ((2,), ((0, 2), (2, 2))))
    assert misalignment_classes(4, 2) == (((0,), ((0, 4),)), ((2,), ((0, 2), (2, 2))))


@pytest.mark.parametrize(("n", "granule"), [(2, 1), (4, 1), (4, 2), (8, 1), (8, 2), (16, 4)])
def test_misalignment_classes_partition_the_misalignments(n: int, granule: int) -> None:
    """Every multiple k of the granule below n is in exactly one class, whose pieces are its
    aligned_pieces; classes have distinct pieces, and k = 0 (one whole vector) comes first."""
    classes = misalignment_classes(n, granule)
    ks = [k for members, _ in classes for k in members]
    assert sorted(ks) == list(range(0, n, granule))
    assert classes[0] == ((0,), ((0, n),))
    for members, pieces in classes:
        assert all(aligned_pieces(k, n) == pieces for k in members)
    assert len({pieces for _, pieces in classes}) == len(classes)


@pytest.mark.parametrize(("which", "fixed"), [(0, (0,)), (2, (0, 1)), (3, ()), (5, (1,))])
def test_fixed_dims_are_the_checked_dims_no_round_moves(which: int, fixed: tuple[int, ...]
                                                       ) -> None:
    """A lane per row, rounds along it: the row is fixed; one wide round (the fallback's
    rounds walk the same vector): both; one round in every path: nothing to skip; rows over
    rounds, a thread's columns fixed: dim 1."""
    case = CASES[which]
    _, bt = bounded_map(case, (0,) * len(case.sizes), (1,) * len(case.sizes),
                        (1,) * len(case.sizes))
    assert fixed_dims(bt, case.sizes) == fixed


@given(st.sampled_from([0, 1, 2, 5]), st.integers(1, 80), st.integers(1, 20), st.integers(0, 3))
def test_a_thread_outside_a_fixed_dim_moves_nothing(which: int, n_cols: int, n_rows: int,
                                                    off: int) -> None:
    """What ``emit_bounds`` skips on ``fixed_dims`` moves nothing in the model: a thread whose
    coordinate on such a dim is outside its extent has every register padded."""
    case = CASES[which]
    offsets = (off, 4 * off)
    moved, bt = bounded_map(case, offsets, (n_rows, n_cols), (1, 1))
    assert fixed_dims(bt, case.sizes)
    plan = bt.paths[0].plan
    for t in range(plan.threads):
        coords = [o + thread_share(project(plan, case.sizes, i).thread_atoms, t,
                                   plan.thread_decode)[0] for i, o in enumerate(offsets)]
        if any(coords[i] >= (n_rows, n_cols)[i] for i in fixed_dims(bt, case.sizes)):
            assert all(c is PAD for (tt, _), c in moved.items() if tt == t)
