"""The element types a regcopy buffer may hold: one table, read by the dialect (verifier,
builders) and meant for the backends (CUDA type names, host numpy dtypes).

Copies only move bits, so the 16- and 8-bit floats are held as raw bit patterns wherever the
target language has no type for them: in CUDA (NVRTC ships none of ``cuda_fp16.h``,
``cuda_bf16.h``, ``cuda_fp8.h``) they are ``unsigned short``/``unsigned char`` typedefs, and
on the host bf16 and fp8 (which numpy lacks) are ``uint16``/``uint8`` arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True)
class ElementType:
    """One supported element type.

    ``name``: its IR spelling (``f32``, ``ui8``); ``bits``: its width; ``ir``: the xDSL type;
    ``c_name``: the CUDA type the target declares elements with; ``numpy``: the numpy dtype
    name of a host array of it (the raw-bits unsigned type where numpy has no such float);
    ``is_float``: a floating-point type; ``bit_pattern``: held as raw bits in CUDA (no
    arithmetic there)."""

    name: str
    bits: int
    ir: Attribute
    c_name: str
    numpy: str
    is_float: bool
    bit_pattern: bool = False

    @property
    def bytes(self) -> int:
        return self.bits // 8


ELEMENT_TABLE: tuple[ElementType, ...] = (
    ElementType("f64", 64, Float64Type(), "double", "float64", True),
    ElementType("f32", 32, Float32Type(), "float", "float32", True),
    ElementType("f16", 16, Float16Type(), "rc_f16", "float16", True, True),
    ElementType("bf16", 16, BFloat16Type(), "rc_bf16", "uint16", True, True),
    ElementType("i64", 64, IntegerType(64), "long long", "int64", False),
    ElementType("i32", 32, IntegerType(32), "int", "int32", False),
    ElementType("i16", 16, IntegerType(16), "short", "int16", False),
    ElementType("i8", 8, IntegerType(8), "signed char", "int8", False),
    ElementType("ui8", 8, IntegerType(8, Signedness.UNSIGNED), "unsigned char", "uint8", False),
    ElementType("f8E4M3FN", 8, Float8E4M3FNType(), "rc_f8e4m3", "uint8", True, True),
    ElementType("f8E5M2", 8, Float8E5M2Type(), "rc_f8e5m2", "uint8", True, True),
)
"""Every supported element type, widest first within each kind."""

BY_NAME: dict[str, ElementType] = {e.name: e for e in ELEMENT_TABLE}
"""The table by IR spelling."""

ELEMENT_NAMES = " ".join(BY_NAME)
"""The IR spellings, for messages: ``f64 f32 f16 ... f8E5M2``."""


def element_info(t: Attribute) -> ElementType | None:
    """The table entry of the xDSL type ``t``, None when ``t`` is not a supported element."""
    return next((e for e in ELEMENT_TABLE if e.ir == t), None)


def element_bits(t: Attribute) -> int | None:
    """Bit width of a supported element type, None otherwise."""
    info = element_info(t)
    return None if info is None else info.bits
