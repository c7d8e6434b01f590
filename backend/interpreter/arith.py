"""Interpreter implementations of the ``arith`` ops xDSL 0.74's interpreter lacks: unsigned
division/remainder/shift, ceiling division, and min/max (signed and unsigned). Values are
Python ints in two's complement of the result's width (``index`` = the interpreter's
``index_bitwidth``). Also faster integer ops (``FastIntArithFunctions``) and ``addf``/``subf``/
``mulf`` rounded to the result's float type (``FloatArithFunctions``).

Lane-wise versions of all of them on vectors (tuples) are ``interp_vector``'s."""

from __future__ import annotations

import math
import operator
import struct
from typing import Any
from collections.abc import Callable, Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float8E4M3FNType,
    Float8E5M2Type,
    FloatAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    VectorType,
)
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.utils.exceptions import InterpretationError
from xdsl.ir import Attribute, Block, Operation

from regcopy_backend.host_data import bf16_bits, fp8_bits


def _unsigned(v: int, bits: int) -> int:
    return v & ((1 << bits) - 1)


def _bits(interp: Interpreter, op: Operation) -> int:
    t = op.results[0].type
    if isinstance(t, IndexType):
        return interp.index_bitwidth
    assert isinstance(t, IntegerType)
    return t.width.data


def _signed(v: int, bits: int) -> int:
    v = _unsigned(v, bits)
    return v - (1 << bits) if v >> (bits - 1) else v



@register_impls
class ExtraArithFunctions(InterpreterFunctions):
    """``arith`` ops missing from ``xdsl.interpreters.arith.ArithFunctions``."""

    @impl(arith.DivUIOp)
    def run_divui(self, interp: Interpreter, op: arith.DivUIOp, args: PythonValues):
        b = _bits(interp, op)
        return (_signed(_unsigned(args[0], b) // _unsigned(args[1], b), b),)

    @impl(arith.RemUIOp)
    def run_remui(self, interp: Interpreter, op: arith.RemUIOp, args: PythonValues):
        b = _bits(interp, op)
        return (_signed(_unsigned(args[0], b) % _unsigned(args[1], b), b),)

    @impl(arith.CeilDivUIOp)
    def run_ceildivui(self, interp: Interpreter, op: arith.CeilDivUIOp, args: PythonValues):
        b = _bits(interp, op)
        return (_signed(-(-_unsigned(args[0], b) // _unsigned(args[1], b)), b),)

    @impl(arith.CeilDivSIOp)
    def run_ceildivsi(self, interp: Interpreter, op: arith.CeilDivSIOp, args: PythonValues):
        b = _bits(interp, op)
        return (_signed(-(-_signed(args[0], b) // _signed(args[1], b)), b),)

    @impl(arith.ShRUIOp)
    def run_shrui(self, interp: Interpreter, op: arith.ShRUIOp, args: PythonValues):
        b = _bits(interp, op)
        return (_signed(_unsigned(args[0], b) >> args[1], b),)

    @impl(arith.MinUIOp)
    def run_minui(self, interp: Interpreter, op: arith.MinUIOp, args: PythonValues):
        b = _bits(interp, op)
        return (_signed(min(_unsigned(args[0], b), _unsigned(args[1], b)), b),)

    @impl(arith.MaxUIOp)
    def run_maxui(self, interp: Interpreter, op: arith.MaxUIOp, args: PythonValues):
        b = _bits(interp, op)
        return (_signed(max(_unsigned(args[0], b), _unsigned(args[1], b)), b),)

    @impl(arith.MinSIOp)
    def run_minsi(self, interp: Interpreter, op: arith.MinSIOp, args: PythonValues):
        b = _bits(interp, op)
        return (min(_signed(args[0], b), _signed(args[1], b)),)

    @impl(arith.MaxSIOp)
    def run_maxsi(self, interp: Interpreter, op: arith.MaxSIOp, args: PythonValues):
        b = _bits(interp, op)
        return (max(_signed(args[0], b), _signed(args[1], b)),)


def _lane_type(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, VectorType) else t


def lane_op(op: Operation) -> Operation:
    """A detached copy of ``op`` whose vector operand and result types are their element
    types (same properties and attributes): the scalar op that one lane of ``op`` runs."""
    block = Block(arg_types=[_lane_type(v.type) for v in op.operands])
    return type(op).create(operands=list(block.args),
                           result_types=[_lane_type(r.type) for r in op.results],
                           properties=dict(op.properties), attributes=dict(op.attributes))


def plain_impl(run: Any) -> Any | None:
    """The function an xDSL ``@impl`` (not ``@impl_terminator``) wraps: the wrapper only puts
    its result values into an ``OpImplResult`` without a terminator value, so calling the
    function itself gives the same values; None for any other implementation."""
    if getattr(run, "__code__", None) is not _IMPL_WRAPPER or run.__closure__ is None:
        return None
    inner = run.__closure__[0].cell_contents
    return inner if callable(inner) else None


_IMPL_WRAPPER = impl(arith.AddiOp)(lambda *args: ()).__code__
"""The code of the wrapper xDSL's ``@impl`` makes (``@impl_terminator``'s is another)."""


def _lane_runner(interp: Interpreter, scalar: Operation) -> Callable[[PythonValues], Any]:
    """Runs ``scalar`` on one lane's operands and returns its result values: the
    interpreter's implementation called directly (as ``run_op`` would, less its dispatch),
    or ``run_op`` itself while listeners watch the interpreter."""
    impls = getattr(getattr(interp, "_impls", None), "_impl_dict", None)
    entry = None if impls is None or interp.listeners else impls.get(type(scalar))
    inner = None if entry is None else plain_impl(entry[1])
    if entry is None or inner is None:
        return lambda lane: interp.run_op(scalar, lane)
    ft = entry[0]
    return lambda lane: inner(ft, interp, scalar, lane)


def run_lanes(interp: Interpreter, op: Operation, args: PythonValues,
              lane_ops: dict[Operation, Operation]) -> PythonValues:
    """An elementwise op on vectors (tuples of lanes, all of one length): the interpreter's
    implementation of its ``lane_op`` (cached in ``lane_ops``) on each lane's operands, so
    every lane is wrapped, rounded or refused exactly as the scalar op is. A failure of the
    scalar implementation on a lane is a one-line ``InterpretationError``."""
    n = len(args[0])
    if any(type(a) is not tuple or len(a) != n for a in args):
        raise InterpretationError(f"{op.name}: operands mix vectors of different lengths and "
                                  "scalars")
    if (scalar := lane_ops.get(op)) is None:
        scalar = lane_ops[op] = lane_op(op)
    run = _lane_runner(interp, scalar)
    try:
        lanes = [run(lane) for lane in zip(*args)]
    except InterpretationError as e:
        raise InterpretationError(f"{op.name} on {op.operands[0].type}: {e}") from None
    except (TypeError, ValueError, AssertionError, ArithmeticError) as e:
        raise InterpretationError(f"{op.name} on {op.operands[0].type} is not supported by "
                                  f"the interpreter ({type(e).__name__}: {e})") from None
    return tuple(tuple(lane[k] for lane in lanes) for k in range(len(op.results)))


def vector_constant(values: Sequence[int | float], lane: Attribute) -> tuple[int | float, ...]:
    """The lanes of a splat or dense vector constant, each held as a buffer holds an element
    of ``lane``: integers wrapped to their width, floats rounded to f32/f16 (ties to even),
    bf16 as the bits of the value rounded to f32 then to bf16 (as the CUDA target's literal)."""
    if isinstance(lane, BFloat16Type):
        return tuple(bf16_bits(float(v)) for v in values)
    if isinstance(lane, IntegerType):
        return tuple(_wrap(int(v), lane.width.data) for v in values)
    rounding = _CONSTANT_ROUNDING.get(type(lane), _same)
    return tuple(rounding(float(v)) for v in values)


def _wrap(v: int, bits: int) -> int:
    """``v`` as a two's complement integer of ``bits`` bits."""
    half = 1 << (bits - 1)
    return v if -half <= v < half else ((v + half) & ((1 << bits) - 1)) - half


@register_impls
class FastIntArithFunctions(InterpreterFunctions):
    """Faster drop-in implementations (``override=True``) of the integer ``arith`` ops that
    lowered index math is made of. Same semantics as xDSL's (operands and result wrapped to
    the result's width); the width and each constant are looked up once per op, not per run
    (xDSL's ``isa`` checks dominated the interpreter's time). On vectors (tuples), each runs
    lane by lane (``run_lanes``): one ``type(x) is tuple`` test on the scalar path."""

    def __init__(self) -> None:
        # keyed by id(op), the op kept in the entry (xDSL ops hash in Python: slower than
        # the lookup; the entry's op is compared by identity, and keeps its id from reuse)
        self._widths: dict[int, tuple[Operation, int]] = {}
        self._constants: dict[int, tuple[Operation, PythonValues]] = {}
        self._lane_ops: dict[Operation, Operation] = {}
        self._comparisons: dict[Operation, Callable[[int, int], bool]] = {}

    def _w(self, interp: Interpreter, op: Operation) -> int:
        hit = self._widths.get(id(op))
        if hit is not None and hit[0] is op:
            return hit[1]
        w = _bits(interp, op)
        self._widths[id(op)] = (op, w)
        return w

    @impl(arith.ConstantOp)
    def run_constant(self, interp: Interpreter, op: arith.ConstantOp, args: PythonValues):
        hit = self._constants.get(id(op))
        if hit is not None and hit[0] is op:
            return hit[1]
        value = op.value
        v: PythonValues
        if isinstance(value, IntegerAttr) and isinstance(value.type, IndexType):
            v = (_wrap(value.value.data, _bits(interp, op)),)
        elif isinstance(value, FloatAttr):
            v = (_CONSTANT_ROUNDING.get(type(value.type), _same)(value.value.data),)
        elif isinstance(value, IntegerAttr):
            v = (value.value.data,)
        elif isinstance(value, DenseIntOrFPElementsAttr) and \
                isinstance(op.result.type, VectorType):
            v = (vector_constant(value.get_values(), op.result.type.element_type),)
        else:
            raise InterpretationError(f"arith.constant of {value} is not supported")
        self._constants[id(op)] = (op, v)
        return v

    @impl(arith.AddiOp)
    def run_addi(self, interp: Interpreter, op: arith.AddiOp, args: PythonValues):
        if type(args[0]) is tuple:
            return run_lanes(interp, op, args, self._lane_ops)
        return (_wrap(args[0] + args[1], self._w(interp, op)),)

    @impl(arith.SubiOp)
    def run_subi(self, interp: Interpreter, op: arith.SubiOp, args: PythonValues):
        if type(args[0]) is tuple:
            return run_lanes(interp, op, args, self._lane_ops)
        return (_wrap(args[0] - args[1], self._w(interp, op)),)

    @impl(arith.MuliOp)
    def run_muli(self, interp: Interpreter, op: arith.MuliOp, args: PythonValues):
        if type(args[0]) is tuple:
            return run_lanes(interp, op, args, self._lane_ops)
        return (_wrap(args[0] * args[1], self._w(interp, op)),)

    @impl(arith.AndIOp)
    def run_andi(self, interp: Interpreter, op: arith.AndIOp, args: PythonValues):
        if type(args[0]) is tuple:
            return run_lanes(interp, op, args, self._lane_ops)
        return (_wrap(args[0] & args[1], self._w(interp, op)),)

    @impl(arith.OrIOp)
    def run_ori(self, interp: Interpreter, op: arith.OrIOp, args: PythonValues):
        if type(args[0]) is tuple:
            return run_lanes(interp, op, args, self._lane_ops)
        return (_wrap(args[0] | args[1], self._w(interp, op)),)

    @impl(arith.XOrIOp)
    def run_xori(self, interp: Interpreter, op: arith.XOrIOp, args: PythonValues):
        if type(args[0]) is tuple:
            return run_lanes(interp, op, args, self._lane_ops)
        return (_wrap(args[0] ^ args[1], self._w(interp, op)),)

    @impl(arith.ShLIOp)
    def run_shli(self, interp: Interpreter, op: arith.ShLIOp, args: PythonValues):
        if type(args[0]) is tuple:
            return run_lanes(interp, op, args, self._lane_ops)
        return (_wrap(args[0] << args[1], self._w(interp, op)),)

    @impl(arith.ShRSIOp)
    def run_shrsi(self, interp: Interpreter, op: arith.ShRSIOp, args: PythonValues):
        if type(args[0]) is tuple:
            return run_lanes(interp, op, args, self._lane_ops)
        return (_wrap(args[0] >> args[1], self._w(interp, op)),)

    @impl(arith.DivUIOp)
    def run_divui(self, interp: Interpreter, op: arith.DivUIOp, args: PythonValues):
        if type(args[0]) is tuple:
            return run_lanes(interp, op, args, self._lane_ops)
        b = self._w(interp, op)
        return (_signed(_unsigned(args[0], b) // _unsigned(args[1], b), b),)

    @impl(arith.RemUIOp)
    def run_remui(self, interp: Interpreter, op: arith.RemUIOp, args: PythonValues):
        if type(args[0]) is tuple:
            return run_lanes(interp, op, args, self._lane_ops)
        b = self._w(interp, op)
        return (_signed(_unsigned(args[0], b) % _unsigned(args[1], b), b),)

    @impl(arith.ShRUIOp)
    def run_shrui(self, interp: Interpreter, op: arith.ShRUIOp, args: PythonValues):
        if type(args[0]) is tuple:
            return run_lanes(interp, op, args, self._lane_ops)
        b = self._w(interp, op)
        return (_signed(_unsigned(args[0], b) >> args[1], b),)

    @impl(arith.DivSIOp)
    def run_divsi(self, interp: Interpreter, op: arith.DivSIOp, args: PythonValues):
        if type(args[0]) is tuple:
            return run_lanes(interp, op, args, self._lane_ops)
        a, b = args
        if b == 0:
            raise InterpretationError("arith.divsi by zero")
        q = abs(a) // abs(b)  # rounds toward zero
        return (_wrap(q if (a < 0) == (b < 0) else -q, self._w(interp, op)),)

    @impl(arith.RemSIOp)
    def run_remsi(self, interp: Interpreter, op: arith.RemSIOp, args: PythonValues):
        if type(args[0]) is tuple:
            return run_lanes(interp, op, args, self._lane_ops)
        a, b = args
        if b == 0:
            raise InterpretationError("arith.remsi by zero")
        r = abs(a) % abs(b)  # takes the sign of the dividend
        return (_wrap(r if a >= 0 else -r, self._w(interp, op)),)

    @impl(arith.CmpiOp)
    def run_cmpi(self, interp: Interpreter, op: arith.CmpiOp, args: PythonValues):
        if type(args[0]) is tuple:
            return run_lanes(interp, op, args, self._lane_ops)
        if (compare := self._comparisons.get(op)) is None:
            compare = self._comparisons[op] = integer_comparison(interp, op)
        return (compare(args[0], args[1]),)


_PREDICATES = (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge,
               operator.lt, operator.le, operator.gt, operator.ge)
"""``arith.cmpi``'s predicates by number: eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge."""


def integer_comparison(interp: Interpreter, op: arith.CmpiOp) -> Callable[[int, int], bool]:
    """``arith.cmpi``'s comparison of two scalars (xDSL's semantics: both operands read as
    signed, for the first six predicates, or unsigned values of the operand width, then
    compared), its width and predicate looked up once."""
    t = op.lhs.type
    if not isinstance(t, IndexType | IntegerType):
        raise InterpretationError(f"arith.cmpi on {t} is not supported")
    bits = interp.index_bitwidth if isinstance(t, IndexType) else t.width.data
    predicate = op.predicate.value.data
    if not 0 <= predicate < len(_PREDICATES):
        raise InterpretationError(f"arith.cmpi predicate {op.predicate} is not supported")
    compare, modulus = _PREDICATES[predicate], 1 << bits
    if predicate >= 6:
        return lambda a, b: compare(a % modulus, b % modulus)
    half = modulus >> 1
    return lambda a, b: compare((a + half) % modulus - half, (b + half) % modulus - half)


_F32 = struct.Struct("<f")
_F16 = struct.Struct("<e")


def _rounder(packer: struct.Struct) -> Callable[[float], float]:
    def rounded(x: float) -> float:
        try:
            return packer.unpack(packer.pack(x))[0]
        except OverflowError:  # beyond the largest finite value after rounding: inf
            return math.copysign(math.inf, x)

    return rounded


round_f32 = _rounder(_F32)
"""The nearest f32 (ties to even) of a Python float, as a Python float; overflow gives inf."""
round_f16 = _rounder(_F16)
"""The nearest f16 (ties to even) of a Python float, as a Python float; overflow gives inf."""


def _same(x: float) -> float:
    return x


_CONSTANT_ROUNDING: dict[type[Attribute], Callable[[float], float]] = {
    Float32Type: round_f32, Float16Type: round_f16,
    Float8E4M3FNType: lambda x: fp8_bits(x, Float8E4M3FNType()),
    Float8E5M2Type: lambda x: fp8_bits(x, Float8E5M2Type())}
"""An ``arith.constant`` of f32 (f16) holds its literal as a Python float: rounded to the type
once, as the CUDA literal ``0.1f`` is; an fp8 one is held as its bits (as buffers hold fp8),
rounded as the CUDA target's literal (``host_data.fp8_bits``)."""


@register_impls
class FloatArithFunctions(InterpreterFunctions):
    """``arith.addf``/``subf``/``mulf``/``divf`` (``override=True`` of xDSL's) rounded to the result
    type: a Python float holds an f64 exactly, and the f64 result of an f32 (f16) operation on
    f32 (f16) values, rounded once to f32 (f16), is the correctly rounded result, as on the
    GPU. ``bf16`` and the fp8 types are raw bit patterns here (``host_data``, as in the CUDA
    target), so arithmetic on them is refused."""

    def __init__(self) -> None:
        self._rounders: dict[Operation, Callable[[float], float]] = {}

    def _round(self, op: Operation) -> Callable[[float], float]:
        if (r := self._rounders.get(op)) is None:
            t = op.results[0].type
            if isinstance(t, Float64Type):
                r = _same
            elif isinstance(t, Float32Type):
                r = round_f32
            elif isinstance(t, Float16Type):
                r = round_f16
            else:
                raise InterpretationError(f"{op.name} on {t} is not supported by the "
                                          "interpreter (f64, f32 and f16 only; bf16 and fp8 "
                                          "values are raw bit patterns here)")
            self._rounders[op] = r
        return r

    @impl(arith.AddfOp)
    def run_addf(self, interp: Interpreter, op: arith.AddfOp, args: PythonValues):
        return (self._round(op)(args[0] + args[1]),)

    @impl(arith.SubfOp)
    def run_subf(self, interp: Interpreter, op: arith.SubfOp, args: PythonValues):
        return (self._round(op)(args[0] - args[1]),)

    @impl(arith.MulfOp)
    def run_mulf(self, interp: Interpreter, op: arith.MulfOp, args: PythonValues):
        return (self._round(op)(args[0] * args[1]),)

    @impl(arith.DivfOp)
    def run_divf(self, interp: Interpreter, op: arith.DivfOp, args: PythonValues):
        return (self._round(op)(ieee_divide(args[0], args[1])),)


def ieee_divide(a: float, b: float) -> float:
    """``a / b`` in IEEE arithmetic: by zero it is a signed infinity, or NaN for ``0 / 0`` and
    ``nan / 0`` (Python raises instead). The f64 quotient of two f32 (f16) values, rounded
    once to f32 (f16), is the correctly rounded quotient."""
    if b != 0.0:
        return a / b
    if a != a or a == 0.0:
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)
