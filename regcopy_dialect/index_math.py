"""Index arithmetic written once, run two ways.

The address math of a copy (a layout's ``crd2idx``, a round's offsets, a thread's base, the
swizzle) is written once against ``IndexMath``, a small protocol of integer operations on
non-negative index values. ``INT_MATH`` evaluates it on Python integers (planning, the bank
model, the interpreter, the tests); the pass's ``IndexBuilder`` implements the same protocol
by emitting ``arith`` ops (folding what is constant). So the numbers the planner checks and
the code the pass emits come from one function, not two copies.

All operations are on non-negative values (offsets and thread indices), where truncating and
flooring division agree.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

V = TypeVar("V")


class IndexMath(Protocol[V]):
    """Integer operations on index values ``V`` (constants are plain ``int``)."""

    def add(self, a: V | int, b: V | int) -> V | int: ...

    def mul(self, a: V | int, k: int) -> V | int: ...

    def div(self, a: V | int, k: int) -> V | int: ...

    def rem(self, a: V | int, k: int) -> V | int: ...

    def xor(self, a: V | int, b: V | int) -> V | int: ...

    def and_(self, a: V | int, k: int) -> V | int: ...

    def shr(self, a: V | int, k: int) -> V | int: ...

    def shl(self, a: V | int, k: int) -> V | int: ...


class IntMath:
    """``IndexMath`` on Python integers."""

    def add(self, a: int, b: int) -> int:
        return a + b

    def mul(self, a: int, k: int) -> int:
        return a * k

    def div(self, a: int, k: int) -> int:
        return a // k

    def rem(self, a: int, k: int) -> int:
        return a % k

    def xor(self, a: int, b: int) -> int:
        return a ^ b

    def and_(self, a: int, k: int) -> int:
        return a & k

    def shr(self, a: int, k: int) -> int:
        return a >> k

    def shl(self, a: int, k: int) -> int:
        return a << k


INT_MATH = IntMath()
