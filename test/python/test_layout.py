"""The layout algebra (regcopy_dialect/layout.py): unit tests and hypothesis properties.

Pure Python, no GPU; only the last property (the printed form parses back as a
``#regcopy.layout``) goes through xDSL's parser.
"""

from __future__ import annotations

from itertools import product
from math import prod

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from regcopy_dialect.layout import (
    THREAD_AXES,
    Affine,
    Iter,
    Layout,
    LayoutError,
    Peeled,
    Scope,
    Swizzle,
    Sliced,
    axis_overflow,
    canonicalize,
    cut_iter,
    drop_unit_iters,
    fuse_thread_axes,
    group,
    is_injective,
    merge_contiguous,
    owner_counts,
    ownership,
    peel,
    thread_origin,
    slice_region,
    thread_map_injective,
)
from regcopy_dialect.radix import suffix_product

# Example counts and deadline come from the profile (hypothesis_profiles.py, REGCOPY_HYPOTHESIS).
PROPERTY = settings(suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def L(extents: tuple[int, ...] | int, strides: tuple[int | str, ...] | int | str,
      swizzle: tuple[int, int, int] | None = None) -> Layout:
    """``L((32, 8), ("1@laneid", 1))`` builds ``(32,8):(1@laneid,1)``."""
    if isinstance(extents, int):
        extents, strides = (extents,), (strides,)  # type: ignore[assignment]
    iters = []
    for e, s in zip(extents, strides, strict=True):  # type: ignore[arg-type]
        if isinstance(s, str):
            value, axis = s.split("@")
            iters.append(Iter(e, int(value), axis))
        else:
            iters.append(Iter(e, s))
    return Layout(tuple(iters), Swizzle(*swizzle) if swizzle else None)


def row_major(*shape: int) -> Layout:
    strides, acc = [], 1
    for e in reversed(shape):
        strides.insert(0, acc)
        acc *= e
    return Layout(tuple(Iter(e, s) for e, s in zip(shape, strides)))


def ravel(coords: tuple[int, ...], shape: tuple[int, ...]) -> int:
    flat = 0
    for c, n in zip(coords, shape, strict=True):
        flat = flat * n + c
    return flat


def unravel(index: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    out = []
    for n in reversed(shape):
        out.append(index % n)
        index //= n
    return tuple(reversed(out))


def nonzero(axes: dict[str, int]) -> dict[str, int]:
    return {a: v for a, v in axes.items() if v}


def full_map(layout: Layout) -> list[tuple[dict[str, int], int]]:
    return [(nonzero(a), m) for a, m in (layout.apply(i) for i in range(layout.size))]


def spec_swizzle(m: int, mb: int, b: int, s: int) -> int:
    """The swizzle map, written out independently of layout.py."""
    def g(x: int) -> int:
        return x ^ ((x & (((1 << b) - 1) << s)) >> s)
    return (g(m >> mb) << mb) | (m & ((1 << mb) - 1))


# --------------------------------------------------------------------------------------------
# Value types, printing, evaluation
# --------------------------------------------------------------------------------------------


def test_printing_matches_the_attribute_syntax() -> None:
    assert str(L(256, 1)) == "256:1"
    assert str(L((32, 8), ("1@laneid", 1))) == "(32,8):(1@laneid,1)"
    assert str(L((8, 256, 4), (4, "1@tx", 1))) == "(8,256,4):(4,1@tx,1)"
    assert str(L((64, 64), (64, 1), (3, 3, 3))) == "(64,64):(64,1), swizzle<3,3,3>"
    assert str(Iter(4, 2, "warpid")) == "4:2@warpid"


def test_shape_properties() -> None:
    lay = L((8, 256, 4), (4, "1@tx", 1))
    assert lay.size == 8192
    assert lay.extents == (8, 256, 4)
    assert lay.thread_iters == (Iter(256, 1, "tx"),)
    assert lay.memory_iters == (Iter(8, 4), Iter(4, 1))


def test_digits_and_apply() -> None:
    lay = L((32, 8), ("1@laneid", 1))
    assert lay.digits(5 * 8 + 3) == (5, 3)
    assert lay.apply(5 * 8 + 3) == ({"laneid": 5}, 3)
    cta = L((8, 256, 4), (4, "1@tx", 1))
    # row 3, column 4*17 + 2: thread 17, register 4*3 + 2
    assert cta.apply(3 * 1024 + 4 * 17 + 2) == ({"tx": 17}, 14)
    two = L((4, 32, 2), ("1@wid_in_wg", "1@laneid", 1))
    assert two.apply(3 * 64 + 7 * 2 + 1) == ({"wid_in_wg": 3, "laneid": 7}, 1)
    # the swizzle acts on the memory offset
    sw = L((64, 64), (64, 1), (3, 3, 3))
    assert sw.apply(1 * 64 + 0) == ({}, spec_swizzle(64, 3, 3, 3))


def test_thread_axes_table() -> None:
    assert set(THREAD_AXES) == {"laneid", "tid_in_wg", "wid_in_wg", "tx", "warpid", "wgid"}
    lane, tid, wid = THREAD_AXES["laneid"], THREAD_AXES["tid_in_wg"], THREAD_AXES["wid_in_wg"]
    tx, warp, wg = THREAD_AXES["tx"], THREAD_AXES["warpid"], THREAD_AXES["wgid"]
    assert (lane.scope, lane.subscope, lane.period) == (Scope.WARP, Scope.THREAD, 32)
    assert (tid.scope, tid.subscope, tid.period) == (Scope.WARPGROUP, Scope.THREAD, 128)
    assert (wid.scope, wid.subscope, wid.period) == (Scope.WARPGROUP, Scope.WARP, 4)
    assert (tx.period, warp.period, wg.period) == (None, None, None)
    t = 300  # warpgroup 2, warp 9 (warp 1 of its warpgroup), lane 12
    assert [a.value(t) for a in (lane, tid, wid, tx, warp, wg)] == [12, 44, 1, 300, 9, 2]


def test_scopes() -> None:
    assert Scope.THREAD < Scope.WARP < Scope.WARPGROUP < Scope.CTA
    assert [s.threads(256) for s in Scope] == [1, 32, 128, 256]
    assert [s.fused_axis for s in Scope] == [None, "laneid", "tid_in_wg", "tx"]


# --------------------------------------------------------------------------------------------
# group
# --------------------------------------------------------------------------------------------


def test_group_matching_dims() -> None:
    assert group(L((32, 8), ("1@laneid", 1)), (32, 8)) == (
        (Iter(32, 1, "laneid"),), (Iter(8, 1),))
    assert group(L((8, 256, 4), (4, "1@tx", 1)), (8, 1024)) == (
        (Iter(8, 4),), (Iter(256, 1, "tx"), Iter(4, 1)))


def test_group_splits_an_iter_like_tirx() -> None:
    # 256:1 over [16, 16]: the iter splits into 16:16 (outer) and 16:1 (inner)
    assert group(L(256, 1), (16, 16)) == ((Iter(16, 16),), (Iter(16, 1),))
    # (64,64):(64,1) over [4, 16, 64]
    assert group(L((64, 64), (64, 1)), (4, 16, 64)) == (
        (Iter(4, 1024),), (Iter(16, 64),), (Iter(64, 1),))
    # (16,16):(16,1) over [32, 8]: the inner 16:1 straddles, 2:8 ends dim 0
    assert group(L((16, 16), (16, 1)), (32, 8)) == (
        (Iter(16, 16), Iter(2, 8)), (Iter(8, 1),))
    # one iter split three times
    assert group(L(1024, 1), (2, 4, 8, 16)) == (
        (Iter(2, 512),), (Iter(4, 128),), (Iter(8, 16),), (Iter(16, 1),))
    # a thread iter splits the same way and keeps its axis
    assert group(L((64, 4), ("1@tx", 1)), (8, 32)) == (
        (Iter(8, 8, "tx"),), (Iter(8, 1, "tx"), Iter(4, 1)))


def test_group_unit_iters_and_unit_dims() -> None:
    assert group(L((1, 32, 1, 8), (0, "1@laneid", 5, 1)), (32, 8)) == (
        (Iter(32, 1, "laneid"),), (Iter(8, 1),))
    assert group(L((32, 8), (8, 1)), (1, 32, 1, 8)) == ((), (Iter(32, 8),), (), (Iter(8, 1),))
    assert group(Layout(()), ()) == ()
    assert group(L(1, 0), (1,)) == ((),)


def test_group_errors() -> None:
    with pytest.raises(LayoutError, match=r"has 128 elements, shape \[32, 8\] has 256"):
        group(L((32, 4), ("1@laneid", 1)), (32, 8))
    with pytest.raises(LayoutError, match=r"cannot be grouped against shape \[6, 4\].*4:6"):
        group(L((4, 6), (6, 1)), (6, 4))
    with pytest.raises(LayoutError, match="cannot be grouped"):
        group(L((6, 4), (4, 1)), (4, 6))


# --------------------------------------------------------------------------------------------
# slice_region: static offsets
# --------------------------------------------------------------------------------------------


def test_slice_full_buffer() -> None:
    s = slice_region(row_major(32, 10), (32, 10), (0, 0), (32, 10))
    assert s == Sliced(L((32, 10), (10, 1)), Affine(0), ())


def test_slice_static_base_offsets() -> None:
    s = slice_region(row_major(32, 10), (32, 10), (3, 2), (4, 8))
    assert s.layout == L((4, 8), (10, 1))
    assert s.base == Affine(3 * 10 + 2)
    assert s.thread_base == ()


def test_slice_worked_thread_3d() -> None:
    # slicing S [4,16,16] region [3,8,8] [1,8,8]: base 3*256 + 8*16 + 8 = 904
    s = slice_region(row_major(4, 16, 16), (4, 16, 16), (3, 8, 8), (1, 8, 8))
    assert s.base == Affine(904)
    assert drop_unit_iters(s.layout.iters) == (Iter(8, 16), Iter(8, 1))


def test_slice_register_columns() -> None:
    # slicing R (32,16):(1@laneid,1), columns 2..10: register base 2
    s = slice_region(L((32, 16), ("1@laneid", 1)), (32, 16), (0, 2), (32, 8))
    assert s.layout == L((32, 8), ("1@laneid", 1))
    assert s.base == Affine(2)
    assert s.thread_base == ()


def test_slice_thread_base() -> None:
    s = slice_region(L((32, 8), ("1@laneid", 1)), (32, 8), (16, 0), (16, 8))
    assert s.layout == L((16, 8), ("1@laneid", 1))
    assert s.base == Affine(0)
    assert s.thread_base == (("laneid", 16),)
    two = L((4, 32, 2), ("1@wid_in_wg", "1@laneid", 1))
    s = slice_region(two, (128, 2), (64 + 8, 1), (8, 1))
    assert s.thread_base == (("laneid", 8), ("wid_in_wg", 2))
    assert s.base == Affine(1)


def test_slice_through_a_split_group() -> None:
    # (16,16):(16,1) over [32, 8]: dim 0 is (16:16, 2:8); rows 2..6 keep both iters
    s = slice_region(L((16, 16), (16, 1)), (32, 8), (2, 0), (4, 8))
    assert s.layout == L((2, 2, 8), (16, 8, 1))
    assert s.base == Affine(16)


def test_slice_keeps_the_swizzle() -> None:
    sw = L((64, 64), (64, 1), (3, 3, 3))
    s = slice_region(sw, (64, 64), (8, 16), (8, 32))
    assert s.layout.swizzle == Swizzle(3, 3, 3)
    assert s.base == Affine(8 * 64 + 16)  # the base is the unswizzled offset


def test_slice_not_clean() -> None:
    with pytest.raises(LayoutError, match=r"region \[1, 33\) of dim 0 does not slice cleanly"):
        slice_region(L((32, 2, 8), ("1@laneid", 8, 1)), (64, 8), (1, 0), (32, 8))
    with pytest.raises(LayoutError, match="does not slice cleanly"):
        slice_region(L((64, 8, 8), (64, 8, 1)), (64, 64), (0, 4), (32, 8))


# --------------------------------------------------------------------------------------------
# slice_region: dynamic (symbolic) offsets, Affine
# --------------------------------------------------------------------------------------------


def test_slice_dynamic_row_offset() -> None:
    s = slice_region(row_major(64, 1024), (64, 1024), ("row", 0), (8, 1024))
    assert s.layout == L((8, 1024), (1024, 1))
    assert s.base == Affine(0, (("row", 1024),))
    assert not s.base.is_static
    assert s.base.divisibility({"row": 8}) == 8192
    assert s.base.divisibility({}) == 1024


def test_slice_dynamic_and_static_offsets_mix() -> None:
    s = slice_region(row_major(4, 64, 8), (4, 64, 8), ("i", "j", 2), (1, 32, 4))
    assert s.layout == L((1, 32, 4), (512, 8, 1))
    assert s.base == Affine(2, (("i", 512), ("j", 8)))
    assert s.base.divisibility({"i": 1, "j": 4}) == 2


def test_slice_dynamic_offset_on_a_thread_dim() -> None:
    with pytest.raises(LayoutError, match=r"dynamic offset on dim 0 .* a thread dim"):
        slice_region(L((32, 8), ("1@laneid", 1)), (32, 8), ("i", 0), (16, 8))


def test_slice_dynamic_offset_on_a_multi_iter_dim() -> None:
    with pytest.raises(LayoutError, match="dynamic offset on dim 0 of layout"):
        slice_region(L((2, 32, 8), (8, 16, 1)), (64, 8), ("i", 0), (32, 8))


def test_slice_dynamic_offset_message_names_the_real_problem() -> None:
    with pytest.raises(LayoutError, match="not one memory iter"):
        slice_region(L((2, 32, 8), (8, 16, 1)), (64, 8), ("i", 0), (32, 8))


def test_affine() -> None:
    a = Affine(3, (("x", 4),))
    assert a + 5 == Affine(8, (("x", 4),))
    assert a + Affine(1, (("y", 2),)) == Affine(4, (("x", 4), ("y", 2)))
    assert a.scaled(2) == Affine(6, (("x", 8),))
    assert Affine(7).is_static and not a.is_static
    assert Affine(0).divisibility({}) == 0  # the constant 0 divides by anything
    assert Affine(12).divisibility({}) == 12
    assert Affine(-12).divisibility({}) == 12
    assert Affine(8, (("x", 4),)).divisibility({"x": 2}) == 8
    assert Affine(8, (("x", 4),)).divisibility({"x": 1}) == 4
    assert Affine(0, (("x", 4), ("y", 6))).divisibility({}) == 2


# --------------------------------------------------------------------------------------------
# canonicalize, fuse, merge
# --------------------------------------------------------------------------------------------


def test_merge_contiguous() -> None:
    assert merge_contiguous(L((8, 4), (4, 1))) == L(32, 1)
    assert merge_contiguous(L((2, 4, 8), (32, 8, 1))) == L(64, 1)
    assert merge_contiguous(L((8, 4), (8, 1))) == L((8, 4), (8, 1))
    assert merge_contiguous(L((2, 32), ("32@laneid", "1@laneid"))) == L(64, "1@laneid")
    # different axes never merge
    assert merge_contiguous(L((2, 32), (32, "1@laneid"))) == L((2, 32), (32, "1@laneid"))
    assert merge_contiguous(L((4, 8), (8, 1), (3, 3, 3))) == L(32, 1, (3, 3, 3))


def test_fuse_thread_axes() -> None:
    wg = L((4, 32, 2), ("1@wid_in_wg", "1@laneid", 1))
    assert fuse_thread_axes(wg, Scope.WARPGROUP) == L(
        (4, 32, 2), ("32@tid_in_wg", "1@tid_in_wg", 1))
    cta = L((8, 32, 4), ("1@warpid", "1@laneid", 1))
    assert fuse_thread_axes(cta, Scope.CTA) == L((8, 32, 4), ("32@tx", "1@tx", 1))
    wgs = L((2, 128, 8), ("1@wgid", "1@tid_in_wg", 1))
    assert fuse_thread_axes(wgs, Scope.CTA) == L((2, 128, 8), ("128@tx", "1@tx", 1))
    assert fuse_thread_axes(L((32, 8), ("1@laneid", 1)), Scope.THREAD) == L(
        (32, 8), ("1@laneid", 1))


def test_canonicalize() -> None:
    lay = L((1, 4, 32, 1, 2), (0, "1@wid_in_wg", "1@laneid", 7, 1))
    assert canonicalize(lay, Scope.WARPGROUP) == L((128, 2), ("1@tid_in_wg", 1))
    assert canonicalize(lay) == L((4, 32, 2), ("1@wid_in_wg", "1@laneid", 1))
    assert canonicalize(L((8, 256, 4), (4, "1@tx", 1)), Scope.CTA) == L(
        (8, 256, 4), (4, "1@tx", 1))
    assert canonicalize(L((8, 32, 4), ("1@warpid", "1@laneid", 1)), Scope.CTA) == L(
        (256, 4), ("1@tx", 1))


# --------------------------------------------------------------------------------------------
# span, storage, swizzle
# --------------------------------------------------------------------------------------------


def test_span_and_storage() -> None:
    r = L((32, 8), ("1@laneid", 1))
    assert r.storage() == L(8, 1)
    assert r.storage().span() == 8
    cta = L((8, 256, 4), (4, "1@tx", 1))
    assert cta.storage() == L((8, 4), (4, 1))
    assert cta.storage().span() == 32
    assert L((32, 8), (16, 1)).span() == 31 * 16 + 7 + 1
    assert L((4, 4), (0, 1)).span() == 4
    assert Layout(()).span() == 1
    sw = L((64, 64), (64, 1), (3, 3, 3))
    assert sw.storage() == sw
    assert sw.span() == 4096
    assert L((8, 8), (8, 1), (3, 3, 3)).span() == 512  # rounded up to a whole swizzle period
    assert sw.without_swizzle() == L((64, 64), (64, 1))


def test_swizzle_formula() -> None:
    sw = Swizzle(3, 3, 3)
    assert sw.chunk == 8
    assert str(sw) == "swizzle<3,3,3>"
    # m = 72: x = 9 = 0b001001 -> 9 ^ 1 = 8 -> 64
    assert sw.apply(72) == 64
    assert sw.apply(77) == 69
    # m = 234: x = 29 = 0b011101 -> 29 ^ 3 = 30 -> 240, low bits 2 kept
    assert sw.apply(234) == 242
    assert sw.apply(5) == 5  # the first row is never moved
    for m in range(4096):
        assert sw.apply(m) == spec_swizzle(m, 3, 3, 3)
    for (mb, b, s) in ((0, 1, 1), (2, 2, 3), (4, 3, 3), (1, 0, 0)):
        sw = Swizzle(mb, b, s)
        for m in range(1 << (mb + b + s + 1)):
            assert sw.apply(m) == spec_swizzle(m, mb, b, s)


# --------------------------------------------------------------------------------------------
# injectivity, overflow, ownership
# --------------------------------------------------------------------------------------------


def test_is_injective() -> None:
    assert is_injective(L((32, 8), (8, 1)).iters)
    assert is_injective(L((32, 8), (16, 1)).iters)
    assert not is_injective(L((32, 8), (1, 1)).iters)
    assert not is_injective(L((32, 8), (8, 0)).iters)
    assert is_injective(L((1, 8), (0, 1)).iters)  # extent-1 iters are ignored
    assert is_injective(L((2, 3), (3, 2)).iters)  # needs the enumeration: 0,2,4,3,5,7
    assert not is_injective(L((2, 3), (2, 1)).iters)
    assert is_injective(())


def test_is_injective_large_interleaved() -> None:
    k = 1 << 18
    # (2,3,k):(3k,2k,1) is injective (0,2,4,3,5,7 times k plus 0..k-1)
    assert is_injective(L((2, 3, k), (3 * k, 2 * k, 1)).iters)


def test_axis_overflow() -> None:
    assert axis_overflow(L((64, 8), ("1@laneid", 1))) == ("laneid", 63, 32)
    assert axis_overflow(L((32, 8), ("1@laneid", 1))) is None
    assert axis_overflow(L((2, 16), ("16@laneid", "1@laneid"))) is None
    assert axis_overflow(L((2, 32), ("32@laneid", "1@laneid"))) == ("laneid", 63, 32)
    assert axis_overflow(L(5, "1@wid_in_wg")) == ("wid_in_wg", 4, 4)
    assert axis_overflow(L(256, "1@tid_in_wg")) == ("tid_in_wg", 255, 128)
    assert axis_overflow(L(100000, "1@tx")) is None  # cta-scope axes are unbounded
    assert axis_overflow(L(64, "1@warpid")) is None


def test_thread_map_injective() -> None:
    assert thread_map_injective(L((32, 8), ("1@laneid", 1)))
    assert thread_map_injective(L((32, 8), ("1@laneid", 0)))  # memory iters do not count
    assert not thread_map_injective(L((32, 8), ("1@laneid", "0@laneid")))
    assert not thread_map_injective(L((2, 2), ("1@warpid", "1@warpid")))
    assert thread_map_injective(L((4, 32), ("1@wid_in_wg", "1@laneid")))
    assert thread_map_injective(L((2, 16), ("16@laneid", "1@laneid")))


def test_owner_counts_laneid_only() -> None:
    r = L((32, 8), ("1@laneid", 1))
    assert owner_counts(r, Scope.WARP, 32) == (1, 1)
    assert owner_counts(r, Scope.WARP, 256) == (1, 1)  # a warp is 32 threads whatever the block
    assert owner_counts(r, Scope.WARPGROUP, 128) == (4, 4)  # replicated over the 4 warps
    assert owner_counts(r, Scope.CTA, 256) == (8, 8)
    half = L((16, 8), ("1@laneid", 1))
    assert owner_counts(half, Scope.WARP, 32) == (1, 1)  # lanes 16..31 simply own nothing
    assert owner_counts(half, Scope.WARPGROUP, 128) == (4, 4)
    even = L((16, 8), ("2@laneid", 1))
    assert owner_counts(even, Scope.WARP, 32) == (1, 1)
    assert owner_counts(even, Scope.WARPGROUP, 128) == (4, 4)


def test_owner_counts_other_axes() -> None:
    wg = L((4, 32, 2), ("1@wid_in_wg", "1@laneid", 1))
    assert owner_counts(wg, Scope.WARPGROUP, 128) == (1, 1)
    assert owner_counts(wg, Scope.CTA, 256) == (2, 2)
    tx = L((256, 4), ("1@tx", 1))
    assert owner_counts(tx, Scope.CTA, 256) == (1, 1)
    assert owner_counts(tx, Scope.CTA, 512) == (1, 1)
    assert owner_counts(L((8, 8), (8, 1)), Scope.THREAD, 32) == (1, 1)
    assert owner_counts(L((8, 8), (8, 1)), Scope.WARP, 32) == (32, 32)
    # laneid and tid_in_wg disagree for some elements: those have no owner at all
    mixed = L((32, 128), ("1@laneid", "1@tid_in_wg"))
    assert owner_counts(mixed, Scope.WARPGROUP, 128) == (0, 1)


# --------------------------------------------------------------------------------------------
# Hypothesis strategies
# --------------------------------------------------------------------------------------------

AXES_ANY = (None, None, None, "laneid", "tx", "warpid", "wid_in_wg")


def _cut(draw: st.DrawFn, factors: list[int]) -> list[int]:
    """Products of consecutive runs of ``factors`` (a random partition)."""
    n = len(factors)
    cuts = sorted(draw(st.sets(st.integers(1, n - 1)))) if n > 1 else []
    bounds = [0, *cuts, n]
    return [prod(factors[a:b]) for a, b in zip(bounds, bounds[1:])] if n else []


def _sprinkle_ones(draw: st.DrawFn, values: list[int]) -> list[int]:
    out = list(values)
    for _ in range(draw(st.integers(0, 2))):
        out.insert(draw(st.integers(0, len(out))), 1)
    return out


@st.composite
def grouped_layouts(draw: st.DrawFn, axes: tuple[str | None, ...] = AXES_ANY,
                    max_size: int = 512) -> tuple[Layout, tuple[int, ...]]:
    """A layout and a buffer shape it groups against: the iter extents and the dims are two
    partitions of one factor sequence, so iters straddle dims and must be split."""
    factors: list[int] = []
    for f in draw(st.lists(st.sampled_from([2, 2, 3, 4, 5]), max_size=7)):
        if prod(factors) * f > max_size:
            break
        factors.append(f)
    extents = _sprinkle_ones(draw, _cut(draw, factors))
    shape = _sprinkle_ones(draw, _cut(draw, factors))
    iters = tuple(Iter(e, draw(st.integers(0, 40)), draw(st.sampled_from(axes)))
                  for e in extents)
    return Layout(iters), tuple(shape)


@st.composite
def clean_regions(draw: st.DrawFn, layout: Layout, shape: tuple[int, ...]
                  ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Offsets and sizes of a region that slices cleanly: per dim, an iter ``j`` of the dim's
    group, ``m`` of its values from digit ``d``, any outer digits, all inner digits."""
    offsets, sizes = [], []
    for members in group(layout, shape):
        if not members:
            offsets.append(0)
            sizes.append(1)
            continue
        j = draw(st.integers(0, len(members) - 1))
        ext = members[j].extent
        m = draw(st.integers(1, ext))
        digits = [draw(st.integers(0, it.extent - 1)) for it in members[:j]]
        digits.append(draw(st.integers(0, ext - m)))
        digits.extend(0 for _ in members[j + 1:])
        offsets.append(ravel(tuple(digits), tuple(it.extent for it in members)))
        sizes.append(m * prod(it.extent for it in members[j + 1:]))
    return tuple(offsets), tuple(sizes)


@st.composite
def memory_layouts(draw: st.DrawFn, max_iters: int = 4, max_extent: int = 8,
                   max_stride: int = 40) -> Layout:
    n = draw(st.integers(0, max_iters))
    return Layout(tuple(Iter(draw(st.integers(1, max_extent)), draw(st.integers(0, max_stride)))
                        for _ in range(n)))


swizzles = st.builds(lambda m, b, extra: Swizzle(m, b, b + extra),
                     st.integers(0, 4), st.integers(0, 3), st.integers(0, 2))


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------


@PROPERTY
@given(grouped_layouts())
def test_group_preserves_the_map(case: tuple[Layout, tuple[int, ...]]) -> None:
    layout, shape = case
    groups = group(layout, shape)
    assert len(groups) == len(shape)
    assert [prod(it.extent for it in g) for g in groups] == list(shape)
    assert all(it.extent > 1 for g in groups for it in g)
    regrouped = Layout(tuple(it for g in groups for it in g))
    assert full_map(regrouped) == full_map(layout)


@PROPERTY
@given(st.data(), grouped_layouts())
def test_slice_then_apply_equals_apply_at_the_offset(data: st.DataObject,
                                                     case: tuple[Layout, tuple[int, ...]]) -> None:
    layout, shape = case
    offsets, sizes = data.draw(clean_regions(layout, shape))
    sliced = slice_region(layout, shape, offsets, sizes)
    assert sliced.base.is_static
    assert sliced.layout.size == prod(sizes)
    tbase = dict(sliced.thread_base)
    for i in range(prod(sizes)):
        coords = tuple(o + c for o, c in zip(offsets, unravel(i, sizes), strict=True))
        want_axes, want_mem = layout.apply(ravel(coords, shape))
        axes, mem = sliced.layout.apply(i)
        got = {a: axes.get(a, 0) + tbase.get(a, 0) for a in set(axes) | set(tbase)}
        assert nonzero(got) == nonzero(want_axes)
        assert mem + sliced.base.const == want_mem


@PROPERTY
@given(st.data(), grouped_layouts(axes=(None,), max_size=256), swizzles)
def test_slice_of_a_swizzled_layout(data: st.DataObject, case: tuple[Layout, tuple[int, ...]],
                                    sw: Swizzle) -> None:
    plain, shape = case
    layout = Layout(plain.iters, sw)
    offsets, sizes = data.draw(clean_regions(plain, shape))
    sliced = slice_region(layout, shape, offsets, sizes)
    assert sliced.layout.swizzle == sw
    for i in range(prod(sizes)):
        coords = tuple(o + c for o, c in zip(offsets, unravel(i, sizes), strict=True))
        _, want = layout.apply(ravel(coords, shape))
        _, linear = sliced.layout.without_swizzle().apply(i)
        assert sw.apply(sliced.base.const + linear) == want


@st.composite
def dynamic_cases(draw: st.DrawFn) -> tuple[Layout, tuple[int, ...], int, int, int]:
    """A buffer whose dim ``d`` is one memory iter, a region size on it and an offset value."""
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 8)) for _ in range(rank))
    d = draw(st.integers(0, rank - 1))
    iters = []
    for k, n in enumerate(shape):
        axis = None if k == d else draw(st.sampled_from((None, None, "laneid")))
        iters.append(Iter(n, draw(st.integers(0, 30)), axis))
    size = draw(st.integers(1, shape[d]))
    value = draw(st.integers(0, shape[d] - size))
    return Layout(tuple(iters)), shape, d, size, value


@PROPERTY
@given(dynamic_cases())
def test_dynamic_offset_equals_static_offset(case: tuple[Layout, tuple[int, ...], int, int, int]
                                             ) -> None:
    layout, shape, d, size, value = case
    offsets: list[object] = [0] * len(shape)
    sizes = list(shape)
    sizes[d] = size
    offsets[d] = "sym"
    dyn = slice_region(layout, shape, offsets, sizes)
    offsets[d] = value
    static = slice_region(layout, shape, offsets, sizes)
    coeff = dict(dyn.base.terms).get("sym", 0)
    assert dyn.base.const + coeff * value == static.base.const
    assert full_map(dyn.layout) == full_map(static.layout)
    assert dyn.thread_base == static.thread_base


@st.composite
def mergeable_layouts(draw: st.DrawFn, axes: tuple[str | None, ...] = AXES_ANY) -> Layout:
    """Random iters, some split into mergeable pairs ``(a, s*b), (b, s)``, plus unit iters."""
    iters: list[Iter] = []
    for _ in range(draw(st.integers(0, 4))):
        e = draw(st.sampled_from([1, 2, 3, 4, 6, 8]))
        s = draw(st.integers(0, 16))
        axis = draw(st.sampled_from(axes))
        split = draw(st.sampled_from([1, 2, 3]))
        if split > 1 and draw(st.booleans()):
            iters += [Iter(split, s * e, axis), Iter(e, s, axis)]
        else:
            iters.append(Iter(e, s, axis))
    return Layout(tuple(_sprinkle_iters(draw, iters, axes)))


def _sprinkle_iters(draw: st.DrawFn, iters: list[Iter], axes: tuple[str | None, ...]
                    ) -> list[Iter]:
    for _ in range(draw(st.integers(0, 2))):
        iters.insert(draw(st.integers(0, len(iters))),
                     Iter(1, draw(st.integers(0, 9)), draw(st.sampled_from(axes))))
    return iters


@PROPERTY
@given(mergeable_layouts(), st.one_of(st.none(), swizzles))
def test_canonicalize_preserves_the_map(layout: Layout, sw: Swizzle | None) -> None:
    layout = Layout(layout.iters, sw)
    canon = canonicalize(layout)
    assert all(it.extent > 1 for it in canon.iters)
    assert canon.size == layout.size
    assert full_map(canon) == full_map(layout)
    assert canonicalize(canon) == canon  # idempotent
    assert full_map(merge_contiguous(layout)) == full_map(layout)


# Axis sets whose fused value decomposes exactly (no overlapping axes).
FUSABLE = {
    Scope.WARP: [("laneid",)],
    Scope.WARPGROUP: [("laneid", "wid_in_wg"), ("tid_in_wg",)],
    Scope.CTA: [("laneid", "warpid"), ("tid_in_wg", "wgid"), ("laneid", "wid_in_wg", "wgid"),
                ("tx",)],
}


@st.composite
def fusable_layouts(draw: st.DrawFn) -> tuple[Layout, Scope]:
    scope = draw(st.sampled_from(sorted(FUSABLE)))
    axes = draw(st.sampled_from(FUSABLE[scope]))
    layout = draw(mergeable_layouts(axes=(None, *axes)))
    assume(axis_overflow(layout) is None)
    return layout, scope


@PROPERTY
@given(fusable_layouts())
def test_canonicalize_with_a_scope_fuses_exactly(case: tuple[Layout, Scope]) -> None:
    layout, scope = case
    canon = canonicalize(layout, scope)
    fused = scope.fused_axis
    assert {it.axis for it in canon.iters} <= {None, fused}
    assert canon.size == layout.size
    for i in range(layout.size):
        axes, mem = layout.apply(i)
        caxes, cmem = canon.apply(i)
        assert cmem == mem
        t = caxes.get(fused, 0) if fused else 0
        for name, value in axes.items():
            assert THREAD_AXES[name].value(t) == value


@PROPERTY
@given(memory_layouts(), st.one_of(st.none(), swizzles))
def test_span_covers_every_offset(layout: Layout, sw: Swizzle | None) -> None:
    layout = Layout(layout.iters, sw)
    offsets = [layout.apply(i)[1] for i in range(layout.size)]
    assert max(offsets) < layout.span()
    if sw is None:
        assert max(offsets) == layout.span() - 1


@PROPERTY
@given(memory_layouts(max_iters=4, max_extent=6, max_stride=12))
def test_is_injective_agrees_with_enumeration(layout: Layout) -> None:
    sums = [layout.apply(i)[1] for i in range(layout.size)]
    assert is_injective(layout.iters) == (len(set(sums)) == len(sums))


@PROPERTY
@given(swizzles)
def test_swizzle_is_an_involution_and_a_bijection(sw: Swizzle) -> None:
    period = 1 << (sw.m_base + sw.bits + sw.shift)
    image = [sw.apply(m) for m in range(period)]
    assert sorted(image) == list(range(period))
    assert all(sw.apply(p) == m for m, p in enumerate(image))
    assert all(image[m] == spec_swizzle(m, sw.m_base, sw.bits, sw.shift) for m in range(period))
    # only bits below M+B+S take part: whole periods are translated unchanged
    assert all(sw.apply(m + 3 * period) == p + 3 * period for m, p in enumerate(image))


@PROPERTY
@given(swizzles)
def test_swizzle_keeps_chunks_contiguous(sw: Swizzle) -> None:
    period = 1 << (sw.m_base + sw.bits + sw.shift)
    for start in range(0, period, sw.chunk):
        base = sw.apply(start)
        assert base % sw.chunk == 0
        assert [sw.apply(start + k) for k in range(sw.chunk)] == [base + k
                                                                   for k in range(sw.chunk)]


@PROPERTY
@given(st.lists(st.tuples(st.integers(1, 6), st.integers(0, 10),
                          st.sampled_from(["laneid", "wid_in_wg", "warpid"])),
                max_size=3))
def test_thread_map_injective_agrees_with_enumeration(raw: list[tuple[int, int, str]]) -> None:
    layout = Layout(tuple(Iter(e, s, a) for e, s, a in raw))
    keys = []
    for digits in product(*(range(it.extent) for it in layout.iters)):
        key: dict[str, int] = {}
        for c, it in zip(digits, layout.iters, strict=True):
            key[it.axis] = key.get(it.axis, 0) + c * it.stride  # type: ignore[index]
        keys.append(tuple(sorted(key.items())))
    assert thread_map_injective(layout) == (len(set(keys)) == len(keys))


# --------------------------------------------------------------------------------------------
# The printed form is the attribute syntax: str(layout) parses back to the same layout
# --------------------------------------------------------------------------------------------


@st.composite
def valid_layouts(draw: st.DrawFn) -> Layout:
    layout = draw(mergeable_layouts(axes=(None, None, "laneid", "tx", "wid_in_wg", "warpid")))
    assume(layout.iters)
    sw = draw(st.one_of(st.none(), swizzles)) if not layout.thread_iters else None
    return Layout(layout.iters, sw)


@PROPERTY
@given(valid_layouts())
def test_printed_layout_parses_back(layout: Layout) -> None:
    from xdsl.context import Context
    from xdsl.parser import Parser
    from xdsl.utils.exceptions import ParseError

    from regcopy_dialect.regcopy import LayoutAttr, Regcopy, layout_problem

    ctx = Context()
    ctx.load_dialect(Regcopy)
    text = f"#regcopy.layout<{layout}>"
    if layout_problem(layout) is not None:
        with pytest.raises(ParseError):
            Parser(ctx, text).parse_attribute()
        return
    attr = Parser(ctx, text).parse_attribute()
    assert isinstance(attr, LayoutAttr)
    assert attr.layout == layout
    assert str(attr) == text


def test_ownership_with_a_slice_base() -> None:
    """``ownership`` counts the axis values a slice pinned (``thread_base``) and the axes the
    slice dropped (pinned to 0): lane 5's row of ``(32,3):(1@laneid,1)``; warp 2 of a
    warpgroup tile; a layout with no warp axis is a true replica under warpgroup scope."""
    lay = Layout((Iter(32, 1, "laneid"), Iter(3, 1)))
    row5 = slice_region(lay, (32, 3), (5, 0), (1, 3))
    own = ownership(row5.layout, Scope.WARP, 32, row5.thread_base, ("laneid",))
    assert (own.fewest, own.most, own.fused_exact, own.owners) == (1, 1, True, frozenset({5}))
    assert thread_origin(row5.thread_base) == 5
    wg = Layout((Iter(4, 1, "wid_in_wg"), Iter(32, 1, "laneid"), Iter(8, 1)))
    warp2 = slice_region(wg, (128, 8), (64, 0), (32, 8))
    assert warp2.thread_base == (("wid_in_wg", 2),)
    own = ownership(warp2.layout, Scope.WARPGROUP, 128, warp2.thread_base,
                    ("wid_in_wg", "laneid"))
    assert (own.fewest, own.most) == (1, 1) and own.owners == frozenset(range(64, 96))
    assert thread_origin(warp2.thread_base) == 64
    rows0 = slice_region(wg, (128, 8), (0, 0), (32, 8))
    assert rows0.thread_base == ()  # the slice pinned wid_in_wg to 0: passed as an axis
    pinned = ownership(rows0.layout, Scope.WARPGROUP, 128, rows0.thread_base,
                       ("wid_in_wg", "laneid"))
    unpinned = ownership(rows0.layout, Scope.WARPGROUP, 128, rows0.thread_base)
    assert (pinned.most, unpinned.most) == (1, 4)


def test_ownership_fused_exact_detects_overlapping_axes() -> None:
    """``tx`` and ``laneid`` overlap: the owner is not ``tx + lane`` in general. With lane 0
    it is (``fused_exact``); pinned to tx 33 and lane 1, thread 33 owns, not 33 + 1."""
    both = Layout((Iter(2, 32, "tx"), Iter(1, 1, "laneid"), Iter(4, 1)))
    own = ownership(both, Scope.CTA, 64)
    assert (own.fewest, own.most) == (1, 1) and own.owners == frozenset({0, 32})
    assert own.fused_exact  # lane value 0 adds nothing
    shifted = ownership(Layout((Iter(2, 32, "tx"), Iter(4, 1))), Scope.CTA, 64,
                        (("laneid", 3),))
    assert shifted.fewest == 0  # tx 0 and 32 have lane 0, never 3
    pinned = ownership(Layout((Iter(4, 1),)), Scope.CTA, 64, (("laneid", 1), ("tx", 33)))
    assert (pinned.fewest, pinned.most, pinned.owners) == (1, 1, frozenset({33}))
    assert not pinned.fused_exact


# ---- peel: group and the lowering's vector split are one algorithm -------------------------


def test_peel_from_the_outer_end_is_group() -> None:
    # 16:16 taken whole, 16:1 cut into 2:8 (taken) and 8:1 (left)
    part = peel((Iter(16, 16), Iter(16, 1)), 32, cut_iter)
    assert part == Peeled((Iter(16, 16), Iter(2, 8)), (Iter(8, 1),), True)


def test_peel_from_the_inner_end() -> None:
    # 8 from (4,4):(4,1): 4:1 whole, then 4:4 cut into 2:8 (left, outer) and 2:4 (taken)
    part = peel((Iter(4, 4), Iter(4, 1)), 8, cut_iter, from_inner=True)
    assert part == Peeled((Iter(2, 4), Iter(4, 1)), (Iter(2, 8),), True)


def test_peel_straddling_digit_is_left_at_the_peeled_end() -> None:
    part = peel((Iter(4, 6), Iter(6, 1)), 4, cut_iter)
    assert part == Peeled((Iter(4, 6),), (Iter(6, 1),), True)
    part = peel((Iter(4, 6), Iter(6, 1)), 16, cut_iter)
    assert part == Peeled((Iter(4, 6),), (Iter(6, 1),), False)  # 6:1 straddles the 4 left
    part = peel((Iter(6, 4), Iter(4, 1)), 16, cut_iter, from_inner=True)
    assert part == Peeled((Iter(4, 1),), (Iter(6, 4),), False)
    assert not peel((Iter(2, 1),), 4, cut_iter).complete  # runs out


@given(st.lists(st.sampled_from([1, 2, 3, 4, 6, 8]), max_size=4), st.sampled_from([1, 2, 4, 6, 8]),
       st.booleans())
@PROPERTY
def test_peel_keeps_the_map(extents: list[int], need: int, from_inner: bool) -> None:
    """Taken and rest, in radix order, are the same map as the input, cut where needed."""
    iters = tuple(Iter(e, s) for e, s in zip(extents, suffix_product(extents)))
    part = peel(iters, need, cut_iter, from_inner)
    whole = (*part.rest, *part.taken) if from_inner else (*part.taken, *part.rest)
    lay = Layout(iters)
    assert [Layout(whole).apply(i) for i in range(lay.size)] == [lay.apply(i)
                                                                  for i in range(lay.size)]
    if part.complete:
        assert prod(i.extent for i in part.taken) == need


def test_fused_axis_comes_from_the_thread_axes_table() -> None:
    assert [s.fused_axis for s in Scope] == [None, "laneid", "tid_in_wg", "tx"]
    for s in Scope:
        if s.fused_axis is not None:
            assert THREAD_AXES[s.fused_axis].unit == 1
            assert THREAD_AXES[s.fused_axis].scope is s
