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

A kernel with a ``regcopy.wgmma`` (``accumulating_ops``) sums its products in the f32
accumulator in the tensor cores' order and rounding, which the PTX ISA leaves unspecified; the
interpreter adds them in ascending k, each addition rounded to f32. The two agree bit for bit
when every partial sum is exact (integer-valued data of moderate size), not in general: with
--check's random data (f16 in [-1024, 1024), sums past 2^24) about 3% of a 64 x 64 tile's
sums differ by an ulp or more. A float buffer of such a kernel passes when every element is
within ``SUM_ULPS`` ulps of the buffer's largest magnitude (``scaled_mismatch``): two orders of
summation of K terms differ by a few of those (at most 5 in a model of truncating hardware
adds), a wrong element by far more.
"""

from __future__ import annotations

import numpy as np
from regcopy_backend.cuda.compute import APPROXIMATE
from xdsl.dialects.builtin import AnyFloat
from xdsl.ir import Attribute, Operation


def approximate_ops(scope: Operation) -> list[str]:
    """The names of the approximate math ops in ``scope`` (sorted, each once)."""
    return sorted({op.name for op in scope.walk() if isinstance(op, APPROXIMATE)})


ACCUMULATING = ("regcopy.wgmma", "regcopy.wgmma_async")
"""Ops whose f32 sums the GPU forms in an order the interpreter does not reproduce."""
SUM_ULPS = 16
"""Tolerance of a buffer written through them, in ulps of its largest magnitude."""


def accumulating_ops(scope: Operation) -> list[str]:
    """The names of the ops of ``ACCUMULATING`` in ``scope`` (sorted, each once)."""
    return sorted({op.name for op in scope.walk() if op.name in ACCUMULATING})


def scaled_mismatch(got: np.ndarray, want: np.ndarray, values: np.ndarray,
                    wanted: np.ndarray, element: Attribute, ulps: int, got_name: str,
                    want_name: str) -> str | None:
    """None when every element of ``got`` is within ``ulps`` ulps of ``want``'s largest
    magnitude (``values``, ``wanted``: both as float64; NaN equals NaN, an infinity the same
    infinity), else ``n of N elements differ by more than ...``."""
    values = values.reshape(wanted.shape)
    finite = np.abs(wanted[np.isfinite(wanted)])
    top = float(finite.max()) if finite.size else 0.0
    spacing = float(np.spacing(np.array(top, dtype=np.float32 if got.itemsize >= 4
                                        else np.float16)))
    if got.itemsize == 2 and got.dtype.kind != "f":  # bf16 bits: 8 bits of mantissa
        spacing = 2.0 ** (np.floor(np.log2(top)) - 7) if top > 0 else 2.0 ** -133
    tol = ulps * max(spacing, np.finfo(np.float64).tiny)
    same = (values == wanted) | (np.isnan(values) & np.isnan(wanted))
    with np.errstate(invalid="ignore"):  # inf - inf: the same infinities are ``same``
        near = np.abs(values - wanted) <= tol
    bad = ~same & ~near
    if not bad.any():
        return None
    first = tuple(int(i) for i in np.argwhere(bad.reshape(want.shape))[0])
    return (f"{int(bad.sum())} of {bad.size} elements differ by more than {ulps} ulp of "
            f"{element} at the buffer's largest magnitude {top:g}, first at {first}: "
            f"{got_name} {got.reshape(want.shape)[first]}, {want_name} {want[first]}")


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
