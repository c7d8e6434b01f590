"""Divisibility of ``index`` SSA values (algorithm.md §3).

``divisibility(v)`` is the largest ``d`` for which ``v % d == 0`` is provable from ``v``'s
defining ops; ``0`` stands for the constant 0 (a multiple of everything). Rules: constants
give themselves; ``addi``/``subi`` the gcd of their operands; ``muli`` the product; ``shli``
by a constant ``k`` a factor ``2^k``; thread and block ids, block arguments and anything else
give 1.
"""

from __future__ import annotations

from math import gcd

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation, SSAValue


def divisibility(value: SSAValue, depth: int = 32) -> int:
    """The provable divisor of ``value`` (0 for the constant 0)."""
    op = value.owner
    if depth == 0:
        return 1
    match op:
        case arith.ConstantOp(value=IntegerAttr() as attr):
            return abs(attr.value.data)
        case arith.AddiOp() | arith.SubiOp():
            return gcd(divisibility(op.lhs, depth - 1), divisibility(op.rhs, depth - 1))
        case arith.MuliOp():
            return divisibility(op.lhs, depth - 1) * divisibility(op.rhs, depth - 1)
        case arith.ShLIOp():
            shift = constant_value(op.rhs)
            if shift is None or not 0 <= shift < 63:
                return 1
            return divisibility(op.lhs, depth - 1) << shift
        case _:
            return 1


def constant_value(value: SSAValue) -> int | None:
    """The integer value of an ``arith.constant``, else None."""
    match value.owner:
        case arith.ConstantOp(value=IntegerAttr() as attr):
            return attr.value.data
        case _:
            return None


def describe_value(value: SSAValue) -> str:
    """How a remark names an offset value: ``%name``, else its defining op."""
    from regcopy_dialect.diagnostics import op_text

    if value.name_hint:
        return f"%{value.name_hint}"
    if isinstance(value.owner, Operation):
        return op_text(value.owner)
    return "a block argument"
