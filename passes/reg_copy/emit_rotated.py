"""Lane-rotated rounds in IR: lane ``l`` in round ``f`` transfers chunk
``f ^ h(l)`` (``banks.Rotation``), emitted unrolled so that every register index is static.

With ``h(l) = XOR of v_j over the pairs (bit_j, v_j) whose lane bit is set``:

* the S offset of round ``f`` is ``slice + lane(f)``, ``lane(f) = t_offset + mux_h(ds(f ^ h) -
  ds(f)) + ds(f)`` hoisted: the mux of constants once per distinct delta pattern (``2^k - 1``
  selects of constants, computed once per thread), the rest constants (``rotated_s_offsets``);
* the values pass a butterfly of conditional swaps (``swap_stage``): stage ``j`` exchanges
  chunks ``x`` and ``x ^ v_j`` where lane bit ``bit_j`` is set, so after all ``k`` stages chunk
  ``x`` holds chunk ``x ^ h(l)``: ``k`` swaps per chunk (``Rotation.selects_per_word`` per
  32-bit word), not the ``2^k - 1`` selects of a multiplexer per chunk. S -> R loads the
  rounds, applies stages ``k-1, …, 0`` and stores register chunk ``g``; R -> S loads the
  register chunks, applies ``0, …, k-1`` and stores round ``f``. Both are exact permutations:
  chunk ``g`` of the registers always meets S chunk ``g`` (since ``(g ^ h) ^ h = g``), and
  the stages commute (each swaps along its own bit of the chunk index);
* a swap is two ``arith.select`` on whole vectors with the ``i1`` lane bit
  (``lane_conditions``; a ``LOP3`` blend per word in CUDA) or, for ``Rotation.fma_swaps`` of
  them, a multiply-add swap on the chunks as ``vector<w x i32>`` (``lane_words``: one
  ``IADD3`` and two ``IMAD`` per word pair, the ``IMAD`` on the FMA pipe), taken from the stage
  next to S (``fma_pairs``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from regcopy_passes.core.banks import Rotation, round_s_deltas
from regcopy_passes.core.dispatch import Accepted
from regcopy_passes.core.index_builder import IndexBuilder, Value
from regcopy_passes.core.planning import CopyPlan, round_deltas
from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FixedBitwidthType,
    VectorType,
    i1,
    i32,
)
from xdsl.ir import SSAValue

from regcopy_dialect.layout import Affine
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


def in_vectors(plan: CopyPlan, const: int) -> bool:
    """Whether every lane part of a rotated S offset, ``t_offset + ds(f ^ h) + const``, is a
    whole number of vectors (``plan.n`` elements): every thread's share, every round's delta
    and ``const`` are multiples of ``n``, and ``const >= 0`` (so ``q >= 0``, shifted left in C)."""
    n = plan.n
    return (const >= 0 and const % n == 0
            and all(d % n == 0 for d in round_s_deltas(plan.outer))
            and all(plan.thread_share(t)[0] % n == 0 for t in range(plan.threads)))


def rotated_s_offsets(b: IndexBuilder, body: IndexBuilder, plan: CopyPlan, slice_base: Affine,
                      t_offset: Value, conds: list[SSAValue], rotation: Rotation,
                      swizzle: Swizzler | None) -> list[Value]:
    """S offset of every round: the slice base plus a lane part ``t_offset + mux(delta) +
    ds(f)``, hoisted (one mux per delta pattern), so it stays loop-invariant where the slice
    base is not; swizzled in full where S is swizzled.

    Where the slice base has run-time terms and the lane part is a whole number of vectors
    (``in_vectors``), the offset is written ``dyn + (q << log2 n)`` with ``dyn`` the run-time
    terms and ``q = t_offset / n + mux(delta / n) + (ds(f) + const) / n`` hoisted: the CUDA
    target prints that as the ``q``-th vector from ``&S[dyn]`` (``cuda.printer.vector_step``),
    which ptxas adds once an access (an ``IMAD`` or ``LEA``), where ``&S[dyn + lane]`` cost
    an add and a shift-add (``IMAD.IADD`` + ``LEA``)."""
    bases: dict[tuple[int, ...], Value] = {}
    out: list[Value] = []
    n, const = plan.n, slice_base.const
    dyn = b.affine(Affine(0, slice_base.terms))
    vectors = swizzle is None and not slice_base.is_static and in_vectors(plan, const)
    scale = n if vectors else 1
    lane = b.div(t_offset, n) if vectors else t_offset
    for f in range(plan.rounds):
        ds = round_deltas(plan.outer, f)[0]
        deltas = tuple((round_deltas(plan.outer, f ^ h)[0] - ds) // scale
                       for h in range(1 << max(v.bit_length() for _, v in rotation.pairs)))
        if deltas not in bases:
            delta = _mux(b, conds, rotation, 0, deltas.__getitem__, {})
            bases[deltas] = b.add(lane, delta)
        if vectors:
            off = body.add(dyn, body.shl(b.add(bases[deltas], (ds + const) // n),
                                         n.bit_length() - 1))
        else:
            off = body.add(b.affine(slice_base), b.add(bases[deltas], ds))
        out.append(swizzle(body, off) if swizzle is not None else off)
    return out


def word_type(vtype: VectorType) -> VectorType | None:
    """The ``vector<w x i32>`` with the bytes of ``vtype`` (``w`` = 1, 2 or 4), or None when
    the vector is narrower than a word or not a whole number of words."""
    bits = cast(FixedBitwidthType, vtype.element_type).bitwidth * vtype.get_shape()[0]
    return VectorType(i32, [bits // 32]) if bits >= 32 and bits % 32 == 0 else None


@dataclass(frozen=True)
class Stage:
    """One stage of the butterfly: chunks ``x`` and ``x ^ flip`` swap where ``cond`` (the lane
    bit, ``i1``) is set. ``fma`` (pairs ``x`` of the stage, ``x < x ^ flip``) swap in the
    multiply-add form, with ``one``/``neg`` the lane bit as ``0``/``1`` and ``0``/``-1`` in
    every word (``vector<w x i32>``); the others with two selects."""

    flip: int
    cond: SSAValue
    fma: frozenset[int] = frozenset()
    one: SSAValue | None = None
    neg: SSAValue | None = None


def lane_words(b: IndexBuilder, t: Value, bit: int, wtype: VectorType
               ) -> tuple[SSAValue, SSAValue]:
    """``(one, neg)``: lane bit ``bit`` of ``t`` in every 32-bit word, as ``0``/``1``
    (``(x >> bit) & 1``) and as ``0``/``-1`` (``(x << (31 - bit)) >>s 31``, its sign-extension),
    ``x = t`` as ``i32`` broadcast to ``wtype`` (hoisted).

    ``neg`` is *not* written ``0 - one``: from that NVVM rewrites ``b + d * (0 - m)`` into
    ``b - d * m``, which ptxas issues as a negation and an ``IMAD``, one instruction more a
    pair; the shifts keep ``neg`` an opaque word and the swap two ``IMAD``."""
    x = b.emit(arith.IndexCastOp(b.value(t), i32))
    words = b.emit(vector.BroadcastOp(x, wtype))

    def splat(k: int) -> SSAValue:
        n = wtype.get_shape()[0]
        return b.emit(arith.ConstantOp(
            DenseIntOrFPElementsAttr.from_list(wtype, [k] * n)))  # type: ignore[arg-type, type-var]

    one = b.emit(arith.AndIOp(b.emit(arith.ShRUIOp(words, splat(bit))), splat(1)),
                 f"one_b{bit}")
    neg = b.emit(arith.ShRSIOp(b.emit(arith.ShLIOp(words, splat(31 - bit))), splat(31)),
                 f"neg_b{bit}")
    return one, neg


def fma_pairs(rotation: Rotation, rounds: int, chunk_bytes: int) -> list[frozenset[int]]:
    """For each pair of ``rotation`` (stage ``j``), the pairs ``x`` (``x < x ^ v_j``) that
    swap in the multiply-add form: ``rotation.fma_swaps(rounds, chunk_bytes)`` of the
    ``k * rounds / 2`` pairs of the copy, taken from the last stage (``pairs[k-1]``, the one
    next to S in both directions) backwards, in order of ``x``. The stages next to R then
    swap by selects, so that NVVM cancels them when one copy's rotated registers go straight back to S (a round
    trip: ``B_0 B_0 = 1`` where the two copies meet, then ``B_1 B_1``, …)."""
    left = rotation.fma_swaps(rounds, chunk_bytes)
    out: list[frozenset[int]] = []
    for _, v in reversed(rotation.pairs):
        lows = [x for x in range(rounds) if x < x ^ v][:left]
        left -= len(lows)
        out.append(frozenset(lows))
    return list(reversed(out))


def swap_stage(body: IndexBuilder, vals: list[SSAValue], stage: Stage) -> list[SSAValue]:
    """The values after ``stage``: ``x`` and ``x ^ flip`` exchanged where the lane bit is set.

    Select form: ``x' = c ? v[x ^ flip] : v[x]`` and back, one ``LOP3`` blend per word each
    (integer pipe). Multiply-add form (``x in stage.fma``): ``d = v[y] - v[x]``,
    ``x' = v[x] + d * one``, ``y' = v[y] + d * neg``: one ``IADD3`` and two ``IMAD`` per word
    pair, bit-exact in wrapping ``i32`` arithmetic (``one`` is 0 or 1, ``neg`` 0 or -1)."""
    out = list(vals)
    for x in range(len(vals)):
        y = x ^ stage.flip
        if y < x:
            continue
        if x in stage.fma:
            assert stage.one is not None and stage.neg is not None
            d = body.emit(arith.SubiOp(vals[y], vals[x]))
            out[x] = body.emit(arith.AddiOp(vals[x], body.emit(arith.MuliOp(d, stage.one))))
            out[y] = body.emit(arith.AddiOp(vals[y], body.emit(arith.MuliOp(d, stage.neg))))
        else:
            out[x] = body.emit(arith.SelectOp(stage.cond, vals[y], vals[x]))
            out[y] = body.emit(arith.SelectOp(stage.cond, vals[x], vals[y]))
    return out


def butterfly_stages(b: IndexBuilder, t: Value, rotation: Rotation, rounds: int,
                     vtype: VectorType) -> tuple[list[Stage], VectorType | None]:
    """The stages in the order of ``rotation.pairs`` (lane conditions and, for stages with
    multiply-add pairs, the lane words, hoisted into ``b``) and the word type the values are
    viewed as (None: no multiply-add pair, the values keep ``vtype``)."""
    conds = lane_conditions(b, t, rotation)
    wtype = word_type(vtype)
    chunk_bytes = cast(FixedBitwidthType, vtype.element_type).bitwidth * vtype.get_shape()[0] // 8
    fma = fma_pairs(rotation, rounds, chunk_bytes)
    stages: list[Stage] = []
    for (bit, v), cond, lows in zip(rotation.pairs, conds, fma, strict=True):
        if lows and wtype is not None:
            one, neg = lane_words(b, t, bit, wtype)
            stages.append(Stage(v, cond, lows, one, neg))
        else:
            stages.append(Stage(v, cond))
    return stages, (wtype if any(s.fma for s in stages) else None)


def _view(body: IndexBuilder, vals: list[SSAValue], t: VectorType | None) -> list[SSAValue]:
    """``vals`` bitcast to ``t`` (the same bytes; printed as the same C value), or as is."""
    if t is None or all(v.type == t for v in vals):
        return vals
    return [body.emit(vector.BitcastOp(v, t)) for v in vals]


def emit_rotated(b: IndexBuilder, body: IndexBuilder, op: CopyOp, acc: Accepted,
                 plan: CopyPlan, t: Value, slice_base: Affine, t_offset: Value, r_base: Value,
                 src: SSAValue, dst: SSAValue, rotation: Rotation,
                 swizzle: Swizzler | None) -> None:
    """All rounds, unrolled, into ``body`` (constants and lane math into ``b``): S -> R loads
    the rounds and passes them through the stages ``k-1, …, 0`` into the registers; R -> S
    passes the registers through ``0, …, k-1`` and stores the rounds (so a round trip's stages
    meet in the middle and cancel, ``fma_pairs``)."""
    vtype = VectorType(op.src_type.element_type, [plan.n])
    stages, wtype = butterfly_stages(b, t, rotation, plan.rounds, vtype)
    conds = [s.cond for s in stages]
    s_offs = rotated_s_offsets(b, body, plan, slice_base, t_offset, conds, rotation, swizzle)
    r_offs = [body.add(r_base, round_deltas(plan.outer, g)[1]) for g in range(plan.rounds)]
    first, second = (s_offs, r_offs) if acc.r_is_dst else (r_offs, s_offs)
    loaded: list[SSAValue] = []
    for off in first:
        load = vector.LoadOp(src, [body.value(off)], vtype)
        load.result.name_hint = "v"
        loaded.append(body.emit(load))
    vals = _view(body, loaded, wtype)
    for stage in (reversed(stages) if acc.r_is_dst else stages):
        vals = swap_stage(body, vals, stage)
    for value, off in zip(_view(body, vals, vtype), second, strict=True):
        body.ops.append(vector.StoreOp(value, dst, [body.value(off)]))
