"""Vector lanes, float conversions and vector constants of the CUDA target.

A vector is held in its transfer type (``uint4``/``uint2``/``uint32_t``/``uint16_t``/
``uint8_t``, ``types.transfer_type``): lane ``k`` of ``b``-bit lanes is bits
``[k*b, (k+1)*b)`` of the value, little-endian across the 32-bit words ``.x .y .z .w``.

* ``lane(text, rt, bits, k)``: the C expression of lane ``k``'s bits, zero-extended to
  ``unsigned`` (``unsigned long long`` for 64-bit lanes);
* ``pack(rt, bits, lanes)``: the transfer value whose lanes are the given expressions (each
  truncated to ``bits``);
* ``lanewise(op, t, rt, args)``: an arith op on vectors lane by lane, for the lanes and ops
  that ``arith.vector_expression`` does not print word by word: integer ops on 8/16/64-bit
  lanes, shifts, and ``divf``/``maxnumf``/``minnumf``/``negf`` on f32 lanes;
* ``float_cast(op, ...)``: ``truncf`` f32 -> f16/bf16 and ``extf`` back, scalar and vector,
  through the helpers of ``CONVERSIONS`` (printed when used; inline PTX ``cvt.rn``: round to
  nearest even; NaN gives the canonical NaN ``0x7fff``; a pair of vector lanes is one packed
  ``cvt.rn.bf16x2.f32`` / ``cvt.rn.f16x2.f32``). ``extf`` from bf16 is exact: the bits
  shifted up by 16;
* ``vector_literal(value, t)``: a splat or dense vector constant as a transfer-type literal.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    VectorType,
)
from xdsl.ir import Attribute, Operation

from regcopy_backend.cuda.types import TRANSFER_TYPES, element_bytes
from regcopy_backend.host_data import bf16_bits, fp8_bits

WORDS: dict[str, tuple[str, ...]] = {"uint4": (".x", ".y", ".z", ".w"), "uint2": (".x", ".y")}

CONVERSIONS: dict[str, str] = {
    "rc_f32_to_bf16": """\
static __device__ __forceinline__ rc_bf16 rc_f32_to_bf16(float x) {
  unsigned short h; asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(x)); return h; }
""",
    "rc_f32_to_f16": """\
static __device__ __forceinline__ rc_f16 rc_f32_to_f16(float x) {
  unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x)); return h; }
""",
    "rc_f32x2_to_bf16x2": """\
static __device__ __forceinline__ uint32_t rc_f32x2_to_bf16x2(float lo, float hi) {
  uint32_t r; asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo)); return r; }
""",
    "rc_f32x2_to_f16x2": """\
static __device__ __forceinline__ uint32_t rc_f32x2_to_f16x2(float lo, float hi) {
  uint32_t r; asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo)); return r; }
""",
    "rc_bf16_to_f32": """\
static __device__ __forceinline__ float rc_bf16_to_f32(uint32_t h) {
  return __uint_as_float((h & 0xffffu) << 16); }
""",
    "rc_f16_to_f32": """\
static __device__ __forceinline__ float rc_f16_to_f32(uint32_t h) {
  float x; asm("cvt.f32.f16 %0, %1;" : "=f"(x) : "h"((unsigned short)h)); return x; }
""",
}
"""Device helpers, by name, that a module converting between f32 and f16 or bf16 prints after
the prelude (those it calls: ``compute.module_helpers``). ``cvt.rn.{bf16,f16}x2.f32 d, a, b``
puts ``a`` in the upper half of ``d``: the helpers take the lower lane first."""


def helper_of(op: Operation) -> str | None:
    """The ``CONVERSIONS`` helper that a conversion ``op`` calls (None for other ops)."""
    if not is_conversion(op):
        return None
    src_t = op.operands[0].type
    half = _lane(src_t) if is_half(_lane(src_t)) else _lane(op.results[0].type)
    name = "bf16" if isinstance(half, BFloat16Type) else "f16"
    if isinstance(op, arith.ExtFOp):
        return f"rc_{name}_to_f32"
    pairs = isinstance(src_t, VectorType) and src_t.get_shape()[0] > 1
    return f"rc_f32x2_to_{name}x2" if pairs else f"rc_f32_to_{name}"



class LaneError(ValueError):
    """A vector op or constant the CUDA target does not print."""


def is_half(t: Attribute) -> bool:
    return isinstance(t, Float16Type | BFloat16Type)


def is_conversion(op: Operation) -> bool:
    """Whether ``op`` is a ``truncf`` f32 -> f16/bf16 or ``extf`` f16/bf16 -> f32 (scalar or
    vector)."""
    if not isinstance(op, arith.TruncFOp | arith.ExtFOp):
        return False
    src, dst = (_lane(op.operands[0].type), _lane(op.results[0].type))
    return (isinstance(src, Float32Type) and is_half(dst)) or (
        is_half(src) and isinstance(dst, Float32Type))


def _lane(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, VectorType) else t


def _words(text: str, rt: str) -> list[str]:
    """The 32-bit words of a transfer value (narrower types: the value as ``unsigned``)."""
    if rt in WORDS:
        return [f"{text}{w}" for w in WORDS[rt]]
    return [text if rt == "uint32_t" else f"(unsigned){text}"]


def lane(text: str, rt: str, bits: int, k: int) -> str:
    """Lane ``k`` (``bits`` wide) of the transfer value ``text``, zero-extended."""
    words = _words(text, rt)
    if bits == 64:
        return f"((unsigned long long){words[2 * k + 1]} << 32 | {words[2 * k]})"
    word, shift = divmod(k * bits, 32)
    w = words[word]
    if bits == 32:
        return w
    return f"(({w} >> {shift}) & 0x{(1 << bits) - 1:x}u)" if shift else \
        f"({w} & 0x{(1 << bits) - 1:x}u)"


def pack(rt: str, bits: int, lanes: Sequence[str]) -> str:
    """The transfer value of type ``rt`` whose ``bits``-wide lanes are ``lanes``."""
    per_word = max(32 // bits, 1)
    words: list[str] = []
    if bits == 64:
        for v in lanes:
            words += [f"(unsigned)({v})", f"(unsigned)(({v}) >> 32)"]
    else:
        mask = f"0x{(1 << bits) - 1:x}u"
        for w in range(max(len(lanes) * bits // 32, 1)):
            parts = []
            for j, v in enumerate(lanes[w * per_word:(w + 1) * per_word]):
                part = f"((unsigned)({v}) & {mask})" if bits < 32 else f"(unsigned)({v})"
                parts.append(f"{part} << {j * bits}" if j else part)
            words.append(" | ".join(parts))
    if rt in WORDS:
        return f"{rt}{{{', '.join(words)}}}"
    return f"({rt})({words[0]})"


def _signed(v: str, bits: int) -> str:
    """The lane ``v`` (zero-extended) as a signed value of its width."""
    if bits == 64:
        return f"(long long){v}"
    return f"((int)({v} << {32 - bits}) >> {32 - bits})" if bits < 32 else f"(int){v}"


INT_LANEWISE: dict[type[Operation], Callable[[str, str, int], str]] = {
    arith.AddiOp: lambda a, b, n: f"{a} + {b}",
    arith.SubiOp: lambda a, b, n: f"{a} - {b}",
    arith.MuliOp: lambda a, b, n: f"{a} * {b}",
    arith.AndIOp: lambda a, b, n: f"{a} & {b}",
    arith.OrIOp: lambda a, b, n: f"{a} | {b}",
    arith.XOrIOp: lambda a, b, n: f"{a} ^ {b}",
    arith.ShLIOp: lambda a, b, n: f"{a} << {b}",
    arith.ShRUIOp: lambda a, b, n: f"{a} >> {b}",
    arith.ShRSIOp: lambda a, b, n: f"{_signed(a, n)} >> {b}",
}
"""Integer ops lane by lane on zero-extended lanes: the low ``bits`` bits of the result are
MLIR's (two's complement wraps; ``shrsi`` sign-extends first). A shift by the lane width or
more is poison in MLIR; here it gives what C gives for the widened lane."""

F32_LANEWISE: dict[type[Operation], Callable[[str, str], str]] = {
    arith.AddfOp: lambda a, b: f"__fadd_rn({a}, {b})",
    arith.SubfOp: lambda a, b: f"__fsub_rn({a}, {b})",
    arith.MulfOp: lambda a, b: f"__fmul_rn({a}, {b})",
    arith.DivfOp: lambda a, b: f"__fdiv_rn({a}, {b})",
    arith.MaxnumfOp: lambda a, b: f"fmaxf({a}, {b})",
    arith.MinnumfOp: lambda a, b: f"fminf({a}, {b})",
    arith.NegfOp: lambda a, b: f"-{a}",
}
"""Float ops lane by lane on f32 lanes (``__uint_as_float`` of each word)."""


def lanewise(op: Operation, t: VectorType, rt: str, args: Sequence[str]) -> str:
    """An arith op on vectors lane by lane (``INT_LANEWISE`` on 8/16/32/64-bit integer lanes,
    ``F32_LANEWISE`` on f32 lanes); ``LaneError`` for anything else."""
    kind, lane_t = type(op), t.element_type
    n = t.get_shape()[0] if t.get_shape() else 1
    if kind in INT_LANEWISE and isinstance(lane_t, IntegerType) and \
            lane_t.width.data in (8, 16, 32, 64):
        bits = lane_t.width.data
        fn = INT_LANEWISE[kind]
        return pack(rt, bits, [fn(lane(args[0], rt, bits, k), lane(args[1], rt, bits, k), bits)
                               for k in range(n)])
    if kind in F32_LANEWISE and isinstance(lane_t, Float32Type):
        fl = F32_LANEWISE[kind]
        b = args[1] if len(args) > 1 else args[0]

        def as_float(v: str, k: int) -> str:
            return f"__uint_as_float({lane(v, rt, 32, k)})"

        return pack(rt, 32, [f"__float_as_uint({fl(as_float(args[0], k), as_float(b, k))})"
                             for k in range(n)])
    raise LaneError(f"on {t} is not supported by the CUDA target")


def float_cast(op: Operation, args: Sequence[str], rt: str, source_rt: str) -> str:
    """``truncf`` f32 -> f16/bf16 or ``extf`` f16/bf16 -> f32 (``is_conversion``), scalar or
    vector; ``rt``/``source_rt``: the C types of the result and the operand."""
    src_t, dst_t = op.operands[0].type, op.results[0].type
    src, dst = _lane(src_t), _lane(dst_t)
    name = "bf16" if isinstance(src if is_half(src) else dst, BFloat16Type) else "f16"
    if not isinstance(src_t, VectorType):
        if isinstance(op, arith.TruncFOp):
            return f"rc_f32_to_{name}({args[0]})"
        return f"rc_{name}_to_f32({args[0]})"
    n = src_t.get_shape()[0]
    if isinstance(op, arith.TruncFOp):
        f = [f"__uint_as_float({lane(args[0], source_rt, 32, k)})" for k in range(n)]
        if n == 1:
            return f"rc_f32_to_{name}({f[0]})"
        words = [f"rc_f32x2_to_{name}x2({f[k]}, {f[k + 1]})" for k in range(0, n, 2)]
        return words[0] if rt == "uint32_t" else f"{rt}{{{', '.join(words)}}}"
    return pack(rt, 32, [f"__float_as_uint(rc_{name}_to_f32({lane(args[0], source_rt, 16, k)}))"
                         for k in range(n)])


def vector_literal(value: Attribute, t: VectorType) -> str:
    """A splat or dense ``arith.constant`` of vector type ``t`` as a literal of its transfer
    type (``uint4{0x3fc00000u, ...}``): the lanes' little-endian bytes (floats rounded to
    nearest even to the lane type, bf16 through f32)."""
    if not isinstance(value, DenseIntOrFPElementsAttr):
        raise LaneError(f"constant {value} of type {t} has no CUDA literal here")
    size = len(value.get_values()) * element_bytes(t.element_type)
    if size not in TRANSFER_TYPES:
        raise LaneError(f"constant of type {t} is {size} bytes; vectors are 16, 8, 4, 2 or "
                        "1 bytes")
    data = lane_bytes(value.get_values(), t.element_type)
    rt = TRANSFER_TYPES[size]
    if size >= 4:
        words = [f"0x{w:08x}u" for w in struct.unpack(f"<{size // 4}I", data)]
        return words[0] if rt == "uint32_t" else f"{rt}{{{', '.join(words)}}}"
    return f"({rt})0x{int.from_bytes(data, 'little'):x}u"


def lane_bytes(values: Sequence[float | int], lane_t: Attribute) -> bytes:
    """The little-endian bytes of constant lanes of type ``lane_t``."""
    if isinstance(lane_t, BFloat16Type):
        return b"".join(bf16_bits(float(v)).to_bytes(2, "little") for v in values)
    if isinstance(lane_t, Float8E4M3FNType | Float8E5M2Type):  # bits, as cvt.rn.satfinite
        return bytes(fp8_bits(float(v), lane_t) for v in values)
    if isinstance(lane_t, Float16Type | Float32Type | Float64Type):
        dtype = {Float16Type: "<f2", Float32Type: "<f4", Float64Type: "<f8"}[type(lane_t)]
        with np.errstate(over="ignore"):
            return np.array(values, dtype=np.float64).astype(dtype).tobytes()
    if isinstance(lane_t, IntegerType):
        width = lane_t.width.data
        if width not in (8, 16, 32, 64):
            raise LaneError(f"{lane_t} lanes have no bytes in the CUDA target")
        return b"".join((int(v) & ((1 << width) - 1)).to_bytes(width // 8, "little")
                        for v in values)
    raise LaneError(f"constant lanes of type {lane_t} are not supported by the CUDA target")
