"""Divisibility of ``index`` and integer SSA values: what the pass can prove about dynamic offsets.

``divisibility(v)`` is the largest ``d`` for which ``v % d == 0`` is provable from ``v``'s
defining ops; ``0`` stands for the constant 0 (a multiple of everything, the identity of
``gcd``). The rules, with ``d(x)`` the divisor of ``x``:

* constants: ``|c|``;
* ``addi``/``subi``/``remsi``/``remui``/``maxsi``/``minsi``/``select``: the gcd of the operands
  (of both arms for ``select``): if ``d`` divides both, it divides any of these results;
* ``muli``: ``d(a) * d(b)``; ``shli`` by a constant ``k``: ``d(a) * 2^k``;
* ``andi`` with a constant mask ``c``: ``x & c`` keeps only bits set in both, so it is a
  multiple of ``2^max(tz(c), tz2(d(x)))`` (``tz`` trailing zeros, ``tz2`` of the power-of-two
  part);
* ``index_cast``/``extsi`` (value preserved): ``d(x)``; ``extui``/``trunci``: the
  power-of-two part of ``d(x)`` (wrapping by ``2^w`` keeps only those);
* ``regcopy.multiple_of %x, N``: ``lcm(N, d(x))`` (the promise, and what is already known);
* an ``scf.for`` induction variable: ``gcd(d(lb), d(step))``; a loop-carried value: the
  greatest ``D`` dividing its initial value with ``d(yield) % D == 0`` assuming ``D`` for it
  (induction; found by iterating ``D <- gcd(D, d(yield))`` from ``d(init)``);
* a kernel argument with ``{regcopy.divisibility = N : i64}``: ``N``;
* ``memref.dim %X, %ci``: the extent's divisor (a static size itself; a dynamic one's entry of
  ``{regcopy.divisibility = array<i64: ...>}``, else 1);
* thread and block ids, other block arguments and anything else: 1.
"""

from __future__ import annotations

from math import gcd, lcm

from regcopy_passes.core.planning import ValueName
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from regcopy_dialect.promises import MultipleOfOp, argument_promise, divisibility_of

_GCD_OPS = (arith.AddiOp, arith.SubiOp, arith.RemSIOp, arith.RemUIOp, arith.MaxSIOp,
            arith.MinSIOp, arith.MaxUIOp, arith.MinUIOp)


def _pow2_part(d: int) -> int:
    """The largest power of two dividing ``d`` (0 for 0)."""
    return d & -d


def divisibility(value: SSAValue, depth: int = 32) -> int:
    """The provable divisor of ``value`` (0 for the constant 0)."""
    return _Analysis({}).of(value, depth)


class _Analysis:
    """One query: ``assumed`` holds the divisors assumed for loop-carried values whose
    fixpoint is being computed (so a cycle through a loop's ``yield`` terminates)."""

    def __init__(self, assumed: dict[SSAValue, int]):
        self.assumed = assumed

    def of(self, value: SSAValue, depth: int) -> int:
        if value in self.assumed:
            return self.assumed[value]
        if depth <= 0:
            return 1
        if isinstance(value, BlockArgument):
            return self._block_argument(value, depth - 1)
        op = value.owner
        assert isinstance(op, Operation)
        return self._op(op, depth - 1)

    def _op(self, op: Operation, depth: int) -> int:
        match op:
            case arith.ConstantOp(value=IntegerAttr() as attr):
                return abs(attr.value.data)
            case _ if isinstance(op, _GCD_OPS):
                return gcd(self.of(op.operands[0], depth), self.of(op.operands[1], depth))
            case arith.SelectOp():
                return gcd(self.of(op.lhs, depth), self.of(op.rhs, depth))
            case arith.MuliOp():
                return self.of(op.lhs, depth) * self.of(op.rhs, depth)
            case arith.ShLIOp():
                shift = constant_value(op.rhs)
                if shift is None or not 0 <= shift < 63:
                    return 1
                return self.of(op.lhs, depth) << shift
            case arith.AndIOp():
                return self._and(op, depth)
            case arith.IndexCastOp() | arith.ExtSIOp():
                return self.of(op.operands[0], depth)
            case arith.ExtUIOp() | arith.TruncIOp():
                return _pow2_part(self.of(op.operands[0], depth))
            case memref.DimOp():
                return divisibility_of(op.result) or 1
            case MultipleOfOp():
                inner = self.of(op.value, depth)
                return 0 if inner == 0 else lcm(op.divisor_value, inner)
            case _:
                return 1

    def _and(self, op: arith.AndIOp, depth: int) -> int:
        for mask_v, x in ((op.rhs, op.lhs), (op.lhs, op.rhs)):
            mask = constant_value(mask_v)
            if mask is None:
                continue
            if mask == 0:
                return 0
            dx = self.of(x, depth)
            if dx == 0:
                return 0
            return max(_pow2_part(mask), _pow2_part(dx))
        return max(_pow2_part(self.of(op.lhs, depth)), _pow2_part(self.of(op.rhs, depth)))

    def _block_argument(self, arg: BlockArgument, depth: int) -> int:
        parent = arg.block.parent_op()
        match parent:
            case func.FuncOp() if arg.block is parent.body.blocks.first:
                return argument_divisibility(parent, arg.index)
            case scf.ForOp() if arg.index == 0:
                return gcd(self.of(parent.lb, depth), self.of(parent.step, depth))
            case scf.ForOp():
                return self._loop_carried(parent, arg, depth)
            case _:
                return 1

    def _loop_carried(self, loop: scf.ForOp, arg: BlockArgument, depth: int) -> int:
        k = arg.index - 1
        yielded = loop.body.block.last_op
        if not isinstance(yielded, scf.YieldOp) or k >= len(loop.iter_args):
            return 1
        d = self.of(loop.iter_args[k], depth)
        for _ in range(64):  # each step divides d by a factor >= 2, or stops
            step = _Analysis({**self.assumed, arg: d}).of(yielded.operands[k], depth)
            nxt = gcd(d, step)
            if nxt == d:
                return d
            d = nxt
        return 1


def argument_divisibility(kernel: func.FuncOp, index: int) -> int:
    """``N`` of argument ``index``'s ``{regcopy.divisibility = N : i64}``, else 1 (an invalid
    attribute, which the verifier reports, promises nothing)."""
    return argument_promise(kernel, index) or 1


def constant_value(value: SSAValue) -> int | None:
    """The integer value of an ``arith.constant``, else None."""
    match value.owner:
        case arith.ConstantOp(value=IntegerAttr() as attr):
            return attr.value.data
        case _:
            return None


def _kind(value: SSAValue) -> str:
    if isinstance(value, BlockArgument) and isinstance(value.owner, Block):
        parent = value.owner.parent_op()
        if isinstance(parent, func.FuncOp) and value.owner is parent.body.blocks.first:
            return "argument"
        if isinstance(parent, scf.ForOp) and value.index == 0:
            return "loop"
        return "block argument"
    return "value"


def describe_value(value: SSAValue) -> ValueName:
    """How a remark names an offset value: ``%name``, else its defining op; the result also
    knows what kind of value it is, so a refusal can say which promise would lift it."""
    from regcopy_dialect.diagnostics import op_text

    kind = _kind(value)
    if value.name_hint:
        return ValueName(f"%{value.name_hint}", kind)
    if isinstance(value.owner, Operation):
        return ValueName(op_text(value.owner), kind)
    if kind == "argument":
        assert isinstance(value, BlockArgument)
        return ValueName(f"kernel argument #{value.index}", kind)
    return ValueName("a block argument", kind)
