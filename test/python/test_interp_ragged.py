"""The CPU interpreter on runtime extents: dynamic buffers typed by their arrays, memref.dim,
the reference semantics of a bounds-checked regcopy.copy (out-of-extent elements are not read
— the registers get the padding — and not written; ``{in_bounds}`` outside is an error), the
hand-lowered ragged copy against numpy, and the argument checks."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from ragged_cases import (
    LOWERED,
    PAD,
    THOROUGH,
    k_loop_copy,
    padded_reference,
    parse_unverified,
    sweep_shapes,
    tile_copy,
    tiles,
)
from xdsl.utils.exceptions import InterpretationError

from regcopy_backend.interpreter.driver import KernelError
from regcopy_backend.runtime.cpu_run import run_on_cpu


def _x(m: int, n: int) -> np.ndarray:
    return np.arange(1, m * n + 1, dtype=np.float32).reshape(m, n)


@pytest.fixture(scope="module")
def tile_module():
    return parse_unverified(tile_copy())


@pytest.fixture(scope="module")
def lowered_module():
    return parse_unverified(LOWERED.read_text())


@pytest.mark.parametrize("m, n", sweep_shapes())
def test_bounded_reference_copy_matches_numpy(tile_module, m: int, n: int) -> None:
    """X (m x n) -> registers (padding 0.5 outside) -> Y (the whole tiles): Y holds X where X
    has elements and the padding elsewhere; nothing outside Y's extents is written."""
    gm, gn = tiles(m, n)
    shape = (32 * gm, 8 * gn)
    y = np.full(shape, -1, np.float32)
    _, got = run_on_cpu(tile_module, "tile", [_x(m, n), y], grid=(gm, gn))
    np.testing.assert_array_equal(got, padded_reference(_x(m, n), shape, PAD))


def test_writes_outside_the_extents_are_dropped(tile_module) -> None:
    """Y smaller than the tiles: only Y's own elements are written."""
    _, got = run_on_cpu(tile_module, "tile", [_x(40, 12), np.zeros((33, 9), np.float32)],
                        grid=(2, 2))
    np.testing.assert_array_equal(got, _x(40, 12)[:33, :9])


def test_default_padding_is_zero() -> None:
    module = parse_unverified(tile_copy(attrs_in=""))
    _, got = run_on_cpu(module, "tile", [_x(3, 5), np.full((32, 8), -1, np.float32)])
    np.testing.assert_array_equal(got, padded_reference(_x(3, 5), (32, 8), 0.0))


def test_in_bounds_outside_is_a_located_error() -> None:
    """``{in_bounds}`` promises the region is inside: a region that is not is one line naming
    the op and the promise, never a silent clip."""
    module = parse_unverified(tile_copy(attrs_in="{in_bounds}"))
    with pytest.raises(KernelError) as err:
        run_on_cpu(module, "tile", [_x(31, 8), np.zeros((32, 8), np.float32)])
    text = str(err.value)
    assert "\n" not in text and "regcopy.copy warp %X" in text
    assert "in_bounds" in text and "out of bounds of shape [31, 8]" in text


def test_in_bounds_inside_copies() -> None:
    module = parse_unverified(tile_copy(attrs_in="{in_bounds}", attrs_out="{in_bounds}"))
    _, got = run_on_cpu(module, "tile", [_x(32, 8), np.zeros((32, 8), np.float32)])
    np.testing.assert_array_equal(got, _x(32, 8))


@pytest.mark.parametrize("m, n", [(1, 1), (2, 9), (3, 8), (1, 130), (2, 127), (5, 256)])
def test_hand_lowered_ragged_copy(lowered_module, m: int, n: int) -> None:
    """The lowered form (memref.dim, storage, one predicate per vector, scf.if with results,
    versioning on N % 4) equals numpy: Y = X, nothing read or written outside."""
    y = np.full((m, n), -1, np.float32)
    _, got = run_on_cpu(lowered_module, "ragged", [_x(m, n), y], grid=(m, -(-n // 128)))
    np.testing.assert_array_equal(got, _x(m, n))


@settings(max_examples=examples(6, 500))
@given(m=st.integers(1, 70), n=st.integers(1, 40), bx=st.integers(0, 1), by=st.integers(0, 3))
def test_random_extents_and_offsets(tile_module, m: int, n: int, bx: int, by: int) -> None:
    """A single tile at a random offset of a random extent: inside the extents it copies,
    outside it pads (read side) and drops (write side)."""
    big = (32 * (bx + 1), 8 * (by + 1))
    y = np.full(big, -1, np.float32)
    _, got = run_on_cpu(tile_module, "tile", [_x(m, n), y], grid=(bx + 1, by + 1))
    np.testing.assert_array_equal(got, padded_reference(_x(m, n)[:big[0], :big[1]], big, PAD))


@pytest.mark.parametrize("shape, why", [
    ((4,), "rank 1, the buffer ?x? has rank 2"),
])
def test_bad_shapes_are_refused(tile_module, shape: tuple[int, ...], why: str) -> None:
    with pytest.raises(ValueError, match=re.escape(why)):
        run_on_cpu(tile_module, "tile", [np.zeros(shape, np.float32),
                                         np.zeros((32, 8), np.float32)])


def test_an_extent_0_launches_nothing(tile_module) -> None:
    """An extent 0 is an empty launch (as run_kernel), not a refused shape: the buffers come
    back unchanged."""
    y = np.full((32, 8), -1, np.float32)
    x, got = run_on_cpu(tile_module, "tile", [np.zeros((0, 8), np.float32), y])
    assert x.shape == (0, 8)
    np.testing.assert_array_equal(got, y)


def test_broken_divisibility_is_refused() -> None:
    text = tile_copy().replace(
        "%X: memref<?x?xf32, #regcopy.mem<global>>",
        "%X: memref<?x?xf32, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 4>}")
    with pytest.raises(InterpretationError, match=r"argument %X of shape 3x6 extent 6 of dim 1 "
                       r"breaks its promise regcopy.divisibility = array<i64: 1, 4>"):
        run_on_cpu(parse_unverified(text), "tile", [_x(3, 6), np.zeros((32, 8), np.float32)])


# ---- lower-reg-copy's bounds-checked lowering against the reference and numpy ---------------


def _lowered(text: str):
    from regcopy_tools.regcopy_run import parse_and_lower

    from regcopy_passes.lower_layout_access import lower_layout_access

    return lower_layout_access(parse_and_lower(text, "ragged.mlir"))


@pytest.fixture(scope="module")
def tile_lowered():
    return _lowered(tile_copy())


def lowered_shapes() -> list[tuple[int, int]]:
    """The full sweep when thorough, else a few shapes through the edges."""
    return sweep_shapes() if THOROUGH else [(1, 1), (3, 5), (33, 4), (5, 17), (4, 7), (2, 6)]


@pytest.mark.parametrize("m, n", lowered_shapes())
def test_lowered_equals_reference_and_numpy(tile_module, tile_lowered, m: int, n: int) -> None:
    """The pass's bounds-checked (and versioned: N % 4) copy, interpreted, equals the
    reference copy and numpy, on X's extents and on a Y of other extents."""
    gm, gn = tiles(m, n)
    shape = (32 * gm, 8 * gn)
    outs = []
    for y_shape in (shape, (max(1, m - 2), n + 3)):
        for module in (tile_module, tile_lowered):
            y = np.full(y_shape, -1, np.float32)
            outs.append(run_on_cpu(module, "tile", [_x(m, n), y], grid=(gm, gn))[1])
        np.testing.assert_array_equal(outs[-1], outs[-2])
    np.testing.assert_array_equal(outs[0], padded_reference(_x(m, n), shape, PAD))


@pytest.mark.parametrize("m, k", [(3, 1), (5, 31)] if not THOROUGH else
                         [(m, k) for m in (1, 31, 33) for k in range(1, 41)])
def test_ragged_k_loop(m: int, k: int) -> None:
    """A K loop of 8-wide tiles up to a runtime K (the last tile ragged): lowered, reference
    and numpy agree."""
    got = [run_on_cpu(module, "kloop", [_x(m, k), np.full((m, k), -1, np.float32)],
                      grid=(tiles(m, k)[0],))[1]
           for module in (parse_unverified(k_loop_copy()), _lowered(k_loop_copy()))]
    np.testing.assert_array_equal(got[0], _x(m, k))
    np.testing.assert_array_equal(got[1], _x(m, k))


@settings(max_examples=examples(3, 200))
@given(m=st.integers(1, 70), n=st.integers(1, 40), bx=st.integers(0, 1), by=st.integers(0, 2))
def test_lowered_random_extents_and_offsets(tile_lowered, m: int, n: int, bx: int,
                                            by: int) -> None:
    big = (32 * (bx + 1), 8 * (by + 1))
    y = np.full(big, -1, np.float32)
    _, got = run_on_cpu(tile_lowered, "tile", [_x(m, n), y], grid=(bx + 1, by + 1))
    np.testing.assert_array_equal(got, padded_reference(_x(m, n)[:big[0], :big[1]], big, PAD))


@pytest.mark.parametrize("elem, pad", [("f16", "{padding = 0.5 : f16}"), ("i8", "")])
@pytest.mark.parametrize("m, n", [(3, 5), (4, 7), (2, 6), (5, 9), (2, 3)])
def test_realigned_narrow_elements(elem: str, pad: str, m: int, n: int) -> None:
    """f16 and i8 rows of 8 (one 128-bit or 64-bit vector; the store's fallback realigns it
    with granule 1, one branch per class of misalignment 0..7): the lowered copy
    equals the reference copy, on a Y of X's rows and on one whose row length differs by 3."""
    text = tile_copy(pad).replace("xf32", f"x{elem}")
    dtype = np.float16 if elem == "f16" else np.int8
    x = (np.arange(m * n) % 100).astype(dtype).reshape(m, n)
    gm, gn = tiles(m, n)
    for y_shape in ((32 * gm, 8 * gn), (m, n + 3)):
        got = [run_on_cpu(module, "tile", [x, np.full(y_shape, 7, dtype)], grid=(gm, gn))[1]
               for module in (parse_unverified(text), _lowered(text))]
        np.testing.assert_array_equal(got[1], got[0])


@pytest.mark.parametrize("name, columns_first, m, n", [("NARROW", True, 64, 70),
                                                       ("NARROW", False, 64, 70),
                                                       ("ROWS", True, 64, 7)])
def test_bench_ragged_kernel_covers_the_grid(name: str, columns_first: bool, m: int,
                                             n: int) -> None:
    """``bench_ragged``'s 64 x 64 and 32 x 256 copies, lowered, on their launch grid (a 1-D
    grid walking the column tiles first, or rows on x and columns on y) copy a misaligned
    buffer exactly: every tile is visited once, and the realigned stores hold at the edges."""
    from dataclasses import replace

    from regcopy_bench import bench_ragged

    tile = replace(getattr(bench_ragged, name), columns_first=columns_first)
    x = _x(m, n)
    _, got = run_on_cpu(_lowered(bench_ragged.kernel_text(tile, promised=False)), "ragged",
                        [x, np.full((m, n), -1, np.float32)], grid=tile.grid(m, n))
    np.testing.assert_array_equal(got, x)


@pytest.mark.parametrize("name, divisor, m, n", [("ROWS", 1, 32, 5), ("ROWS", 1, 30, 63),
                                                  ("NARROW", 1, 64, 67), ("ROWS", 2, 32, 6),
                                                  ("ROWS", 2, 29, 62)])
def test_bench_ragged_straddling_stores_equal_the_reference(name: str, divisor: int, m: int,
                                                            n: int) -> None:
    """A CTA tile whose rounds step rows (each thread's columns fixed): the stores of a
    vector that straddles the row's end follow its store under a column part made once
    before the rounds (M not always a multiple of the tile's rows: the rows' checks hold the
    pieces too). Lowered, the copy equals the un-lowered one on a Y whose rows are
    longer than X's (the registers past X's end hold the padding and go to Y's extra columns;
    nothing lands elsewhere) and on one whose rows are shorter (the pieces past Y's end are
    not written), unpromised (versioned, realigned fallback) and with rows promised a
    multiple of 2 (pieces of 2)."""
    from regcopy_bench import bench_ragged

    tile = getattr(bench_ragged, name)
    text = bench_ragged.kernel_text(tile, promised=divisor > 1)
    text = text.replace("array<i64: 1, 4>", f"array<i64: 1, {divisor}>")
    x = _x(m, n)
    for cols in (n + 2 * divisor, n - divisor):
        y = np.full((m, cols), -1, np.float32)
        grid = (-(-m // tile.rows) * -(-n // tile.cols), 1, 1)
        got = [run_on_cpu(module, "ragged", [x, y.copy()], grid=grid)[1]
               for module in (parse_unverified(text), _lowered(text))]
        np.testing.assert_array_equal(got[1], got[0])
        np.testing.assert_array_equal(got[1][:, :min(n, cols)], x[:, :cols])


def test_bench_ragged_versioned_summary_names_the_n_outside_2_percent() -> None:
    """The versioned / promised line counts the aligned N within 2% and names the others."""
    from regcopy_bench.bench_ragged import versioned_summary

    line = versioned_summary({4: 1.05, 8: 1.0, 32: 0.99, 36: 1.03, 40: 0.97})
    assert "within 2% at 2" in line
    assert "N >= 32: 0.970-1.030" in line
    assert line.endswith("outside 2%: N = 4 (1.050), 36 (1.030), 40 (0.970)")
    assert "outside" not in versioned_summary({8: 1.01, 12: 0.99})


def test_bench_ragged_band_summary_counts_the_misaligned_n_by_band() -> None:
    """The by-band line takes the misaligned N only, in bands of 32 N from a multiple of 32."""
    from regcopy_bench.bench_ragged import band_summary

    line = band_summary({1: 0.5, 2: 0.96, 4: 1.0, 31: 0.9, 33: 0.97, 35: 0.95, 64: 1.0})
    assert line.endswith("0..31: mean 0.787, 1/3; 32..63: mean 0.960, 2/2")
