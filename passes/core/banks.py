"""Shared-memory bank model of a planned copy (pure functions, no IR).

Shared memory has 32 banks of 4 bytes: byte address ``a`` lives in bank ``(a // 4) % 32``.
A warp-wide access instruction is served in *groups of consecutive lanes*: all 32 lanes for
accesses of at most 32 bits, 16 lanes for 64-bit and 8 lanes for 128-bit accesses (each group
moves at most 128 bytes). Inside a group, lanes that touch the same 4-byte word are served
together (broadcast); distinct words in one bank are served one after another. So a group
costs ``max over banks of the distinct words in that bank`` *wavefronts*, and an instruction
the sum over its groups. The ideal is ``ceil(distinct words / 32)`` per group (one wavefront
moves 128 bytes).

The addresses are those the lowered code issues: thread ``t`` of the scope in round ``f``
accesses ``swizzle(s_base + thread_share(t) + ds(f ^ h(lane)))`` elements, ``n`` elements wide,
``h`` the lane rotation (``Rotation``; none: ``h = 0``). Threads that own nothing (guarded
out) issue nothing. Dynamic parts of the S base are taken as 0 (they are multiples of the
vector width, which is all the lowering proves about them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from math import ceil, floor, prod

from regcopy_passes.core.planning import Atom, CopyPlan, round_deltas

from regcopy_dialect.layout import WARP

BANKS = 32
WORD = 4


FMA_SWAP_SHARE = 1 / 3
"""The share of a butterfly's conditional swaps of chunk pairs done in the multiply-add form
(per word pair ``d = b - a``, ``a + d * m``, ``b + d * (-m)``: one ``IADD3`` and two ``IMAD``,
the ``IMAD`` on the FMA pipe) instead of two selects (two ``LOP3`` blends, the integer pipe).

Per 128-bit access on Hopper, the shared peak leaves an SM 16 issue slots and 8 integer-pipe
instructions (``bench.sass_loops.PEAK_BUDGET``). A swap in selects costs 2 of each a word
pair; one in multiply-adds 3 slots but 1 integer instruction (and 2 of the 8 ``IMAD`` of the
FMA pipe's heavy half). A third balances the two limits for a 4-way (2-stage) and an 8-way
(3-stage) butterfly beside a consumer with 4 FP32 instructions an access (the benchmark's
``FADD``): the SASS-derived bound (``bench_shared --sass-only``, column ``est``) of the f32
k=16 load-only/store-only loops goes from 0.84/0.82 (all selects) to 0.98/0.95, the 8-way
ones from 0.60/0.60 to 0.77/0.76 (with the hoisted S offsets).

Measured on the H200 (``bench_shared --only "32-bit k=16" --only 8-way --fma-swap-share 0
--fma-swap-share 0.5``, 2026-12-02), the bound is not reached and the shares are close: a
third is the best of 0, 1/3 and 1/2 on the load-only loops (4-way 0.732x of peak against
0.709x all-selects; 8-way 0.540x against 0.518x), all-selects on the store-only loops (0.683x
against 0.659x; 0.501x against 0.474x) and on the round trips (0.969x against 0.958x; 0.952x
against 0.919x), where both meet their targets. 1/2 is never the best."""


FMA_CHUNK_BYTES = 16
"""Multiply-add swaps are used for 128-bit chunks only. A narrower access moves fewer bytes
per instruction, so its own issue slot (and its address) takes a larger share of the budget
at the peak, and the extra slot of a multiply-add swap costs more than the integer
instruction it saves: the 32-bit rotated mma A fragment loops went from 4.0 to 4.2 issue
slots per 32-bit access (budget 4) with a third of their swaps as multiply-adds."""


@dataclass(frozen=True)
class Rotation:
    """Lane rotation of the rounds: lane ``l`` in round ``f`` transfers chunk ``f ^ h(l)``
    with ``h(l) = XOR of v over the (bit, v) pairs whose lane bit is set in l``. Every ``v``
    is below the largest power of two dividing the round count, so ``f ^ h(l)`` is a round."""

    pairs: tuple[tuple[int, int], ...] = ()
    fma_share: float = FMA_SWAP_SHARE
    """The share of the butterfly's chunk swaps done as multiply-adds (``fma_swap_count``;
    the pass option ``fma-swap-share``, default ``FMA_SWAP_SHARE``)."""

    def h(self, lane: int) -> int:
        out = 0
        for bit, v in self.pairs:
            if (lane >> bit) & 1:
                out ^= v
        return out

    @property
    def selects_per_word(self) -> int:
        """Swap stages per 32-bit word of a round: ``k`` for ``k`` pairs. The rounds' values
        pass a butterfly of conditional swaps (``emit_rotated``): stage ``j`` swaps the
        chunks ``x`` and ``x ^ v_j`` where lane bit ``bit_j`` is set, and after all ``k``
        stages chunk ``x`` holds round ``x ^ h(lane)``. A swap is two selects (one ``LOP3``
        blend a word each) or, for ``fma_swaps`` of the chunk pairs, a multiply-add swap."""
        return len(self.pairs)

    def fma_swaps(self, rounds: int, chunk_bytes: int) -> int:
        """How many of the ``k * rounds / 2`` chunk swaps of a copy's butterfly take the
        multiply-add form (``fma_swap_count``)."""
        return fma_swap_count(len(self.pairs), rounds, chunk_bytes, self.fma_share)

    def __str__(self) -> str:
        return ", ".join(f"lane bit {b} -> round ^ {v}" for b, v in self.pairs)


NO_ROTATION = Rotation()


def fma_swap_count(bits: int, rounds: int, chunk_bytes: int,
                   share: float = FMA_SWAP_SHARE) -> int:
    """Of the ``bits * rounds / 2`` chunk swaps of a ``bits``-stage butterfly over ``rounds``
    chunks of ``chunk_bytes``, how many take the multiply-add form: the nearest whole number
    to ``share`` of them (halves round up), none unless chunks are 128-bit (``FMA_CHUNK_BYTES``).
    """
    if chunk_bytes != FMA_CHUNK_BYTES:
        return 0
    return floor(bits * rounds // 2 * share + 0.5)


def lane_groups(access_bytes: int) -> int:
    """Consecutive lanes served together: 32 up to 32-bit accesses, 16 for 64, 8 for 128."""
    return WARP if access_bytes <= 4 else max(1, 128 // access_bytes)


@dataclass(frozen=True)
class BankGroup:
    """One group of lanes served together: its first lane, the distinct 4-byte words it
    touches in each bank, its wavefronts (the largest count) and its ideal
    (``ceil(distinct words / 32)``: one wavefront moves 128 bytes)."""

    first_lane: int
    lanes: int
    words_per_bank: tuple[int, ...]

    @property
    def wavefronts(self) -> int:
        return max(self.words_per_bank)

    @property
    def ideal(self) -> int:
        return ceil(sum(self.words_per_bank) / BANKS)


def bank_groups(addresses: Sequence[int | None], access_bytes: int) -> list[BankGroup]:
    """The lane groups of one warp-wide access that touch memory: ``addresses[lane]`` is the
    byte address of the lane's access (None: the lane is inactive), ``access_bytes`` its
    size. Lanes of a group touching one word are served together (broadcast)."""
    group = lane_groups(access_bytes)
    out: list[BankGroup] = []
    for g in range(0, len(addresses), group):
        words: set[int] = set()
        for a in addresses[g:g + group]:
            if a is not None:
                words.update(range(a // WORD, (a + max(access_bytes, 1) - 1) // WORD + 1))
        if not words:
            continue
        per_bank = [0] * BANKS
        for w in words:
            per_bank[w % BANKS] += 1
        out.append(BankGroup(g, group, tuple(per_bank)))
    return out


def instruction_wavefronts(addresses: Sequence[int | None], access_bytes: int) -> tuple[int, int]:
    """``(wavefronts, ideal)`` of one warp-wide access, summed over its lane groups
    (``bank_groups``)."""
    groups = bank_groups(addresses, access_bytes)
    return sum(g.wavefronts for g in groups), sum(g.ideal for g in groups)


@dataclass(frozen=True)
class BankReport:
    """Wavefronts of one warp's shared transfers over all rounds (the worst warp of the scope)
    against the ideal."""

    wavefronts: int
    ideal: int
    rounds: int
    """What the totals are divided by in ``describe``: the rounds, or the instructions."""
    unit: str = "round"

    @property
    def ways(self) -> float:
        return self.wavefronts / self.ideal if self.ideal else 1.0

    @property
    def conflicted(self) -> bool:
        return self.wavefronts > self.ideal

    def describe(self) -> str:
        per, ideal = self.wavefronts / self.rounds, self.ideal / self.rounds
        num = f"{per:g} wavefront{'' if per == 1 else 's'} per {self.unit}, ideal {ideal:g}"
        if not self.conflicted:
            return f"no bank conflict: {num}"
        return f"{self.ways:g}-way bank conflict: {num}"


@lru_cache(maxsize=256)
def lane_bases(plan: CopyPlan, warp: int) -> tuple[int | None, ...]:
    """Each lane's S element offset before the round's delta (None: owns nothing)."""
    out: list[int | None] = []
    for lane in range(WARP):
        t = warp * WARP + lane
        offset, owns = plan.thread_share(t) if t < plan.threads else (0, False)
        out.append(plan.s_base.const + offset if owns else None)
    return tuple(out)


@lru_cache(maxsize=256)
def round_s_deltas(outer: tuple[Atom, ...]) -> tuple[int, ...]:
    """``ds(f)`` of every round (``planning.round_deltas``)."""
    return tuple(round_deltas(outer, f)[0] for f in range(prod(a.extent for a in outer)))


def _addresses(plan: CopyPlan, element_bytes: int, bases: Sequence[int | None],
               deltas: Sequence[int], f: int, rotation: Rotation) -> list[int | None]:
    sw = plan.swizzle
    out: list[int | None] = []
    for lane, base in enumerate(bases):
        if base is None:
            out.append(None)
            continue
        m = base + deltas[f ^ rotation.h(lane)]
        out.append((sw.apply(m) if sw is not None else m) * element_bytes)
    return out


def modelled_warps(plan: CopyPlan, limit: int = 8) -> range:
    """The warps of the scope the model looks at (all, up to ``limit``)."""
    return range(max(1, min(limit, ceil(plan.threads / WARP))))


def bank_report(plan: CopyPlan, element_bytes: int, rotation: Rotation = NO_ROTATION,
                warp_limit: int = 8) -> BankReport:
    """The wavefronts of ``plan``'s shared transfers, worst warp, summed over the rounds."""
    access = plan.n * element_bytes
    deltas = round_s_deltas(plan.outer)
    worst = (0, 0)
    for w in modelled_warps(plan, warp_limit):
        bases = lane_bases(plan, w)
        wf = ideal = 0
        for f in range(plan.rounds):
            a, i = instruction_wavefronts(
                _addresses(plan, element_bytes, bases, deltas, f, rotation), access)
            wf, ideal = wf + a, ideal + i
        worst = max(worst, (wf, ideal))
    return BankReport(worst[0], worst[1], plan.rounds)


# ---- choosing a rotation ----------------------------------------------------------------------

SELECT_WEIGHT = 0.25
"""Cost of one integer-pipe instruction of a rotation's butterfly (a ``LOP3`` blend, or the
``IADD3`` of a multiply-add swap) in wavefronts, measured on the H200 with all-select
butterflies (``bench/bench_shared.py``, lab/results/RESULTS_shared.md): a 1-bit rotation of a
2-way conflict (4 wavefronts saved a round at 4 selects) took the shared loops from 0.49x of
peak to 0.95x (round trip) and 0.76-0.79x (load or store only), so a select costs well under a
wavefront; for the 4-way f32 k=16 layout, a 2-bit rotation (4 wavefronts a round at 8
selects, a butterfly of two stages) beat the 1-bit one (8 wavefronts at 4 selects) in every
kernel (round trip 0.70x against 0.49x, load only 0.53x against 0.50x, store only 0.50x
against 0.50x). The ``IMAD`` of multiply-add swaps run on the FMA pipe and are not charged."""

MAX_ROTATED_ROUNDS = 16
"""Rotated rounds are unrolled in the IR; beyond this many, the code size is not worth it."""

MAX_ROTATION_BITS = 4
"""Lane bits a rotation may use: a ``2^k``-way conflict needs ``k`` (16 rounds allow 4)."""


def xor_span(rounds: int) -> int:
    """The largest power of two dividing ``rounds``: ``f ^ v`` stays a round for ``v`` below."""
    return rounds & -rounds


def rotation_cost(plan: CopyPlan, element_bytes: int, rotation: Rotation,
                  warp_limit: int = 2, select_weight: float = SELECT_WEIGHT) -> float:
    """Wavefronts plus the butterfly's integer-pipe instructions weighted by
    ``select_weight`` (wavefronts per instruction) over all rounds of one warp."""
    wf = bank_report(plan, element_bytes, rotation, warp_limit).wavefronts
    return wf + select_cost(plan, element_bytes, len(rotation.pairs), select_weight,
                            rotation.fma_share)


def select_cost(plan: CopyPlan, element_bytes: int, bits: int,
                select_weight: float = SELECT_WEIGHT, fma_share: float = FMA_SWAP_SHARE
                ) -> float:
    """What a ``bits``-bit rotation's butterfly costs, in wavefronts: ``select_weight`` per
    integer-pipe instruction, ``butterfly_integer_ops``."""
    return select_weight * butterfly_integer_ops(plan.n * element_bytes, plan.rounds, bits,
                                                 fma_share)


def butterfly_integer_ops(chunk_bytes: int, rounds: int, bits: int,
                          fma_share: float = FMA_SWAP_SHARE) -> int:
    """Integer-pipe instructions of a ``bits``-stage butterfly over ``rounds`` chunks of
    ``chunk_bytes``: ``bits * rounds / 2`` chunk swaps, each 2 selects (a ``LOP3`` a 32-bit
    word each; one for a chunk narrower than a word) or, for ``fma_swap_count`` of them, one
    ``IADD3`` a word (its two ``IMAD`` go to the FMA pipe). So ``words * (bits * rounds -
    fma)``: with no multiply-add swap, ``bits`` selects a word of every round."""
    words = max(1, chunk_bytes // WORD)
    return words * (bits * rounds - fma_swap_count(bits, rounds, chunk_bytes, fma_share))


def rotations_of(rounds: int, bits: int) -> list[Rotation]:
    """The rotations by exactly ``bits`` pairs ``(lane bit, 2^i)``, lane bits increasing and
    both the lane bits and the flips distinct (``2^i < xor_span(rounds)``)."""
    flips = [1 << k for k in range(xor_span(rounds).bit_length() - 1)]
    singles = [(b, v) for b in range(5) for v in flips]

    def extend(prefix: tuple[tuple[int, int], ...], start: int) -> list[Rotation]:
        if len(prefix) == bits:
            return [Rotation(prefix)]
        return [rot for i in range(start, len(singles))
                if all(singles[i][0] != b and singles[i][1] != v for b, v in prefix)
                for rot in extend((*prefix, singles[i]), i + 1)]

    return extend((), 0) if bits else []


def choose_rotation(plan: CopyPlan, element_bytes: int,
                    select_weight: float = SELECT_WEIGHT,
                    fma_share: float = FMA_SWAP_SHARE) -> Rotation:
    """The rotation minimising ``rotation_cost`` at ``select_weight`` (ties: fewer selects,
    then first found), or ``NO_ROTATION`` when none beats the plain rounds or the rounds
    cannot rotate.

    Rotations by ``k = 1, 2, …`` lane bits are searched in turn (``rotations_of``); from
    ``k = 3`` on, a ``k`` whose selects alone, added to the plain rounds' ideal wavefronts,
    cost no less than the best so far cannot win, nor can any larger one, so the search
    stops there; and at the first ``k``-bit rotation that reaches the ideal. So a ``2^k``-way
    conflict reaches the ideal with ``k`` bits when those ``k`` selects a word pay for the
    wavefronts they save. Every candidate does ``fma_share`` of its swaps as multiply-adds
    (``Rotation.fma_share``)."""
    if plan.threads < 2 or plan.rounds < 2 or plan.rounds > MAX_ROTATED_ROUNDS:
        return NO_ROTATION
    plain = bank_report(plan, element_bytes, NO_ROTATION, 2)
    if xor_span(plan.rounds) < 2 or not bank_report(plan, element_bytes).conflicted:
        return NO_ROTATION
    best, best_key = NO_ROTATION, (float(plain.wavefronts), 0)
    max_bits = min(MAX_ROTATION_BITS, xor_span(plan.rounds).bit_length() - 1)
    for bits in range(1, max_bits + 1):
        reached = plain.ideal + select_cost(plan, element_bytes, bits, select_weight, fma_share)
        if bits > 2 and (reached, bits) >= best_key:
            break
        for rot in (replace(r, fma_share=fma_share) for r in rotations_of(plan.rounds, bits)):
            key = (rotation_cost(plan, element_bytes, rot, select_weight=select_weight),
                   rot.selects_per_word)
            if key < best_key:
                best, best_key = rot, key
            if bits > 2 and key[0] <= reached:  # at the ideal: no later candidate is cheaper
                return best
    return best
