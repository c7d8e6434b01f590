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

from typing import Any, Protocol, TypeVar

V = TypeVar("V")


class IndexMath(Protocol[V]):
    """Integer operations on index values ``V`` (constants are plain ``int``).

    Functions generic in ``V`` pass ``V | int`` values on to each other; mypy (1.x) then binds
    ``V`` to ``V | int`` and reports ``IndexMath[V]`` as not an ``IndexMath[V | int]``: those
    calls carry ``# type: ignore[arg-type]``."""

    def add(self, a: V | int, b: V | int) -> V | int: ...

    def mul(self, a: V | int, k: int) -> V | int: ...

    def div(self, a: V | int, k: int) -> V | int: ...

    def rem(self, a: V | int, k: int) -> V | int: ...

    def xor(self, a: V | int, b: V | int) -> V | int: ...

    def and_(self, a: V | int, k: int) -> V | int: ...

    def shr(self, a: V | int, k: int) -> V | int: ...

    def shl(self, a: V | int, k: int) -> V | int: ...


IntLike = Any
"""What ``IntMath`` computes on: Python integers, or numpy integer arrays (elementwise, as the
interpreter and the TMA box model use it), so it is an ``IndexMath`` of either."""


class IntMath:
    """``IndexMath`` on Python integers (and, elementwise, on numpy integer arrays)."""

    def add(self, a: IntLike, b: IntLike) -> IntLike:
        return a + b

    def mul(self, a: IntLike, k: int) -> IntLike:
        return a * k

    def div(self, a: IntLike, k: int) -> IntLike:
        return a // k

    def rem(self, a: IntLike, k: int) -> IntLike:
        return a % k

    def xor(self, a: IntLike, b: IntLike) -> IntLike:
        return a ^ b

    def and_(self, a: IntLike, k: int) -> IntLike:
        return a & k

    def shr(self, a: IntLike, k: int) -> IntLike:
        return a >> k

    def shl(self, a: IntLike, k: int) -> IntLike:
        return a << k


INT_MATH = IntMath()
