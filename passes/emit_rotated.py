"""Lane-rotated rounds in IR: lane ``l`` in round ``f`` transfers chunk
``f ^ h(l)`` (``banks.Rotation``), emitted unrolled so that every register index is static.

With ``h(l) = XOR of v_j over the pairs (bit_j, v_j) whose lane bit is set``:

* the S offset of round ``f`` is ``s_base + ds(f ^ h)``, written as
  ``(s_base + mux_h(ds(f ^ h) - ds(f))) + ds(f)``: the mux of constants is hoisted (one per
  distinct delta pattern, usually two), the round adds a constant (an ``[R+imm]`` address);
* the value a lane moves is chosen by ``arith.select`` on whole vectors with ``i1`` conditions
  ``c_j = bit_j(lane)`` (``lane_conditions``): ``mux(x, j) = c_j ? mux(x ^ v_j, j + 1) : mux(x, j + 1)``,
  ``mux(x, k) = chunk x``. S -> R loads the rounds first, then stores register chunk ``g`` from
  ``mux(g)`` of the loaded rounds; R -> S loads the register chunks first and stores round ``f``
  from ``mux(f)`` of them. Both are exact permutations: chunk ``g`` of the registers always
  meets S chunk ``g`` (since ``(g ^ h) ^ h = g``).

The value muxes of one copy share their nodes (one memo for all chunks): node ``(x, j)`` is the
chunk ``x`` after the stages ``j+1 … k-1``, so every level holds one select per chunk and the
whole is a butterfly of conditional swaps, stage ``j`` exchanging chunks ``x`` and ``x ^ v_j``
where lane bit ``bit_j`` is set: ``k`` selects per chunk (``Rotation.selects_per_word`` per
32-bit word), not the ``2^k - 1`` of a separate mux per chunk. The hoisted S-offset muxes are
``2^k - 1`` selects of constants per delta pattern, computed once per thread.
"""

from __future__ import annotations

from collections.abc import Callable

from regcopy_passes.banks import Rotation
from regcopy_passes.dispatch import Accepted
from regcopy_passes.index_builder import IndexBuilder, Value
from regcopy_passes.planning import CopyPlan, round_deltas
from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import VectorType, i1
from xdsl.ir import SSAValue

from regcopy_dialect.regcopy import CopyOp

Swizzler = Callable[[IndexBuilder, Value], Value]


def lane_conditions(b: IndexBuilder, t: Value, rotation: Rotation) -> list[SSAValue]:
    """The ``i1`` lane bits of the rotation's pairs (hoisted):
    ``c_j = index_cast((t >> bit_j) & 1 : index to i1)``.

    ``t`` is the thread's index in the scope (``t >= 0``), so for ``bit_j < 5`` bit ``bit_j``
    of ``t`` is that bit of the lane ``t mod 32``. The condition is the truncation of an
    integer 0/1, so the CUDA target prints the blend mask of a select on it as integer
    arithmetic, ``0u - (unsigned)(x & 1)`` (one ``LOP3`` a word), not from a predicate."""
    out: list[SSAValue] = []
    for bit, _ in rotation.pairs:
        bit_value = b.and_(b.shr(t, bit), 1)
        out.append(b.emit(arith.IndexCastOp(b.value(bit_value), i1), f"lane_b{bit}"))
    return out


def _mux(b: IndexBuilder, conds: list[SSAValue], rotation: Rotation, x: int,
         leaf: Callable[[int], Value], memo: dict[tuple[int, int], Value], j: int = 0) -> Value:
    """``c_j ? mux(x ^ v_j, j+1) : mux(x, j+1)``; ``leaf(x)`` at the last level."""
    if j == len(conds):
        return leaf(x)
    if (x, j) not in memo:
        v = rotation.pairs[j][1]
        hi = _mux(b, conds, rotation, x ^ v, leaf, memo, j + 1)
        lo = _mux(b, conds, rotation, x, leaf, memo, j + 1)
        memo[(x, j)] = hi if hi == lo else b.emit(
            arith.SelectOp(conds[j], b.value(hi), b.value(lo)))
    return memo[(x, j)]


def rotated_s_offsets(b: IndexBuilder, body: IndexBuilder, plan: CopyPlan, s_base: Value,
                      conds: list[SSAValue], rotation: Rotation,
                      swizzle: Swizzler | None) -> list[Value]:
    """S offset of every round: hoisted ``s_base + mux(delta)`` per delta pattern, plus the
    round's own ``ds(f)`` (swizzled in full where S is swizzled)."""
    bases: dict[tuple[int, ...], Value] = {}
    out: list[Value] = []
    for f in range(plan.rounds):
        ds = round_deltas(plan.outer, f)[0]
        deltas = tuple(round_deltas(plan.outer, f ^ h)[0] - ds
                       for h in range(1 << max(v.bit_length() for _, v in rotation.pairs)))
        if deltas not in bases:
            delta = _mux(b, conds, rotation, 0, lambda h, d=deltas: d[h], {})
            bases[deltas] = b.add(s_base, delta)
        off = body.add(bases[deltas], ds)
        out.append(swizzle(body, off) if swizzle is not None else off)
    return out


def emit_rotated(b: IndexBuilder, body: IndexBuilder, op: CopyOp, acc: Accepted,
                 plan: CopyPlan, t: Value, s_base: Value, r_base: Value, src: SSAValue,
                 dst: SSAValue, rotation: Rotation, swizzle: Swizzler | None) -> None:
    """All rounds, unrolled, into ``body`` (constants and lane math into ``b``)."""
    conds = lane_conditions(b, t, rotation)
    s_offs = rotated_s_offsets(b, body, plan, s_base, conds, rotation, swizzle)
    r_offs = [body.add(r_base, round_deltas(plan.outer, g)[1]) for g in range(plan.rounds)]
    vtype = VectorType(op.src_type.element_type, [plan.n])
    first, second = (s_offs, r_offs) if acc.r_is_dst else (r_offs, s_offs)
    loaded: list[SSAValue] = []
    for off in first:
        load = vector.LoadOp(src, [body.value(off)], vtype)
        load.result.name_hint = "v"
        loaded.append(body.emit(load))
    memo: dict[tuple[int, int], Value] = {}
    for x, off in enumerate(second):
        value = _mux(body, conds, rotation, x, lambda y: loaded[y], memo)
        assert isinstance(value, SSAValue)
        body.ops.append(vector.StoreOp(value, dst, [body.value(off)]))
