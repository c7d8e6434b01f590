"""How ``regcopy-run --check`` compares kernels that use approximate math functions.

The CPU interpreter computes ``math.exp``, ``exp2``, ``log``, ``rsqrt`` and ``tanh`` correctly
rounded; CUDA's ``expf``, ``exp2f``, ``logf``, ``rsqrtf`` and ``tanhf`` are within 1 to 2
ulps of that (CUDA's documented bounds), so a kernel using them cannot be bit-exact. For
such a kernel (``approximate_ops``), a float buffer passes when every element is within
``ULPS`` units in the last place of its type (4 for f32/f64, 1 for 16- and 8-bit floats) of
the reference: a 2-ulp f32 difference moves a value rounded to bf16 by at most one bf16 ulp.
Integer buffers, and every buffer of a kernel without these ops, stay bit-exact. NaN equals
NaN; ``-0.0`` and ``+0.0`` are 0 ulps apart; an infinity is one ulp above the largest finite
value.
"""

from __future__ import annotations

import numpy as np
from regcopy_backend.cuda.compute import APPROXIMATE
from xdsl.dialects.builtin import AnyFloat
from xdsl.ir import Attribute, Operation


def approximate_ops(scope: Operation) -> list[str]:
    """The names of the approximate math ops in ``scope`` (sorted, each once)."""
    return sorted({op.name for op in scope.walk() if isinstance(op, APPROXIMATE)})


def ulps_for(element: Attribute) -> int:
    """The tolerance, in ulps of ``element``, of a float buffer (0 for other types)."""
    if not isinstance(element, AnyFloat):
        return 0
    return 4 if element.bitwidth >= 32 else 1


def _ordered(bits: np.ndarray, width: int) -> np.ndarray:
    """Float bit patterns as integers in the floats' order (``-0`` and ``+0`` both 0)."""
    u = bits.astype(object) if width == 64 else bits.astype(np.int64)
    sign = 1 << (width - 1)
    magnitude = u & (sign - 1)
    return np.where((u & sign) != 0, -magnitude, magnitude)


def ulp_mismatch(got: np.ndarray, want: np.ndarray, element: Attribute, ulps: int,
                 got_name: str, want_name: str) -> str | None:
    """None when every element of ``got`` is within ``ulps`` of ``want`` (NaN equals NaN),
    else ``n of N elements differ by more than k ulp, first at (i, j): ...``. The arrays hold
    ``element`` values as the host does: numpy floats, or raw bits (bf16, fp8)."""
    got = np.ascontiguousarray(got.reshape(want.shape))
    want = np.ascontiguousarray(want)
    width = got.itemsize * 8
    gb, wb = got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}")
    exponent = {16: 0x7C00 if got.dtype.kind == "f" else 0x7F80, 32: 0x7F800000,
                64: 0x7FF0000000000000, 8: 0}.get(width, 0)
    if width == 8 or not exponent:
        nan_g = nan_w = np.zeros(got.shape, bool)
    else:
        frac = (1 << (width - 1)) - 1
        nan_g, nan_w = (gb & frac) > exponent, (wb & frac) > exponent
    distance = np.abs(_ordered(gb, width) - _ordered(wb, width))
    bad = (distance > ulps) & ~(nan_g & nan_w)
    bad |= nan_g != nan_w
    if not bad.any():
        return None
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    return (f"{int(bad.sum())} of {bad.size} elements differ by more than {ulps} ulp of "
            f"{element}, first at {first}: {got_name} {got[first]}, {want_name} {want[first]}")
