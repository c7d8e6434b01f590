"""The compute ops in the CPU interpreter: ``math`` functions, ``arith.maximumf/minimumf`` and
``gpu.shuffle``, with the semantics the CUDA target prints (``regcopy_backend.cuda.compute``).

* ``math.exp exp2 log sqrt rsqrt tanh fma`` on f64, f32 and f16 (Python floats holding a value
  of the type) and bf16 (raw bits): computed in double precision and rounded once to f32 —
  then, for f16 and bf16, to the type, as the CUDA target computes them in f32 and rounds back.
  ``fma`` is exact before its one rounding (``fused_multiply_add``). IEEE special values as
  CUDA gives them: ``log(0) = -inf``, ``log(x < 0) = NaN``, ``rsqrt(+-0) = +-inf``, overflow
  to ``inf``. CUDA's ``expf``/``exp2f``/``logf``/``rsqrtf``/``tanhf`` are within a few ulps
  of these correctly rounded results, not equal to them (``regcopy-run --check`` compares
  kernels using them within a tolerance);
* ``arith.maximumf``/``minimumf``: NaN if either operand is NaN, ``-0.0 < +0.0``, on every
  float type (bf16 through its f32 value; its NaN is ``0x7fff``, as ``cvt.rn.bf16.f32``
  gives);
* on vectors (tuples) every op runs lane by lane;
* ``gpu.shuffle`` (width 32) is warp-collective: the 32 lanes meet at it (``warp_sync``: the
  kernel runs its warps in lockstep) and each reads its source lane's value at the same
  program point (``gpu_shuffle.shuffle_source``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from regcopy_backend.interpreter.arith import round_f16, round_f32
from regcopy_backend.interpreter.regcopy import gpu_state
from regcopy_backend.host_data import bf16_bits, bf16_value
from xdsl.dialects import arith
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    VectorType,
)
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    register_impls,
)
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import InterpretationError

from regcopy_dialect.gpu_shuffle import (
    WARP_LANES,
    ShuffleOp,
    shuffle_source,
    shuffle_width_error,
)

NAN = math.nan
INF = math.inf


def _exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return INF


def _exp2(x: float) -> float:
    try:
        return 2.0 ** x
    except OverflowError:
        return INF


def _log(x: float) -> float:
    if math.isnan(x) or x < 0:
        return NAN
    return -INF if x == 0 else math.log(x)


def _sqrt(x: float) -> float:
    return NAN if math.isnan(x) or x < 0 else math.sqrt(x)


def _rsqrt(x: float) -> float:
    if x == 0:
        return math.copysign(INF, x)
    if math.isnan(x) or x < 0:
        return NAN
    return 0.0 if x == INF else 1.0 / math.sqrt(x)


FORMATS: dict[type[Attribute], tuple[int, int]] = {
    Float64Type: (53, -1022), Float32Type: (24, -126), Float16Type: (11, -14)}
"""Significand bits and least normal exponent of the binary float types."""


def round_exact(x: Fraction, precision: int, emin: int) -> float:
    """The nonzero exact ``x`` rounded to nearest even with ``precision`` significand bits
    (subnormals below ``2^emin``); beyond the double range: a signed infinity (the caller's
    rounder to f32/f16 turns values beyond those types' ranges into infinities)."""
    mag = abs(x)
    e = mag.numerator.bit_length() - mag.denominator.bit_length()
    if Fraction(2) ** e > mag:
        e -= 1
    q = precision - 1 - max(e, emin)
    n = round(mag * Fraction(2) ** q)  # Fraction.__round__: ties to even
    try:
        value = math.ldexp(float(n), -q)
    except OverflowError:
        value = INF
    return -value if x < 0 else value


def fused_multiply_add(a: float, b: float, c: float, t: Attribute) -> float:
    """``a * b + c`` rounded once to float type ``t`` (f64, f32, f16): exact on finite
    operands (``Fraction``), IEEE's special cases otherwise; an exact zero is ``-0.0`` only
    when both addends are ``-0.0`` (IEEE, rounding to nearest)."""
    precision, emin = FORMATS[type(t)]
    if not all(math.isfinite(v) for v in (a, b, c)):
        return a * b + c
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        product_negative = math.copysign(1.0, a) * math.copysign(1.0, b) < 0
        return -0.0 if product_negative and math.copysign(1.0, c) < 0 else 0.0
    return round_exact(exact, precision, emin)


UNARY: dict[type[Operation], Callable[[float], float]] = {
    mathd.ExpOp: _exp, mathd.Exp2Op: _exp2, mathd.LogOp: _log, mathd.SqrtOp: _sqrt,
    mathd.RsqrtOp: _rsqrt, mathd.TanhOp: math.tanh}


def maximum(a: float, b: float) -> float:
    """``arith.maximumf``: NaN if either is NaN; ``+0.0`` above ``-0.0``."""
    if math.isnan(a) or math.isnan(b):
        return NAN
    if a == b:
        return a if math.copysign(1.0, a) > 0 else b
    return max(a, b)


def minimum(a: float, b: float) -> float:
    """``arith.minimumf``: NaN if either is NaN; ``-0.0`` below ``+0.0``."""
    if math.isnan(a) or math.isnan(b):
        return NAN
    if a == b:
        return a if math.copysign(1.0, a) < 0 else b
    return min(a, b)


MINMAX: dict[type[Operation], Callable[[float, float], float]] = {
    arith.MaximumfOp: maximum, arith.MinimumfOp: minimum}


def _lane_type(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, VectorType) else t


def _core(op: Operation, t: Attribute) -> tuple[Callable[..., float], Callable[[float], float]]:
    """The exact-then-rounded function of ``op`` on Python floats, and the rounding of its
    result to the type it is computed in (f32 for all but f64 and the exact min/max)."""
    if isinstance(op, mathd.FmaOp):
        inner: Attribute = t if isinstance(t, Float64Type) else Float32Type()
        return (lambda a, b, c: fused_multiply_add(a, b, c, inner)), float
    if type(op) in MINMAX:
        return MINMAX[type(op)], float
    if type(op) in UNARY:
        return UNARY[type(op)], float if isinstance(t, Float64Type) else round_f32
    raise InterpretationError(f"{op.name} is not a compute op")


def scalar_function(op: Operation) -> Callable[..., Any]:
    """The function computing ``op`` on one lane's values, as the interpreter holds them."""
    t = _lane_type(op.results[0].type)
    core, wide = _core(op, t)
    if isinstance(t, Float32Type | Float64Type):
        return lambda *xs: wide(core(*xs))
    if isinstance(t, Float16Type):
        return lambda *xs: round_f16(round_f32(core(*xs)))
    if isinstance(t, BFloat16Type):
        return lambda *xs: bf16_bits(round_f32(core(*(bf16_value(x) for x in xs))))
    raise InterpretationError(f"{op.name} on {op.results[0].type} is not supported by the "
                              "interpreter (f64, f32, f16 and bf16 scalars and vectors)")


@register_impls
class ComputeFunctions(InterpreterFunctions):
    """The ops of the module doc (register with ``override=True``: it replaces xDSL's
    ``maximumf``/``minimumf``, which know no bf16)."""

    def __init__(self) -> None:
        self._functions: dict[Operation, Callable[..., Any]] = {}

    def _run(self, op: Operation, args: PythonValues) -> PythonValues:
        if (fn := self._functions.get(op)) is None:
            fn = self._functions[op] = scalar_function(op)
        if type(args[0]) is tuple:
            return (tuple(fn(*lanes) for lanes in zip(*args, strict=True)),)
        return (fn(*args),)

    @impl(mathd.ExpOp)
    def run_exp(self, interp: Interpreter, op: mathd.ExpOp, args: PythonValues):
        return self._run(op, args)

    @impl(mathd.Exp2Op)
    def run_exp2(self, interp: Interpreter, op: mathd.Exp2Op, args: PythonValues):
        return self._run(op, args)

    @impl(mathd.LogOp)
    def run_log(self, interp: Interpreter, op: mathd.LogOp, args: PythonValues):
        return self._run(op, args)

    @impl(mathd.SqrtOp)
    def run_sqrt(self, interp: Interpreter, op: mathd.SqrtOp, args: PythonValues):
        return self._run(op, args)

    @impl(mathd.RsqrtOp)
    def run_rsqrt(self, interp: Interpreter, op: mathd.RsqrtOp, args: PythonValues):
        return self._run(op, args)

    @impl(mathd.TanhOp)
    def run_tanh(self, interp: Interpreter, op: mathd.TanhOp, args: PythonValues):
        return self._run(op, args)

    @impl(mathd.FmaOp)
    def run_fma(self, interp: Interpreter, op: mathd.FmaOp, args: PythonValues):
        return self._run(op, args)

    @impl(arith.MaximumfOp)
    def run_maximumf(self, interp: Interpreter, op: arith.MaximumfOp, args: PythonValues):
        return self._run(op, args)

    @impl(arith.MinimumfOp)
    def run_minimumf(self, interp: Interpreter, op: arith.MinimumfOp, args: PythonValues):
        return self._run(op, args)

    @impl(ShuffleOp)
    def run_shuffle(self, interp: Interpreter, op: ShuffleOp, args: PythonValues):
        """This lane's part of a warp-wide shuffle: deposit ``(value, offset)`` at the warp
        barrier; the last lane to arrive computes every lane's ``(value, valid)``."""
        if (problem := shuffle_width_error(op)) is not None:
            raise InterpretationError(f"gpu.shuffle {problem}")
        state = gpu_state(interp)
        if state.warp is None:
            raise InterpretationError("gpu.shuffle is warp-collective: it runs only in a "
                                      "launch() of the kernel (its warps in lockstep)")
        mode = op.mode.data
        lane = state.thread.linear_tid % WARP_LANES
        return state.warp.meet(lane, op, (args[0], args[1]),
                               lambda lanes: exchange(mode, lanes))


def exchange(mode: Any, lanes: Sequence[tuple[Any, int]]) -> list[tuple[Any, int]]:
    """Every lane's ``(value, valid)`` of one shuffle, from every lane's ``(value, offset)``."""
    out: list[tuple[Any, int]] = []
    for lane, (_, offset) in enumerate(lanes):
        src, valid = shuffle_source(mode, lane, offset)
        out.append((lanes[src][0], int(valid)))
    return out
