"""Host-side (numpy) views of element types: dtypes, exact random inputs, float64 decoding.

numpy has no bf16 or fp8 type, so those buffers live on the host as their raw bits
(``uint16``/``uint8``), exactly as the CUDA target stores them (``cuda_types``).
"""

from __future__ import annotations

import hashlib
import math
import struct

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute

from regcopy_dialect.element_types import element_info


class HostTypeError(ValueError):
    """An element type without a host representation."""


def numpy_dtype(t: Attribute) -> np.dtype:
    """The numpy dtype holding one element of ``t``: the element table's (raw bits for bf16
    and fp8), or the numpy integer of that width for other integer types."""
    if (info := element_info(t)) is not None:
        return np.dtype(info.numpy)
    if isinstance(t, IntegerType) and t.width.data in (8, 16, 32, 64):
        unsigned = t.signedness.data == Signedness.UNSIGNED
        return np.dtype(f"{'u' if unsigned else ''}int{t.width.data}")
    raise HostTypeError(f"element type {t} has no host representation")


def bf16_bits(x: float) -> int:
    """The bf16 bits nearest to ``x`` rounded to f32, ties to even, on the f32 bits (numpy has
    no bf16): add ``0x7fff`` plus the kept lowest bit, drop 16 bits. Overflow rounds to inf,
    subnormals round like normals; NaN gives ``0x7fff``, the canonical NaN that
    ``cvt.rn.bf16.f32`` gives."""
    if x != x:
        return 0x7FFF
    try:
        b = struct.unpack("<I", struct.pack("<f", x))[0]
    except OverflowError:  # beyond the f32 range
        b = 0x7F800000 if x > 0 else 0xFF800000
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


def bf16_value(bits: int) -> float:
    """The value of bf16 ``bits`` (exact: the bits are the top half of an f32)."""
    return struct.unpack("<f", struct.pack("<I", (bits & 0xFFFF) << 16))[0]


def _bf16_bits(x: np.ndarray) -> np.ndarray:
    return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def _e5m2_bits(x: np.ndarray) -> np.ndarray:
    return (x.astype(np.float16).view(np.uint16) >> 8).astype(np.uint8)


def _e4m3_value(bits: np.ndarray) -> np.ndarray:
    """Decode f8E4M3FN: 1 sign, 4 exponent (bias 7), 3 mantissa bits; S.1111.111 is NaN."""
    b = bits.astype(np.int64)
    sign = np.where(b & 0x80, -1.0, 1.0)
    exp, man = (b >> 3) & 0xF, b & 0x7
    value = np.where(exp == 0, man / 8.0 * 2.0**-6, (1 + man / 8.0) * 2.0 ** (exp - 7))
    return np.where((b & 0x7F) == 0x7F, np.nan, sign * value)


def _e4m3_bits(x: np.ndarray) -> np.ndarray:
    """Encode values exactly representable in f8E4M3FN (looked up among all 256 codes)."""
    codes = np.arange(256, dtype=np.uint8)
    values = _e4m3_value(codes)
    table = {float(v): int(c) for v, c in zip(values, codes) if v == v and not (v == 0 and c)}
    return np.array([table[float(v)] for v in x.ravel()], dtype=np.uint8).reshape(x.shape)


def _e5m2_value(bits: np.ndarray) -> np.ndarray:
    """Decode f8E5M2: the high byte of an f16."""
    return (bits.astype(np.uint16) << 8).view(np.float16).astype(np.float64)


def fp8_bits(x: float, t: Attribute) -> int:
    """The f8E4M3FN or f8E5M2 code of ``x`` as ``cvt.rn.satfinite`` rounds: to the nearest
    finite code, ties to the even code; beyond the largest finite value, that value (its
    sign kept); NaN gives the code 0x7f (a NaN in both formats); an f8E5M2 infinity stays one.
    """
    if not isinstance(t, Float8E4M3FNType | Float8E5M2Type):
        raise HostTypeError(f"{t} is not an fp8 type")
    e5m2 = isinstance(t, Float8E5M2Type)
    if math.isnan(x):
        return 0x7F
    if e5m2 and x in (float("inf"), float("-inf")):
        return 0x7C if x > 0 else 0xFC
    codes = np.arange(256, dtype=np.uint8)
    values = _e5m2_value(codes) if e5m2 else _e4m3_value(codes)
    finite = np.isfinite(values)
    with np.errstate(over="ignore", invalid="ignore"):
        distance = np.where(finite, np.abs(values - x), np.inf)
    negative = math.copysign(1.0, x) < 0
    best = [int(c) for c in np.flatnonzero(distance == distance.min())
            if negative == bool(c & 0x80)]
    return ([c for c in best if not c & 1] or best)[0]


def random_values(t: Attribute, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` random elements of ``t``, each exactly representable in ``t``."""
    match t:
        case Float64Type() | Float32Type():
            return (rng.integers(-(2**20), 2**20, n) / 4).astype(numpy_dtype(t))
        case Float16Type():
            return (rng.integers(-2048, 2048, n) / 2).astype(np.float16)
        case BFloat16Type():
            return _bf16_bits(rng.integers(-256, 256, n) / 2)
        case Float8E5M2Type():
            return _e5m2_bits(rng.integers(-8, 9, n).astype(np.float64))
        case Float8E4M3FNType():
            return _e4m3_bits(rng.integers(-16, 17, n).astype(np.float64))
        case _:
            dt = numpy_dtype(t)
            info = np.iinfo(dt)
            return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)


def as_float64(a: np.ndarray, t: Attribute) -> np.ndarray:
    """The values of a host array of element type ``t`` as float64 (bits decoded)."""
    match t:
        case BFloat16Type():
            return (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        case Float8E5M2Type():
            return (a.astype(np.uint16) << 8).view(np.float16).astype(np.float64)
        case Float8E4M3FNType():
            return _e4m3_value(a)
        case _:
            return a.astype(np.float64)


def checksum(a: np.ndarray, t: Attribute) -> tuple[float, str]:
    """``(sum of the values as float64, first 16 hex digits of the sha256 of the bytes)``."""
    total = float(np.sum(as_float64(a, t)))
    digest = hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]
    return total, digest
