"""The planning steps of algorithm.md §2 as pure functions, on the worked numbers of §4."""

from __future__ import annotations

from regcopy_dialect.layout import Affine, Iter, Layout, Scope, Swizzle, slice_region
from regcopy_passes.planning import (
    Atom,
    ThreadAtom,
    align,
    choose_vector_width,
    decode_problem,
    drop_thread_iters,
    inherit_partition,
    make_atoms,
    make_thread_atoms,
    merge_outer,
    plan_copy,
    round_deltas,
    split,
    thread_base,
    width_candidates,
)


def _row_major(*shape: int) -> Layout:
    strides, acc = [], 1
    for e in reversed(shape):
        strides.insert(0, acc)
        acc *= e
    return Layout(tuple(Iter(e, s) for e, s in zip(shape, strides)))


def _lanes(k: int, reg_stride: int = 1) -> Layout:
    return Layout((Iter(32, 1, "laneid"), Iter(k, reg_stride)))


def test_thread_scope_3d_region_atoms() -> None:
    s = slice_region(_row_major(4, 16, 16), (4, 16, 16), (3, 8, 8), (1, 8, 8))
    r = slice_region(_row_major(8, 8), (8, 8), (0, 0), (8, 8))
    assert s.base == Affine(3 * 256 + 8 * 16 + 8)
    threads, regs = drop_thread_iters(inherit_partition(align(r, s, Scope.THREAD)))
    assert threads == []
    assert make_atoms(regs) == (Atom(8, 16, 8), Atom(8, 1, 1))
    plan = plan_copy(r, s, Scope.THREAD, 1, 16, 128, {}, {})
    assert (plan.n, plan.rounds) == (8, 8)


def test_seed_rows() -> None:
    for bits, k, n, rounds in ((32, 8, 4, 2), (32, 16, 4, 4), (16, 8, 8, 1), (16, 16, 8, 2)):
        r = slice_region(_lanes(k), (32, k), (0, 0), (32, k))
        s = slice_region(_row_major(32, k), (32, k), (0, 0), (32, k))
        plan = plan_copy(r, s, Scope.WARP, 32, bits, 128, {}, {})
        assert (plan.n, plan.rounds) == (n, rounds)
        assert plan.thread_atoms == (ThreadAtom(32, 1, k),)
        assert [thread_base(plan.thread_atoms, lane) for lane in (0, 5)] == [(0, True),
                                                                             (5 * k, True)]


def test_b1_thread_stride_enters_alignment() -> None:
    r = slice_region(_lanes(8), (32, 8), (0, 0), (32, 8))
    s = slice_region(_row_major(32, 10), (32, 10), (0, 0), (32, 8))
    plan = plan_copy(r, s, Scope.WARP, 32, 32, 128, {}, {})
    assert plan.n == 2
    assert plan.narrowed_by is not None and "S stride 10" in plan.narrowed_by


def test_b2_register_gaps_force_one_element() -> None:
    r = slice_region(_lanes(8, 2), (32, 8), (0, 0), (32, 8))
    s = slice_region(_row_major(32, 8), (32, 8), (0, 0), (32, 8))
    plan = plan_copy(r, s, Scope.WARP, 32, 32, 128, {}, {})
    assert plan.n == 1 and plan.rounds == 8
    assert [round_deltas(plan.outer, f) for f in (0, 1, 7)] == [(0, 0), (1, 2), (7, 14)]


def test_b3_odd_lanes_own_nothing() -> None:
    r = slice_region(Layout((Iter(16, 2, "laneid"), Iter(8, 1))), (16, 8), (0, 0), (16, 8))
    s = slice_region(_row_major(16, 8), (16, 8), (0, 0), (16, 8))
    plan = plan_copy(r, s, Scope.WARP, 32, 32, 128, {}, {})
    assert plan.guarded
    assert thread_base(plan.thread_atoms, 6) == (3 * 8, True)
    assert thread_base(plan.thread_atoms, 7)[1] is False


def test_dynamic_offset_divisibility_decides_width() -> None:
    r = slice_region(_lanes(8), (32, 8), (0, 0), (32, 8))
    for div, n in ((1, 1), (2, 2), (4, 4), (8, 4)):
        s = slice_region(_row_major(64, 1024), (64, 1024), (0, "k"), (32, 8))
        plan = plan_copy(r, s, Scope.WARP, 32, 32, 128, {"k": div}, {"k": "%k"})
        assert plan.n == n
    plan = plan_copy(r, s, Scope.WARP, 32, 32, 128, {"k": 1}, {"k": "%k"})
    assert plan.narrowed_by is not None and "%k" in plan.narrowed_by


def test_split_and_merge() -> None:
    assert split((Atom(8, 1, 1),), 4) == ((Atom(2, 4, 4),), (Atom(4, 1, 1),))
    assert split((Atom(6, 1, 1),), 4) is None
    assert split((Atom(2, 8, 2), Atom(2, 1, 1)), 4) == ((), (Atom(2, 8, 2), Atom(2, 1, 1)))
    assert merge_outer((Atom(2, 16, 8), Atom(2, 8, 4))) == (Atom(4, 8, 4),)
    assert merge_outer((Atom(2, 16, 4), Atom(2, 8, 8))) == (Atom(2, 16, 4), Atom(2, 8, 8))


def test_width_candidates_and_swizzle_cap() -> None:
    assert width_candidates(16, 128) == [8, 4, 2, 1]
    assert width_candidates(32, 64) == [2, 1]
    assert width_candidates(64, 128) == [2, 1]
    choice = choose_vector_width([8, 4, 2, 1], (Atom(64, 1, 1),), (), Affine(), Affine(),
                                 Swizzle(2, 3, 3), {}, {})
    assert choice.n == 4 and choice.narrowed_by is not None and "swizzle chunk" in choice.narrowed_by


def test_thread_atoms_split_like_their_s_group() -> None:
    # 64 rows over lanes (2 per lane) against an S whose rows are split 8 x 8
    pairs = [(Iter(64, 1, "tx"), (Iter(8, 512), Iter(8, 64)))]
    assert make_thread_atoms(pairs) == (ThreadAtom(8, 8, 512), ThreadAtom(8, 1, 64))
    assert decode_problem((ThreadAtom(8, 8, 512), ThreadAtom(8, 1, 64))) is None
    assert decode_problem((ThreadAtom(2, 3, 0), ThreadAtom(2, 1, 0))) is not None
