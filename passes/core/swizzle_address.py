"""Cheap swizzled addressing: ``swizzle(base + d)`` with the per-thread part hoisted.

An XOR swizzle (``swizzle<M,B,S>`` or ``xor<...>``, ``regcopy_dialect.xor_map``) reads the
element-offset bits below ``T = read_end`` (``M + S + B`` for ``swizzle<M,B,S>``) and XORs
into lower bits only. It is linear over GF(2) (``sw(a ^ b) = sw(a) ^ sw(b)``). Split a
round's delta ``d`` at ``T``:
``d = lo + hi``, ``lo = d mod 2^T``, ``hi`` a multiple of ``2^T``. Then

* ``sw(x + hi) = sw(x) + hi``: adding ``hi`` changes only bits ``>= T``, which the swizzle
  neither reads nor writes (carries go upwards only);
* ``sw(base + lo) = sw(base) ^ sw(lo)`` when no bit set in ``lo`` can be set in ``base``
  (``carry_free``): the addition has no carries, so it is an XOR. ``base``'s possible bits
  come from its divisor here (``divisor_bits``), from the address table's bit fields for
  ld/stmatrix (``emit_matrix.possible_bits``): one proof, two sources of known bits.

So a round costs one XOR with a constant (``sw(lo)``, none when ``lo = 0``) and an added
constant (``hi``, an ``[R+imm]`` address), with ``sw(base)`` computed once per thread. When the
base is not provably aligned enough, the full swizzle is applied per round (``emit_swizzle``).
"""

from __future__ import annotations

from math import gcd

from regcopy_passes.core.index_builder import IndexBuilder, Value
from regcopy_passes.core.planning import CopyPlan, round_deltas
from xdsl.dialects import arith

from regcopy_dialect.address import swizzle
from regcopy_dialect.xor_map import XorMap


def emit_swizzle(b: IndexBuilder, m: Value, sw: XorMap) -> Value:
    """``swizzle(m)`` in IR: ``regcopy_dialect.address.swizzle`` (the one definition, over
    ``IndexMath``) run on the builder; a constant folds to ``Swizzle.apply``."""
    return swizzle(b, m, sw)


def read_end(sw: XorMap) -> int:
    """``T``: the swizzle reads and writes only element-offset bits below ``T``
    (``M + S + B`` for ``swizzle<M,B,S>``)."""
    return sw.read_end


def base_divisor(plan: CopyPlan) -> int:
    """A provable divisor of the S base including the thread share (0: the base is 0)."""
    d = plan.s_base_divisibility
    for a in plan.thread_atoms:
        if a.extent > 1:
            d = gcd(d, a.s_stride)
    return d


def divisor_bits(d: int) -> int:
    """The bits a multiple of ``d`` may set: all from ``d``'s lowest set bit up (none for the
    constant 0, ``d = 0``)."""
    return 0 if d == 0 else -1 << ((d & -d).bit_length() - 1)


def carry_free(lo: int, may_set: int) -> bool:
    """Whether ``x + lo == x ^ lo`` for every ``x`` whose set bits lie in ``may_set``: no bit
    of ``lo`` meets one that ``x`` may set."""
    return lo & may_set == 0


def hoistable(plan: CopyPlan) -> bool:
    """Whether every round's ``lo`` part adds to the base without carries (see module doc)."""
    assert plan.swizzle is not None
    mask = (1 << read_end(plan.swizzle)) - 1
    may_set = divisor_bits(base_divisor(plan))
    return all(carry_free(round_deltas(plan.outer, f)[0] & mask, may_set)
               for f in range(plan.rounds))


def emit_hoisted_swizzle(b: IndexBuilder, body: IndexBuilder, plan: CopyPlan, base: Value,
                         ds: Value) -> Value:
    """``sw(base) ^ sw(ds & (2^T - 1)) + (ds & ~(2^T - 1))``, ``sw(base)`` emitted into ``b``
    (before the loop); ``ds`` is the round's delta (a value of the loop, or an integer)."""
    sw = plan.swizzle
    assert sw is not None
    mask = (1 << read_end(sw)) - 1
    deltas = [round_deltas(plan.outer, f)[0] for f in range(plan.rounds)]
    out = emit_swizzle(b, base, sw)
    if any(d & mask for d in deltas):
        lo = ds & mask if isinstance(ds, int) else body.binary(arith.AndIOp, ds, mask)
        lo_sw = emit_swizzle(body, lo, sw) if any(
            sw.apply(d & mask) != d & mask for d in deltas) else lo
        out = out ^ lo_sw if isinstance(out, int) and isinstance(lo_sw, int) else \
            body.binary(arith.XOrIOp, out, lo_sw)
    if any(d & ~mask for d in deltas):
        hi = ds & ~mask if isinstance(ds, int) else body.binary(arith.AndIOp, ds, ~mask)
        out = body.add(out, hi)
    return out
