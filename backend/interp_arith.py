"""Interpreter implementations of the ``arith`` ops xDSL 0.74's interpreter lacks: unsigned
division/remainder/shift, ceiling division, and min/max (signed and unsigned). Values are
Python ints in two's complement of the result's width (``index`` = the interpreter's
``index_bitwidth``)."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
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
