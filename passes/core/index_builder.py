"""``IndexBuilder``: emits ``index`` arithmetic for the lowering, folding constants and
identities and reusing identical ops, so the lowered IR holds only run-time math."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Operation, SSAValue

from regcopy_dialect.layout import Affine

Value = SSAValue | int
"""An index value: an SSA value, or an integer folded at compile time."""


@dataclass
class IndexBuilder:
    """Appends ``index`` arithmetic to ``ops``, folding constants and identities, so that
    the emitted IR holds only the math that depends on run-time values. It implements
    ``regcopy_dialect.index_math.IndexMath``: math written once against that protocol runs
    on integers (``INT_MATH``) in planning and emits IR here."""

    ops: list[Operation] = field(default_factory=list[Operation])
    hoist_to: IndexBuilder | None = None  # where constants go (the code before the loop)
    _consts: dict[int, SSAValue] = field(default_factory=dict[int, SSAValue])
    _memo: dict[tuple[type[Operation], SSAValue, SSAValue], SSAValue] = field(
        default_factory=dict[tuple[type[Operation], SSAValue, SSAValue], SSAValue])

    def value(self, v: Value) -> SSAValue:
        if isinstance(v, SSAValue):
            return v
        if self.hoist_to is not None:
            return self.hoist_to.value(v)
        if v not in self._consts:
            c = arith.ConstantOp.from_int_and_width(v, IndexType())
            self.ops.append(c)
            self._consts[v] = c.result
        return self._consts[v]

    def take(self) -> list[Operation]:
        """The ops collected so far, which the builder forgets (its memo stays: the values
        stay usable where the taken ops are placed before their uses)."""
        ops, self.ops = self.ops, []
        return ops

    def emit(self, op: Operation, hint: str | None = None) -> SSAValue:
        """Append ``op`` and return its result."""
        self.ops.append(op)
        if hint is not None:
            op.results[0].name_hint = hint
        return op.results[0]

    def binary(self, cls: type[arith.SignlessIntegerBinaryOperation], a: Value,
               b: Value) -> SSAValue:
        """``cls(a, b)``, or the result of the identical op this builder emitted before."""
        lhs, rhs = self.value(a), self.value(b)
        key = (cls, lhs, rhs)
        if (seen := self._memo.get(key)) is None:
            seen = self._memo[key] = self.emit(cls(lhs, rhs))
        return seen

    def all_of(self, ps: Iterable[SSAValue]) -> SSAValue | None:
        """The ``i1`` conjunction of ``ps`` (``arith.andi`` left to right); None for none."""
        out: SSAValue | None = None
        for p in ps:
            out = p if out is None else self.emit(arith.AndIOp(out, p))
        return out

    def add(self, a: Value, b: Value) -> Value:
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if a == 0:
            return b
        if b == 0:
            return a
        return self.binary(arith.AddiOp, a, b)

    def mul(self, a: Value, k: int) -> Value:
        if isinstance(a, int):
            return a * k
        if k == 0:
            return 0
        return a if k == 1 else self.binary(arith.MuliOp, a, k)

    def times(self, a: Value, b: Value) -> Value:
        """``a * b`` where either factor may be a runtime value (``mul`` takes a constant)."""
        if isinstance(b, int):
            return self.mul(a, b)
        if isinstance(a, int):
            return self.mul(b, a)
        return self.binary(arith.MuliOp, a, b)

    def div(self, a: Value, k: int) -> Value:
        if isinstance(a, int):
            return a // k
        return a if k == 1 else self.binary(arith.DivSIOp, a, k)

    def rem(self, a: Value, k: int) -> Value:
        if isinstance(a, int):
            return a % k
        return self.binary(arith.RemSIOp, a, k)

    def xor(self, a: Value, b: Value) -> Value:
        if isinstance(a, int) and isinstance(b, int):
            return a ^ b
        if a == 0:
            return b
        if b == 0:
            return a
        return self.binary(arith.XOrIOp, a, b)

    def and_(self, a: Value, k: int) -> Value:
        if isinstance(a, int):
            return a & k
        return 0 if k == 0 else self.binary(arith.AndIOp, a, k)

    def shr(self, a: Value, k: int) -> Value:
        if isinstance(a, int):
            return a >> k
        return a if k == 0 else self.binary(arith.ShRSIOp, a, k)

    def shl(self, a: Value, k: int) -> Value:
        if isinstance(a, int):
            return a << k
        return a if k == 0 else self.binary(arith.ShLIOp, a, k)

    def affine(self, a: Affine) -> Value:
        out: Value = a.const
        for sym, coeff in a.terms:
            assert isinstance(sym, SSAValue)
            out = self.add(out, self.mul(sym, coeff))
        return out
