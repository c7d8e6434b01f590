"""Interpreter implementations of the ``arith`` casts and float ops that xDSL 0.74's interpreter
lacks but the CUDA target prints: ``extsi extui trunci sitofp uitofp fptosi fptoui extf truncf
negf minnumf maxnumf``. Without them ``regcopy-run --check`` could not run a kernel that the
CUDA target compiles.

Values are as elsewhere in the interpreter: an integer is a Python int, two's complement of its
width for signless and signed types, its unsigned value for ``ui`` types, 0 or 1 for ``i1``; a
float is a Python float holding a value of its type (``interp_arith.round_f32``/``round_f16``).
``truncf`` f32 -> bf16 rounds to nearest even on the f32 bits (``host_data.bf16_bits``; a bf16
is its raw bits here) and gives NaN as ``0x7fff``, as ``cvt.rn.bf16.f32`` does; ``extf`` from
bf16 is exact. Where MLIR leaves a result undefined (a float out of an integer's range, NaN), the
implementations give what the GPU gives for the CUDA the target prints (``(int)x`` is
``cvt.rzi``: saturating, NaN to 0), so ``--check`` compares like with like.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    Signedness,
)
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Attribute
from xdsl.utils.exceptions import InterpretationError

from regcopy_backend.interpreter.arith import round_f16, round_f32
from regcopy_backend.host_data import bf16_bits, bf16_value


def _int_bits(interp: Interpreter, t: Attribute) -> int:
    if isinstance(t, IndexType):
        return interp.index_bitwidth
    if isinstance(t, IntegerType):
        return t.width.data
    raise InterpretationError(f"{t} is not an integer type")


def _unsigned_type(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.signedness.data == Signedness.UNSIGNED


def as_int(interp: Interpreter, v: int, t: Attribute) -> int:
    """``v`` modulo 2^width, represented as the interpreter holds a value of integer type ``t``:
    0/1 for ``i1``, unsigned for ``ui`` types, else two's complement."""
    bits = _int_bits(interp, t)
    v &= (1 << bits) - 1
    if bits == 1 or _unsigned_type(t):
        return v
    return v - (1 << bits) if v >> (bits - 1) else v


def unsigned_value(interp: Interpreter, v: int, t: Attribute) -> int:
    """The unsigned value of the bits of ``v`` (integer type ``t``)."""
    return v & ((1 << _int_bits(interp, t)) - 1)


def float_rounder(t: Attribute) -> Callable[[float], float]:
    """Rounding of a Python float to float type ``t`` (f64: none); other types are refused."""
    if isinstance(t, Float64Type):
        return float
    if isinstance(t, Float32Type):
        return round_f32
    if isinstance(t, Float16Type):
        return round_f16
    raise InterpretationError(f"{t} arithmetic is not supported by the interpreter (f64, f32 "
                              "and f16 only; bf16 and fp8 values are raw bit patterns here)")


def saturating_int(x: float, lo: int, hi: int) -> int:
    """``x`` rounded toward zero and clamped to ``[lo, hi]``; NaN gives 0 (PTX ``cvt.rzi``)."""
    if x != x:
        return 0
    if math.isinf(x):
        return hi if x > 0 else lo
    return max(lo, min(hi, math.trunc(x)))


def ieee_min(a: float, b: float) -> float:
    """IEEE minNum: the other operand when one is NaN; ``-0.0`` below ``+0.0``."""
    if a != a:
        return b
    if b != b or a < b:
        return a
    if a == b:
        return a if math.copysign(1.0, a) < 0 else b
    return b


def ieee_max(a: float, b: float) -> float:
    """IEEE maxNum: the other operand when one is NaN; ``+0.0`` above ``-0.0``."""
    if a != a:
        return b
    if b != b or a > b:
        return a
    if a == b:
        return a if math.copysign(1.0, a) > 0 else b
    return b


@register_impls
class CastFunctions(InterpreterFunctions):
    """The casts and float ops above, on scalars (``interp_vector`` runs them lane by lane)."""

    @impl(arith.ExtSIOp)
    def run_extsi(self, interp: Interpreter, op: arith.ExtSIOp, args: PythonValues):
        source = op.operands[0].type
        value = args[0]
        if _int_bits(interp, source) == 1:  # i1 holds 0/1: sign-extended, 1 is -1
            value = -(value & 1)
        return (as_int(interp, value, op.results[0].type),)

    @impl(arith.ExtUIOp)
    def run_extui(self, interp: Interpreter, op: arith.ExtUIOp, args: PythonValues):
        value = unsigned_value(interp, args[0], op.operands[0].type)
        return (as_int(interp, value, op.results[0].type),)

    @impl(arith.TruncIOp)
    def run_trunci(self, interp: Interpreter, op: arith.TruncIOp, args: PythonValues):
        return (as_int(interp, args[0], op.results[0].type),)

    @impl(arith.SIToFPOp)
    def run_sitofp(self, interp: Interpreter, op: arith.SIToFPOp, args: PythonValues):
        return (float_rounder(op.results[0].type)(float(args[0])),)

    @impl(arith.UIToFPOp)
    def run_uitofp(self, interp: Interpreter, op: arith.UIToFPOp, args: PythonValues):
        value = unsigned_value(interp, args[0], op.operands[0].type)
        return (float_rounder(op.results[0].type)(float(value)),)

    @impl(arith.FPToSIOp)
    def run_fptosi(self, interp: Interpreter, op: arith.FPToSIOp, args: PythonValues):
        t = op.results[0].type
        bits = _int_bits(interp, t)
        half = 1 << (bits - 1)
        return (as_int(interp, saturating_int(args[0], -half, half - 1), t),)

    @impl(arith.FPToUIOp)
    def run_fptoui(self, interp: Interpreter, op: arith.FPToUIOp, args: PythonValues):
        t = op.results[0].type
        top = (1 << _int_bits(interp, t)) - 1
        return (as_int(interp, saturating_int(args[0], 0, top), t),)

    @impl(arith.ExtFOp)
    def run_extf(self, interp: Interpreter, op: arith.ExtFOp, args: PythonValues):
        if isinstance(op.operands[0].type, BFloat16Type):  # raw bits: exact in f32 and f64
            return (float_rounder(op.results[0].type)(bf16_value(args[0])),)
        float_rounder(op.operands[0].type)  # refuses fp8 (raw bits here)
        return (float_rounder(op.results[0].type)(args[0]),)

    @impl(arith.TruncFOp)
    def run_truncf(self, interp: Interpreter, op: arith.TruncFOp, args: PythonValues):
        source = op.operands[0].type
        if isinstance(op.results[0].type, BFloat16Type):
            if not isinstance(source, Float32Type):
                raise InterpretationError(f"arith.truncf from {source} to bf16 is not "
                                          "supported (from f32 only, as in the CUDA target)")
            return (bf16_bits(args[0]),)
        float_rounder(source)
        return (float_rounder(op.results[0].type)(args[0]),)

    @impl(arith.NegfOp)
    def run_negf(self, interp: Interpreter, op: arith.NegfOp, args: PythonValues):
        float_rounder(op.results[0].type)
        return (-args[0],)

    @impl(arith.MinnumfOp)
    def run_minnumf(self, interp: Interpreter, op: arith.MinnumfOp, args: PythonValues):
        float_rounder(op.results[0].type)
        return (ieee_min(args[0], args[1]),)

    @impl(arith.MaxnumfOp)
    def run_maxnumf(self, interp: Interpreter, op: arith.MaxnumfOp, args: PythonValues):
        float_rounder(op.results[0].type)
        return (ieee_max(args[0], args[1]),)
