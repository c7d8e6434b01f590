"""The addressing algebra (regcopy_dialect/address.py), run two ways: on integers (``INT_MATH``)
against the layout's own definition (``Layout.apply`` on the flat logical index), and as IR
(``IndexBuilder``), evaluated op by op, against the integers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import product
from math import prod

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, SSAValue

from regcopy_dialect.address import (
    crd2idx,
    digit,
    dim_iters,
    idx2crd,
    physical_offset,
    suffix_product,
    swizzle,
    thread_coords,
)
from regcopy_dialect.index_math import INT_MATH
from regcopy_dialect.layout import Iter, Layout, Swizzle
from regcopy_passes.core.index_builder import IndexBuilder

PROPERTY = settings()  # example counts from the profile (hypothesis_profiles.py)


def flat_index(idx: Sequence[int], shape: Sequence[int]) -> int:
    flat = 0
    for i, n in zip(idx, shape, strict=True):
        flat = flat * n + i
    return flat


def unflat(flat: int, shape: Sequence[int]) -> tuple[int, ...]:
    out = []
    for n in reversed(shape):
        out.append(flat % n)
        flat //= n
    return tuple(reversed(out))


# ---- mixed-radix helpers ----------------------------------------------------------------------


def test_suffix_product() -> None:
    assert suffix_product((4, 2, 8)) == (16, 8, 1)
    assert suffix_product((5,)) == (1,)
    assert suffix_product(()) == ()


@PROPERTY
@given(st.lists(st.integers(1, 6), min_size=1, max_size=4), st.data())
def test_idx2crd_inverts_crd2idx(extents: list[int], data: st.DataObject) -> None:
    index = data.draw(st.integers(0, prod(extents) - 1))
    coords = idx2crd(INT_MATH, index, extents)
    assert all(0 <= c < e for c, e in zip(coords, extents, strict=True))
    assert crd2idx(INT_MATH, coords, suffix_product(extents)) == index
    assert coords == tuple(digit(INT_MATH, index, extents, k) for k in range(len(extents)))


@pytest.mark.parametrize("m_base,bits,shift", [(0, 1, 1), (1, 1, 1), (2, 1, 2), (3, 3, 3),
                                               (4, 2, 3), (0, 3, 5), (2, 0, 0)])
def test_swizzle_is_the_spec_formula(m_base: int, bits: int, shift: int) -> None:
    """Both swizzles equal the definition ``(g(m >> M) << M) | (m & (2^M - 1))`` with
    ``g(x) = x ^ ((x & ((2^B - 1) << S)) >> S)``, written out here independently."""
    sw = Swizzle(m_base, bits, shift)
    for m in range(1 << (m_base + bits + shift + 2)):
        x = m >> m_base
        g = x ^ ((x & (((1 << bits) - 1) << shift)) >> shift)
        want = (g << m_base) | (m & ((1 << m_base) - 1))
        assert swizzle(INT_MATH, m, sw) == sw.apply(m) == want


def test_dim_iters_merges_contiguous_neighbours() -> None:
    # the m16n8k16 A fragment: dim 1 has (4:8, 2:4) contiguous -> one iter 8:4
    lay = Layout((Iter(4, 32), Iter(2, 2), Iter(8, 4, "laneid"), Iter(4, 8), Iter(2, 4),
                  Iter(4, 1, "laneid"), Iter(2, 1)))
    rows, cols = dim_iters(lay, (64, 64))
    assert [(str(it), place) for it, place in rows] == [("4:32", 16), ("2:2", 8),
                                                        ("8:4@laneid", 1)]
    assert [(str(it), place) for it, place in cols] == [("8:4", 8), ("4:1@laneid", 2),
                                                        ("2:1", 1)]


# ---- physical_offset / thread_coords against Layout.apply --------------------------------------


@st.composite
def buffers(draw: st.DrawFn) -> tuple[tuple[int, ...], Layout]:
    """An injective layout (permuted strides, maybe a gap, maybe thread iters or a swizzle) and
    a buffer shape whose dims may split its iters (grouping then splits them)."""
    extents = draw(st.lists(st.sampled_from([1, 2, 4, 8, 3]), min_size=1, max_size=5))
    order = draw(st.permutations(list(range(len(extents)))))
    axes = draw(st.lists(st.sampled_from([None, None, "laneid", "warpid"]),
                         min_size=len(extents), max_size=len(extents)))
    strides = [0] * len(extents)
    step = {a: 1 for a in (None, "laneid", "warpid")}
    for k in order:
        strides[k] = step[axes[k]]
        step[axes[k]] *= extents[k] * draw(st.sampled_from([1, 1, 2]))  # maybe a gap
    layout = Layout(tuple(Iter(e, s, a) for e, s, a in zip(extents, strides, axes)))
    if not layout.thread_iters and draw(st.booleans()):
        layout = Layout(layout.iters, draw(st.sampled_from(
            [Swizzle(1, 1, 1), Swizzle(2, 1, 2), Swizzle(3, 3, 3)])))
    # a shape: consecutive runs of the iters' prime factors
    factors = [p for e in extents for p in ([2] * (e.bit_length() - 1) if e != 3 else [3])]
    cuts = sorted(draw(st.sets(st.integers(1, max(len(factors) - 1, 1)), max_size=3)))
    bounds = [0, *[c for c in cuts if c < len(factors)], len(factors)]
    shape = tuple(prod(factors[a:b]) for a, b in zip(bounds, bounds[1:]) if b > a) or (1,)
    return shape, layout


@PROPERTY
@given(buffers(), st.data())
def test_physical_offset_and_owner_are_the_layout_map(case: tuple[tuple[int, ...], Layout],
                                                      data: st.DataObject) -> None:
    shape, layout = case
    try:
        dim_iters(layout, shape)
    except ValueError:  # an iter of extent 3 split by a power of two: no grouping exists
        return
    for flat in data.draw(st.lists(st.integers(0, layout.size - 1), min_size=1, max_size=8)):
        idx = unflat(flat, shape)
        axes, off = layout.apply(flat)
        assert physical_offset(INT_MATH, layout, shape, idx) == off
        assert thread_coords(INT_MATH, layout, shape, idx) == axes


def test_gemm_fragment_exhaustively() -> None:
    """The example's A fragment layout, every element: offset and owner."""
    lay = Layout((Iter(4, 32), Iter(2, 2), Iter(8, 4, "laneid"), Iter(4, 8), Iter(2, 4),
                  Iter(4, 1, "laneid"), Iter(2, 1)))
    for idx in product(range(64), range(64)):
        axes, off = lay.apply(flat_index(idx, (64, 64)))
        assert physical_offset(INT_MATH, lay, (64, 64), idx) == off
        assert thread_coords(INT_MATH, lay, (64, 64), idx) == axes


def test_pinned_unit_thread_axis_is_reported() -> None:
    """An extent-1 iter on an axis still constrains the owner (value 0), as ``ownership``."""
    lay = Layout((Iter(1, 1, "warpid"), Iter(32, 1, "laneid")))
    assert thread_coords(INT_MATH, lay, (32,), (5,)) == {"warpid": 0, "laneid": 5}


def test_rank_mismatch_is_an_error() -> None:
    with pytest.raises(ValueError, match="2 indices for a rank-1 buffer"):
        physical_offset(INT_MATH, Layout((Iter(8, 1),)), (8,), (1, 2))


# ---- the same algebra as IR -------------------------------------------------------------------

_EVAL: dict[type, Callable[[int, int], int]] = {
    arith.AddiOp: lambda a, b: a + b, arith.MuliOp: lambda a, b: a * b,
    arith.DivSIOp: lambda a, b: a // b, arith.RemSIOp: lambda a, b: a % b,
    arith.XOrIOp: lambda a, b: a ^ b, arith.AndIOp: lambda a, b: a & b,
    arith.ShRSIOp: lambda a, b: a >> b, arith.ShLIOp: lambda a, b: a << b,
}


def run_ops(b: IndexBuilder, env: dict[SSAValue, int]) -> dict[SSAValue, int]:
    """Evaluate the builder's ops (index values are non-negative: C and Python agree)."""
    vals = dict(env)
    for op in b.ops:
        if isinstance(op, arith.ConstantOp):
            assert isinstance(op.value, IntegerAttr)
            vals[op.result] = op.value.value.data
        else:
            lhs, rhs = (vals[v] for v in op.operands)
            vals[op.results[0]] = _EVAL[type(op)](lhs, rhs)
    return vals


def symbolic_indices(n: int) -> list[SSAValue]:
    return list(Block(arg_types=[IndexType()] * n).args)


@PROPERTY
@given(buffers(), st.data())
def test_index_builder_emits_the_same_offsets(case: tuple[tuple[int, ...], Layout],
                                              data: st.DataObject) -> None:
    shape, layout = case
    try:
        dim_iters(layout, shape)
    except ValueError:
        return
    syms = symbolic_indices(len(shape))
    b = IndexBuilder()
    off = physical_offset(b, layout, shape, syms)
    owner = thread_coords(b, layout, shape, syms)
    for flat in data.draw(st.lists(st.integers(0, layout.size - 1), min_size=1, max_size=8)):
        idx = unflat(flat, shape)
        vals = run_ops(b, dict(zip(syms, idx, strict=True)))
        axes, want = layout.apply(flat)
        assert (off if isinstance(off, int) else vals[off]) == want
        assert {a: v if isinstance(v, int) else vals[v] for a, v in owner.items()} == axes


def test_constant_indices_fold_to_no_ops() -> None:
    lay = Layout((Iter(64, 64), Iter(64, 1)), Swizzle(3, 3, 3))
    b = IndexBuilder()
    assert physical_offset(b, lay, (64, 64), (5, 9)) == lay.apply(5 * 64 + 9)[1]
    assert b.ops == []


def test_powers_of_two_decode_by_shifts_and_masks() -> None:
    """A digit of a power-of-two radix is ``>>`` and ``&``, never a division or remainder."""
    lay = Layout((Iter(4, 32), Iter(2, 2), Iter(8, 4, "laneid"), Iter(4, 8), Iter(2, 4),
                  Iter(4, 1, "laneid"), Iter(2, 1)))
    b = IndexBuilder()
    physical_offset(b, lay, (64, 64), symbolic_indices(2))
    kinds = {type(op) for op in b.ops}
    assert arith.DivSIOp not in kinds and arith.RemSIOp not in kinds
    assert {arith.ShRSIOp, arith.AndIOp} <= kinds
    odd = IndexBuilder()
    physical_offset(odd, Layout((Iter(3, 1), Iter(5, 3))), (15,), symbolic_indices(1))
    assert {type(op) for op in odd.ops} >= {arith.DivSIOp, arith.RemSIOp}


def test_place_digit_without_shifts_keeps_division() -> None:
    """``shifts=False`` (the round counter's decode) emits ``divsi``/``remsi`` even by powers
    of two; the default emits ``shrsi``/``andi``. Both compute the same digits."""
    from regcopy_dialect.radix import place_digit

    for shifts, kinds in ((True, {arith.ShRSIOp, arith.AndIOp}),
                          (False, {arith.DivSIOp, arith.RemSIOp})):
        b = IndexBuilder()
        x = Block(arg_types=[IndexType()]).args[0]
        place_digit(b, x, 4, 8, False, shifts)
        assert {type(op) for op in b.ops} - {arith.ConstantOp} == kinds
        assert all(place_digit(INT_MATH, v, 4, 8, False, shifts) == (v // 4) % 8
                   for v in range(100))


def test_layout_digits_are_idx2crd() -> None:
    lay = Layout((Iter(3, 1), Iter(4, 3), Iter(5, 12)))
    for index in range(2 * lay.size):  # beyond the size: taken modulo it
        assert lay.digits(index) == idx2crd(INT_MATH, index % lay.size, (3, 4, 5))
