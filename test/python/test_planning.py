"""The planning steps of docs/pass.md as pure functions, on the numbers of the worked examples."""

from __future__ import annotations

from regcopy_dialect.layout import Affine, Iter, Layout, Scope, Swizzle, slice_region
from regcopy_passes.core.planning import (
    Atom,
    ThreadAtom,
    align,
    choose_vector_width,
    ThreadDecode,
    decode_problem,
    drop_thread_iters,
    inherit_partition,
    make_atoms,
    make_thread_atoms,
    merge_outer,
    partition_of,
    plan_copy,
    plan_decode,
    round_deltas,
    split,
    thread_share,
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
    plan = plan_copy(partition_of(r, s, Scope.THREAD, 1), r.base, s.base, 16, 128, {}, {})
    assert (plan.n, plan.rounds) == (8, 8)


def test_seed_rows() -> None:
    for bits, k, n, rounds in ((32, 8, 4, 2), (32, 16, 4, 4), (16, 8, 8, 1), (16, 16, 8, 2)):
        r = slice_region(_lanes(k), (32, k), (0, 0), (32, k))
        s = slice_region(_row_major(32, k), (32, k), (0, 0), (32, k))
        plan = plan_copy(partition_of(r, s, Scope.WARP, 32), r.base, s.base, bits, 128, {}, {})
        assert (plan.n, plan.rounds) == (n, rounds)
        assert plan.thread_atoms == (ThreadAtom(32, 1, k),)
        assert [thread_share(plan.thread_atoms, lane) for lane in (0, 5)] == [(0, True),
                                                                             (5 * k, True)]


def test_b1_thread_stride_enters_alignment() -> None:
    r = slice_region(_lanes(8), (32, 8), (0, 0), (32, 8))
    s = slice_region(_row_major(32, 10), (32, 10), (0, 0), (32, 8))
    plan = plan_copy(partition_of(r, s, Scope.WARP, 32), r.base, s.base, 32, 128, {}, {})
    assert plan.n == 2
    assert plan.narrowed_by is not None and "S stride 10" in plan.narrowed_by


def test_b2_register_gaps_force_one_element() -> None:
    r = slice_region(_lanes(8, 2), (32, 8), (0, 0), (32, 8))
    s = slice_region(_row_major(32, 8), (32, 8), (0, 0), (32, 8))
    plan = plan_copy(partition_of(r, s, Scope.WARP, 32), r.base, s.base, 32, 128, {}, {})
    assert plan.n == 1 and plan.rounds == 8
    assert [round_deltas(plan.outer, f) for f in (0, 1, 7)] == [(0, 0), (1, 2), (7, 14)]


def test_b3_odd_lanes_own_nothing() -> None:
    r = slice_region(Layout((Iter(16, 2, "laneid"), Iter(8, 1))), (16, 8), (0, 0), (16, 8))
    s = slice_region(_row_major(16, 8), (16, 8), (0, 0), (16, 8))
    plan = plan_copy(partition_of(r, s, Scope.WARP, 32), r.base, s.base, 32, 128, {}, {})
    assert plan.guarded
    assert thread_share(plan.thread_atoms, 6) == (3 * 8, True)
    assert thread_share(plan.thread_atoms, 7)[1] is False


def test_dynamic_offset_divisibility_decides_width() -> None:
    r = slice_region(_lanes(8), (32, 8), (0, 0), (32, 8))
    for div, n in ((1, 1), (2, 2), (4, 4), (8, 4)):
        s = slice_region(_row_major(64, 1024), (64, 1024), (0, "k"), (32, 8))
        plan = plan_copy(partition_of(r, s, Scope.WARP, 32), r.base, s.base, 32, 128, {"k": div}, {"k": "%k"})
        assert plan.n == n
    plan = plan_copy(partition_of(r, s, Scope.WARP, 32), r.base, s.base, 32, 128, {"k": 1}, {"k": "%k"})
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
    # non-nested lane strides 3 and 1 (lanes {0, 1, 3, 4}): the chained decode recovers them
    assert decode_problem((ThreadAtom(2, 3, 0), ThreadAtom(2, 1, 0))) is None
    # lane strides 5 and 3 (lanes {0, 3, 5, 6, 8, 11}): no division/remainder decode does
    assert "cannot be decoded" in (decode_problem((ThreadAtom(2, 5, 0), ThreadAtom(3, 3, 0)),
                                                  threads=32) or "")


def _owned(atoms: tuple[ThreadAtom, ...], dec: ThreadDecode, threads: int) -> list[int]:
    return [t for t in range(threads) if thread_share(atoms, t, dec)[1]]


def test_decode_gapped_lanes_chained() -> None:
    """``(8,2,4):(1@laneid,16@laneid,1)`` rows 0..2: lanes {0,1,2,16,17,18}, decoded as
    ``lane / 16`` and ``lane % 16`` (chained), with the guard doing the rest."""
    atoms = (ThreadAtom(3, 1, 4), ThreadAtom(2, 16, 100))
    dec = plan_decode(atoms, 0, 32)
    assert isinstance(dec, ThreadDecode) and dec.chained
    assert _owned(atoms, dec, 32) == [0, 1, 2, 16, 17, 18]
    assert thread_share(atoms, 17, dec) == (1 * 4 + 1 * 100, True)


def test_decode_with_origin() -> None:
    """A slice that pins the lanes to start at 9 (owners 9 + {0,4,8} + {0,1}): threads below
    the origin never pass the guard, whatever their decoded coordinates."""
    atoms = (ThreadAtom(3, 4, 16), ThreadAtom(2, 1, 1))
    dec = plan_decode(atoms, 9, 32)
    assert isinstance(dec, ThreadDecode)
    assert dec.origin == 9 and dec.shift >= 0 and (dec.shift + 9) % 12 == 0
    assert _owned(atoms, dec, 32) == [9, 10, 13, 14, 17, 18]
    assert thread_share(atoms, 14, dec) == (1 * 16 + 1 * 1, True)
    # no atoms at all: only the pinned thread owns the element
    pinned = plan_decode((), 5, 32)
    assert isinstance(pinned, ThreadDecode)
    assert _owned((), pinned, 32) == [5]


def test_decode_refuses_owners_outside_the_scope_and_repeats() -> None:
    assert "outside the scope" in str(plan_decode((ThreadAtom(32, 1, 0),), 8, 32))
    assert "map to one thread" in str(plan_decode((ThreadAtom(2, 1, 0), ThreadAtom(2, 1, 0)),
                                                  0, 32))


def test_decode_refuses_more_coordinates_than_threads_without_listing_them() -> None:
    """A fuzzed ``replicate<2147483648:...>``: 2^31 thread coordinates are refused at once
    (listing the owners first took minutes and gigabytes)."""
    huge = (ThreadAtom(32, 1, 0), ThreadAtom(1 << 31, 1, 0))
    assert str(plan_decode(huge, 0, 256)) == \
        "68719476736 thread coordinates for the scope's 256 threads"
