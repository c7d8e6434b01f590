"""Interpreter implementations of the ``arith`` ops xDSL 0.74's interpreter lacks: unsigned
division/remainder/shift, ceiling division, and min/max (signed and unsigned). Values are
Python ints in two's complement of the result's width (``index`` = the interpreter's
``index_bitwidth``)."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, IntegerType
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.utils.exceptions import InterpretationError
from xdsl.ir import Operation


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


def _wrap(v: int, bits: int) -> int:
    """``v`` as a two's complement integer of ``bits`` bits."""
    half = 1 << (bits - 1)
    return v if -half <= v < half else ((v + half) & ((1 << bits) - 1)) - half


@register_impls
class FastIntArithFunctions(InterpreterFunctions):
    """Faster drop-in implementations (``override=True``) of the integer ``arith`` ops that
    lowered index math is made of. Same semantics as xDSL's (operands and result wrapped to
    the result's width); the width and each constant are looked up once per op, not per run
    (xDSL's ``isa`` checks dominated the interpreter's time)."""

    def __init__(self) -> None:
        self._widths: dict[Operation, int] = {}
        self._constants: dict[Operation, PythonValues] = {}

    def _w(self, interp: Interpreter, op: Operation) -> int:
        if (w := self._widths.get(op)) is None:
            w = self._widths[op] = _bits(interp, op)
        return w

    @impl(arith.ConstantOp)
    def run_constant(self, interp: Interpreter, op: arith.ConstantOp, args: PythonValues):
        if (v := self._constants.get(op)) is None:
            value = op.value
            if isinstance(value, IntegerAttr) and isinstance(value.type, IndexType):
                v = (_wrap(value.value.data, _bits(interp, op)),)
            elif isinstance(value, IntegerAttr | FloatAttr):
                v = (value.value.data,)
            else:
                raise InterpretationError(f"arith.constant of {value} is not supported")
            self._constants[op] = v
        return v

    @impl(arith.AddiOp)
    def run_addi(self, interp: Interpreter, op: arith.AddiOp, args: PythonValues):
        return (_wrap(args[0] + args[1], self._w(interp, op)),)

    @impl(arith.SubiOp)
    def run_subi(self, interp: Interpreter, op: arith.SubiOp, args: PythonValues):
        return (_wrap(args[0] - args[1], self._w(interp, op)),)

    @impl(arith.MuliOp)
    def run_muli(self, interp: Interpreter, op: arith.MuliOp, args: PythonValues):
        return (_wrap(args[0] * args[1], self._w(interp, op)),)

    @impl(arith.AndIOp)
    def run_andi(self, interp: Interpreter, op: arith.AndIOp, args: PythonValues):
        return (_wrap(args[0] & args[1], self._w(interp, op)),)

    @impl(arith.OrIOp)
    def run_ori(self, interp: Interpreter, op: arith.OrIOp, args: PythonValues):
        return (_wrap(args[0] | args[1], self._w(interp, op)),)

    @impl(arith.XOrIOp)
    def run_xori(self, interp: Interpreter, op: arith.XOrIOp, args: PythonValues):
        return (_wrap(args[0] ^ args[1], self._w(interp, op)),)

    @impl(arith.ShLIOp)
    def run_shli(self, interp: Interpreter, op: arith.ShLIOp, args: PythonValues):
        return (_wrap(args[0] << args[1], self._w(interp, op)),)

    @impl(arith.ShRSIOp)
    def run_shrsi(self, interp: Interpreter, op: arith.ShRSIOp, args: PythonValues):
        return (_wrap(args[0] >> args[1], self._w(interp, op)),)

    @impl(arith.DivUIOp)
    def run_divui(self, interp: Interpreter, op: arith.DivUIOp, args: PythonValues):
        b = self._w(interp, op)
        return (_signed(_unsigned(args[0], b) // _unsigned(args[1], b), b),)

    @impl(arith.RemUIOp)
    def run_remui(self, interp: Interpreter, op: arith.RemUIOp, args: PythonValues):
        b = self._w(interp, op)
        return (_signed(_unsigned(args[0], b) % _unsigned(args[1], b), b),)

    @impl(arith.ShRUIOp)
    def run_shrui(self, interp: Interpreter, op: arith.ShRUIOp, args: PythonValues):
        b = self._w(interp, op)
        return (_signed(_unsigned(args[0], b) >> args[1], b),)

    @impl(arith.DivSIOp)
    def run_divsi(self, interp: Interpreter, op: arith.DivSIOp, args: PythonValues):
        a, b = args
        if b == 0:
            raise InterpretationError("arith.divsi by zero")
        q = abs(a) // abs(b)  # rounds toward zero
        return (_wrap(q if (a < 0) == (b < 0) else -q, self._w(interp, op)),)

    @impl(arith.RemSIOp)
    def run_remsi(self, interp: Interpreter, op: arith.RemSIOp, args: PythonValues):
        a, b = args
        if b == 0:
            raise InterpretationError("arith.remsi by zero")
        r = abs(a) % abs(b)  # takes the sign of the dividend
        return (_wrap(r if a >= 0 else -r, self._w(interp, op)),)
