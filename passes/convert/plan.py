"""Planning a register ↔ register conversion (``regcopy.copy`` between two ``local`` tiles).

Pure functions over layouts (no xDSL). Both sides are sliced to their regions; element ``l``
of the region (row-major over the sizes) lives, on each side, at the *places*
``(thread, slot)`` its layout gives: ``thread`` is the scope-local index
``sum(value_a * unit(a))`` of its thread-axis values (every replica's, for a replicated
layout), ``slot`` its register slot. The conversion must give every destination place the
value of one source place of the same element. ``classify`` picks the cheapest movement:

* **renaming** — every destination place has a source place in its own thread, at a slot
  that does not depend on the thread: register moves, no instruction after compilation;
* **shuffles** — every destination place has a source place in its own warp, the warps all
  move the same way: rounds of one ``shfl.sync.idx`` per 32-bit word (16/8-bit elements
  packed ``32 / bits`` to a word), each lane pulling from one lane and each lane sending one
  word per round (``schedule``), lane-dependent choices done by selects on per-lane masks;
* **shared** — anything else (or shuffles that cost more than the round trip): a scratch
  ``shared.dyn`` tile written in the source layout and read in the destination layout.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import Enum
from functools import cached_property, lru_cache
from typing import Any

from regcopy_passes.convert.butterfly import Butterfly, recv_butterfly, send_butterfly

from regcopy_dialect.layout import THREAD_AXES, WARP, Sliced, replica_shifts

Place = tuple[int, int]
"""``(scope-local thread, register slot)``."""

SHUFFLE_COST = 1.0
"""A ``shfl.sync`` against a shared wavefront: one instruction through the same unit."""

SELECT_COST = 0.25
"""A 32-bit select, in shuffles (the integer pipe's weight the bank model measured)."""

BARRIER_COST = 4.0
"""A ``__syncthreads()`` of the round trip, in shuffles (a barrier waits for the slowest warp)."""

ACCESS_COST = 4.0
"""One 16-byte shared store or load of the round trip, in shuffles. Calibrated on the H200
(``bench_convert``, one process): an m16n8 f32 accumulator -> rows conversion by 16 shuffles
and 64 selects ran at 1.27x the round trip's speed (bf16: 8 and 32, 1.44x), a 32 x 32 f32
transpose within a warp by 31 shuffles and 320 selects at 0.43x; a cost of 1 an access (a
wavefront) sent all three through shared memory, 4 an access sends each to the faster form."""


class ConvertError(ValueError):
    """A pair of layouts that cannot be converted (the message says why)."""


class Kind(Enum):
    RENAME = "renaming"
    SHUFFLE = "warp shuffles"
    SHARED = "shared round trip"


def places(sliced: Sliced, scope_threads: int) -> list[list[Place]]:
    """Every element's places (all replicas, the representative first), from the sliced
    layout: ``ConvertError`` when an owner lies outside the scope's threads."""
    lay = sliced.layout
    pinned = dict(sliced.thread_base)
    shifts = replica_shifts(lay)
    base = sliced.base.const
    out: list[list[Place]] = []
    for index in range(lay.size):
        axes, slot = lay.apply(index)
        mine: list[Place] = []
        for shift in shifts:
            names = set(axes) | set(pinned) | set(shift)
            t = sum((axes.get(a, 0) + pinned.get(a, 0) + shift.get(a, 0))
                    * THREAD_AXES[a].unit for a in names)
            if not 0 <= t < scope_threads:
                raise ConvertError(f"layout {lay} puts element {index} on thread {t}, outside "
                                   f"the scope's {scope_threads} threads")
            mine.append((t, base + slot))
        out.append(mine)
    return out


def check_injective(side: str, where: list[list[Place]]) -> None:
    """No two elements at one place (a layout that overlaps its own axes)."""
    seen: dict[Place, int] = {}
    for index, ps in enumerate(where):
        for p in ps:
            if p in seen and seen[p] != index:
                raise ConvertError(f"{side} layout puts elements {seen[p]} and {index} in "
                                   f"register slot {p[1]} of thread {p[0]}")
            seen[p] = index


@dataclass(frozen=True)
class Delivery:
    """Destination unit ``unit`` of ``lane`` takes source unit ``src_unit`` of ``src_lane``."""

    lane: int
    unit: int
    src_lane: int
    src_unit: int


@dataclass(frozen=True)
class Round:
    """One shuffle round: lane ``t`` pulls from ``source[t]`` the word its sender offers,
    ``send[p]`` the source unit lane ``p`` offers, ``recv[t]`` the destination unit lane ``t``
    fills (None: nothing). ``local``: every pulling lane pulls from itself (no shuffle)."""

    source: tuple[int, ...]
    send: tuple[int, ...]
    recv: tuple[int | None, ...]

    @property
    def local(self) -> bool:
        return all(r is None or s == t for t, (s, r) in enumerate(zip(self.source, self.recv)))


@dataclass(frozen=True)
class ShufflePlan:
    """The moves of a warp-shuffle (or renaming) conversion, in units of ``per_unit``
    elements (one 32-bit word; 1 for 32-bit elements): ``moves`` are the renamed units
    ``(dst unit, src unit)``; ``rounds`` the scheduled ones."""

    per_unit: int
    moves: tuple[tuple[int, int], ...]
    rounds: tuple[Round, ...]
    lanes: int = WARP
    src_units: int = 0
    dst_units: int = 0
    """Words of each tile's register storage (for the butterflies)."""

    @property
    def shuffles(self) -> int:
        return sum(not r.local for r in self.rounds)

    @cached_property
    def send_butterfly(self) -> tuple[Butterfly, tuple[int, ...]] | None:
        """The sending side as one butterfly (``convert_butterfly``), where it exists and
        takes fewer selects than a chain per round."""
        bf = send_butterfly(self.rounds, self.src_units) if self.lanes == WARP else None
        chains = sum(len(set(r.send)) - 1 for r in self.rounds)
        return bf if bf is not None and bf[0].selects < chains else None

    @cached_property
    def recv_butterfly(self) -> tuple[Butterfly, tuple[int, ...]] | None:
        """The receiving side as one butterfly, where it exists and takes fewer selects."""
        bf = recv_butterfly(self.rounds, self.dst_units) if self.lanes == WARP else None
        chains = sum(len(f) - 1 + self.keeps_old(f) for f in self.receivers().values())
        return bf if bf is not None and bf[0].selects < chains else None

    @property
    def send_selects(self) -> int:
        if self.send_butterfly is not None:
            return self.send_butterfly[0].selects
        return sum(len(set(r.send)) - 1 for r in self.rounds)

    def receivers(self) -> dict[int, list[tuple[int, tuple[int, ...]]]]:
        """Per destination unit: the rounds that fill it, each with the lanes it fills."""
        out: dict[int, list[tuple[int, tuple[int, ...]]]] = {}
        for k, r in enumerate(self.rounds):
            by_unit: dict[int, list[int]] = {}
            for t, u in enumerate(r.recv):
                if u is not None:
                    by_unit.setdefault(u, []).append(t)
            for u, lanes in by_unit.items():
                out.setdefault(u, []).append((k, tuple(lanes)))
        return out

    def keeps_old(self, fills: list[tuple[int, tuple[int, ...]]]) -> bool:
        """Whether some lane receives the unit in none of ``fills`` (it keeps its word)."""
        return not {t for _, ls in fills for t in ls} >= set(range(self.lanes))

    @property
    def recv_selects(self) -> int:
        if self.recv_butterfly is not None:
            return self.recv_butterfly[0].selects
        return sum(len(f) - 1 + self.keeps_old(f) for f in self.receivers().values())

    @property
    def selects(self) -> int:
        return self.send_selects + self.recv_selects


@dataclass(frozen=True)
class ConvertPlan:
    """What ``classify`` chose: the kind, its shuffle plan (renaming and shuffles), why the
    cheaper kinds did not apply, the ideal shuffle count and the element bytes."""

    kind: Kind
    shuffle: ShufflePlan | None
    why_not: tuple[str, ...]
    ideal_shuffles: int
    moved_bytes: int

    def describe(self) -> str:
        if self.kind is Kind.RENAME:
            assert self.shuffle is not None
            return (f"conversion by {self.kind.value}: {len(self.shuffle.moves)} register "
                    "moves, no shuffle, no shared memory")
        if self.kind is Kind.SHUFFLE:
            assert self.shuffle is not None
            sp = self.shuffle
            return (f"conversion by {self.kind.value}: {sp.shuffles} shfl.sync per thread "
                    f"(ideal {self.ideal_shuffles}), {sp.selects} selects ({sp.send_selects} "
                    f"to send, {sp.recv_selects} to receive), {len(sp.moves)} register moves, "
                    "no shared memory")
        return f"conversion by {self.kind.value}"


def _choose_source(dst: Place, sources: list[Place]) -> Place:
    """The source place a destination place reads: its own thread's if any, else one in its
    warp, else the representative."""
    for p in sources:
        if p[0] == dst[0]:
            return p
    for p in sources:
        if p[0] // WARP == dst[0] // WARP:
            return p
    return sources[0]


def pairs(src: list[list[Place]], dst: list[list[Place]]) -> list[tuple[Place, Place]]:
    """``(destination place, source place)`` for every destination place."""
    return [(d, _choose_source(d, s)) for s, ds in zip(src, dst, strict=True) for d in ds]


def units(moves: list[tuple[Place, Place]], per_unit: int) -> list[Delivery] | None:
    """Group element moves into word moves of ``per_unit`` consecutive slots; None when some
    word's elements do not come from one aligned source word in the same order, or a word
    is only partly delivered (writing it whole would clobber its other slots)."""
    by_dst: dict[tuple[int, int], tuple[int, int]] = {}
    count: Counter[tuple[int, int]] = Counter()
    for (t, j), (p, s) in moves:
        if j % per_unit != s % per_unit:
            return None
        key, value = (t, j // per_unit), (p, s // per_unit)
        count[key] += 1
        if by_dst.setdefault(key, value) != value:
            return None
    if any(n != per_unit for n in count.values()):
        return None
    return [Delivery(t, u, p, su) for (t, u), (p, su) in sorted(by_dst.items())]


def warp_pattern(deliveries: list[Delivery], threads: int) -> list[Delivery] | None:
    """The deliveries of warp 0, lane-local, when every warp of the scope moves alike and
    within itself; None otherwise."""
    by_warp: dict[int, set[tuple[int, int, int, int]]] = {}
    for d in deliveries:
        w = d.lane // WARP
        if d.src_lane // WARP != w:
            return None
        by_warp.setdefault(w, set()).add((d.lane % WARP, d.unit, d.src_lane % WARP,
                                          d.src_unit))
    patterns = list(by_warp.values())
    if any(p != patterns[0] for p in patterns) or len(patterns) != max(1, threads // WARP):
        return None
    return [Delivery(*x) for x in sorted(patterns[0])]


def schedule(deliveries: list[Delivery], per_unit: int = 1, lanes: int = WARP
             ) -> ShufflePlan:
    """Renamed units first: a destination unit that every one of the ``lanes`` takes from
    its own registers at one source unit is a register move. The rest are scheduled greedily in rounds: each
    lane takes its first pending unit (lowest destination unit first) whose sender is free
    or already offers that source unit (a lane offers one word per round)."""
    by_unit: dict[int, set[tuple[bool, int]]] = {}
    takers: dict[int, set[int]] = {}
    for d in deliveries:
        by_unit.setdefault(d.unit, set()).add((d.src_lane == d.lane, d.src_unit))
        takers.setdefault(d.unit, set()).add(d.lane)
    moves = {u: next(iter(v))[1] for u, v in by_unit.items()
             if len(v) == 1 and next(iter(v))[0] and len(takers[u]) == lanes}
    plans = [_greedy(deliveries, moves, order, per_unit, lanes) for order in ORDERS]
    return min(plans, key=lambda p: (p.shuffles, p.selects))


ORDERS = (lambda d: d.unit, lambda d: (d.src_unit, d.unit), lambda d: (d.src_lane, d.unit))
"""The orders in which ``schedule`` offers each lane's pending units (it keeps the plan with
the fewest shuffles, then selects)."""


def _greedy(deliveries: list[Delivery], moves: dict[int, int], order: Any, per_unit: int,
            lanes: int) -> ShufflePlan:
    pending: dict[int, list[Delivery]] = {}
    for d in sorted(deliveries, key=order):
        if d.unit not in moves:
            pending.setdefault(d.lane, []).append(d)
    rounds: list[Round] = []
    while any(pending.values()):
        offers: dict[int, int] = {}
        source = list(range(WARP))
        recv: list[int | None] = [None] * WARP
        for lane in range(WARP):
            for d in pending.get(lane, []):
                if offers.get(d.src_lane, d.src_unit) == d.src_unit:
                    offers[d.src_lane] = d.src_unit
                    source[lane], recv[lane] = d.src_lane, d.unit
                    pending[lane].remove(d)
                    break
        common = Counter(offers.values()).most_common(1)[0][0]
        send = tuple(offers.get(p, common) for p in range(WARP))
        rounds.append(Round(tuple(source), send, tuple(recv)))
    return ShufflePlan(per_unit, tuple(sorted(moves.items())), tuple(rounds), lanes)


def ideal_shuffles(deliveries: list[Delivery]) -> int:
    """A lower bound on shuffle rounds: the most words one lane must receive from others."""
    per_lane = Counter(d.lane for d in deliveries if d.src_lane != d.lane)
    return max(per_lane.values(), default=0)


def shared_cost(bytes_per_thread: int) -> float:
    """The round trip, per thread, in shuffles: a store and a load of each 16-byte chunk
    (``ACCESS_COST`` each) and the barrier."""
    chunks = -(-bytes_per_thread // 16)
    return 2 * chunks * ACCESS_COST + BARRIER_COST


@lru_cache(maxsize=256)
def classify(src: Sliced, dst: Sliced, scope_threads: int, element_bits: int,
             force: str = "auto", spans: tuple[int, int] = (0, 0)) -> ConvertPlan:
    """The conversion's kind and plan (module doc). ``force``: ``auto`` (cheapest),
    ``shuffle`` (shuffles or renaming where they apply) or ``shared`` (always the round
    trip). ``spans``: both tiles' register slots per thread (a packed word must not reach
    past them). Pure in its arguments, so memoized: a module's alike conversions (f16 and bf16
    kernels, one conversion per accumulator) are planned once."""
    try:
        src_places = places(src, scope_threads)
    except ConvertError as e:
        raise ConvertError(f"source {e}") from None
    try:
        dst_places = places(dst, scope_threads)
    except ConvertError as e:
        raise ConvertError(f"destination {e}") from None
    check_injective("source", src_places)
    check_injective("destination", dst_places)
    moves = pairs(src_places, dst_places)
    per_thread = Counter(d[0] for d, _ in moves)
    moved_bytes = max(per_thread.values(), default=0) * element_bits // 8
    why: list[str] = []
    if force == "shared":
        return ConvertPlan(Kind.SHARED, None, ("conversion=shared",), 0, moved_bytes)
    if any(d[0] // WARP != s[0] // WARP for d, s in moves):
        why.append("elements move between warps")
        return ConvertPlan(Kind.SHARED, None, tuple(why), 0, moved_bytes)
    per_unit = 32 // element_bits if element_bits < 32 else 1
    deliveries: list[Delivery] | None = None
    if element_bits > 32:
        why.append(f"{element_bits}-bit elements are not shuffled (two words each)")
    elif any(span % per_unit for span in spans):
        why.append(f"a tile's {spans} register slots are not whole 32-bit words")
    else:
        deliveries = units(moves, per_unit)
        if deliveries is None:
            why.append(f"{element_bits}-bit elements do not pack into whole 32-bit words "
                       "alike on both sides")
    lanes = min(scope_threads, WARP)
    pattern = warp_pattern(deliveries, scope_threads) if deliveries is not None else None
    if deliveries is not None and pattern is None:
        why.append("the warps of the scope move their elements differently")
    if pattern is None:
        return ConvertPlan(Kind.SHARED, None, tuple(why), 0, moved_bytes)
    sp = replace(schedule(pattern, per_unit, lanes), src_units=spans[0] // per_unit,
                 dst_units=spans[1] // per_unit)
    ideal = ideal_shuffles(pattern)
    if not sp.rounds:
        return ConvertPlan(Kind.RENAME, sp, (), 0, moved_bytes)
    cost = sp.shuffles * SHUFFLE_COST + sp.selects * SELECT_COST
    if force == "auto" and cost > shared_cost(moved_bytes):
        why.append(f"shuffles would cost {cost:g} ({sp.shuffles} shfl.sync + "
                   f"{sp.selects} selects x {SELECT_COST}), the round trip "
                   f"{shared_cost(moved_bytes):g}")
        return ConvertPlan(Kind.SHARED, None, tuple(why), ideal, moved_bytes)
    return ConvertPlan(Kind.SHUFFLE, sp, tuple(why), ideal, moved_bytes)


def lane_set_mask(lanes: Sequence[int]) -> int:
    """The 32-bit mask with bit ``t`` set for each lane ``t``."""
    mask = 0
    for t in lanes:
        mask |= 1 << t
    return mask


def xor_form(values: Sequence[int | None]) -> int | None:
    """``c`` when ``values[t] == t ^ c`` for every lane given (None entries: any), else
    None."""
    known = [(t, v) for t, v in enumerate(values) if v is not None]
    if not known:
        return 0
    c = known[0][0] ^ known[0][1]
    return c if all(v == t ^ c for t, v in known) else None


def source_bits(source: Sequence[int], recv: Sequence[int | None]) -> tuple[int, ...]:
    """Per bit ``k`` of the source lane, the mask of lanes whose source has bit ``k``
    (lanes that receive nothing pull from themselves)."""
    lanes = [s if r is not None else t for t, (s, r) in enumerate(zip(source, recv))]
    return tuple(lane_set_mask([t for t, s in enumerate(lanes) if s >> k & 1])
                 for k in range(5))


