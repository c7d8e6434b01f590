"""What one TMA load (``regcopy.tma_load``) writes into shared memory, as a pure function.

The box of ``box`` elements (outermost first) starting at ``coords`` of a row-major global
array is read with every element outside the array's extents (negative coordinates included)
replaced by 0, laid out densely row-major, and each element ``i`` of that dense box stored at
shared element ``base + swz(i)``, where ``swz`` is regcopy's ``swizzle<4-k, b, 3>`` equal to
the map's byte-address swizzle (``tma_plan.tma_swizzle``; identity without swizzle). The
hardware swizzles absolute shared addresses, so ``base`` must start a whole swizzle period
(``tma_plan.SwizzleMode.period`` bytes); ``tma_box_moves`` refuses it otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np

from regcopy_dialect.index_math import INT_MATH
from regcopy_dialect.radix import swizzle
from regcopy_passes.tma.plan import SwizzleMode, tma_swizzle


class TmaError(ValueError):
    """A TMA load the hardware would not perform as written (one-line message)."""


def read_box(src: np.ndarray, coords: Sequence[int], box: Sequence[int]) -> np.ndarray:
    """The ``box`` of ``src`` at ``coords`` with out-of-range elements 0 (dense, row-major)."""
    if len(coords) != src.ndim or len(box) != src.ndim:
        raise TmaError(f"a {src.ndim}-d tensor needs {src.ndim} coordinates and box sizes, got "
                       f"{len(coords)} and {len(box)}")
    out = np.zeros(tuple(box), dtype=src.dtype)
    src_sl, dst_sl = [], []
    for c, b, ext in zip(coords, box, src.shape, strict=True):
        lo, hi = max(c, 0), min(c + b, ext)
        if lo >= hi:
            return out
        src_sl.append(slice(lo, hi))
        dst_sl.append(slice(lo - c, hi - c))
    out[tuple(dst_sl)] = src[tuple(src_sl)]
    return out


def box_positions(count: int, swizzle_bytes: int, element_bytes: int) -> np.ndarray:
    """Shared element offset (from the destination) of each dense box element."""
    dense = np.arange(count, dtype=np.int64)
    swz = tma_swizzle(SwizzleMode(swizzle_bytes), element_bytes)
    return cast(np.ndarray, swizzle(INT_MATH, dense, swz)) if swz else dense


def tma_box_moves(src: np.ndarray, coords: Sequence[int], box: Sequence[int],
                  swizzle_bytes: int, base: int) -> tuple[np.ndarray, np.ndarray]:
    """``(shared element offsets, values)`` one TMA load writes; ``base`` is the
    destination's element offset in its shared buffer (assumed period-aligned there)."""
    e = src.dtype.itemsize
    period = SwizzleMode(swizzle_bytes).period
    if (base * e) % period:
        raise TmaError(f"TMA destination at byte {base * e} is not {period}-byte aligned "
                       f"(swizzle {SwizzleMode(swizzle_bytes)})")
    values = read_box(src, coords, box).reshape(-1)
    return base + box_positions(values.size, swizzle_bytes, e), values


def tma_load_into(shared: np.ndarray, src: np.ndarray, coords: Sequence[int],
                  box: Sequence[int], swizzle_bytes: int, base: int = 0) -> int:
    """Perform the load on a flat shared array; returns the bytes moved (the box's)."""
    where, values = tma_box_moves(src, coords, box, swizzle_bytes, base)
    if where.size and int(where.max()) >= shared.size:
        raise TmaError(f"TMA box of {values.size} elements at element {base} overruns the "
                       f"{shared.size}-element shared buffer")
    shared[where] = values
    return values.size * src.dtype.itemsize
