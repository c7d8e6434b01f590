"""Lane-dependent XOR permutations of a thread's words, for the shuffle rounds of a conversion.

A shuffle round needs each lane to offer one word and to file the word it receives. Where the
word a lane offers in round ``k`` is ``base_k ^ x(lane)`` with ``x`` XOR-linear in the lane
(``x(p) = XOR of x(2^i) over the set bits i of p``), the lane can permute its words once,
``v[u] = src[u ^ x(lane)]``, and then offer ``v[base_k]`` in round ``k``: a *butterfly* of one
select per word and per bit that ``x`` can set (stage ``c``: ``v[u] = bit c of x(lane) ?
v[u ^ 2^c] : v[u]``), instead of a chain of selects per round. The receiving side is the same
permutation backwards: where lane ``t`` files round ``k``'s word as destination word
``base_k ^ y(t)``, the rounds' words, indexed by ``base_k``, go through the butterfly of
``y``. ``send_butterfly``/``recv_butterfly`` find ``x``/``y`` from a schedule's rounds, or
say there is none (the chains of selects stay).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

LANES = 32


class RoundLike(Protocol):
    @property
    def source(self) -> tuple[int, ...]: ...

    @property
    def send(self) -> tuple[int, ...]: ...

    @property
    def recv(self) -> tuple[int | None, ...]: ...


@dataclass(frozen=True)
class Butterfly:
    """``v[u] = w[u ^ x(lane)]`` over ``units`` words (a power of two): ``stages`` are
    ``(bit c, mask of the lanes whose x has bit c)``; one select per word and stage."""

    units: int
    stages: tuple[tuple[int, int], ...]

    @property
    def selects(self) -> int:
        return self.units * len(self.stages)


def _power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def linear_fill(known: dict[int, int]) -> list[int] | None:
    """The XOR-linear ``x`` over 32 lanes (``x(0) = 0``) that agrees with ``known``, or None.
    ``x(2^i)`` is taken from ``known`` where given, else from a known lane whose other bits'
    images are known; unknown images are 0."""
    if known.get(0, 0) != 0:
        return None
    basis = [known.get(1 << i) for i in range(5)]
    for lane, value in sorted(known.items()):
        missing = [i for i in range(5) if lane >> i & 1 and basis[i] is None]
        if len(missing) == 1:
            rest = 0
            for i in range(5):
                if lane >> i & 1 and i != missing[0]:
                    rest ^= basis[i] or 0
            basis[missing[0]] = value ^ rest
    images = [b or 0 for b in basis]
    full = []
    for lane in range(LANES):
        x = 0
        for i in range(5):
            if lane >> i & 1:
                x ^= images[i]
        full.append(x)
    return full if all(full[p] == v for p, v in known.items()) else None


def _stages(x: Sequence[int], units: int) -> tuple[tuple[int, int], ...]:
    stages = []
    for c in range(units.bit_length() - 1):
        mask = sum(1 << t for t, v in enumerate(x) if v >> c & 1)
        if mask:
            stages.append((c, mask))
    return tuple(stages)


def send_butterfly(rounds: Sequence[RoundLike], units: int
                   ) -> tuple[Butterfly, tuple[int, ...]] | None:
    """``(butterfly of x, base_k per round)`` where every lane that someone pulls from in
    round ``k`` offers ``base_k ^ x(lane)``; None where no XOR-linear ``x`` does."""
    if not _power_of_two(units):
        return None
    pulled = [{s for t, (s, r) in enumerate(zip(rd.source, rd.recv)) if r is not None}
              for rd in rounds]
    known: dict[int, int] = {}
    for rd, ps in zip(rounds, pulled):
        if 0 in ps:
            for p in ps:
                if known.setdefault(p, rd.send[p] ^ rd.send[0]) != rd.send[p] ^ rd.send[0]:
                    return None
    x = linear_fill(known)
    if x is None:
        return None
    bases = []
    for rd, ps in zip(rounds, pulled):
        offered = {rd.send[p] ^ x[p] for p in ps}
        if len(offered) > 1 or any(b >= units for b in offered):
            return None
        bases.append(offered.pop() if offered else 0)
    if any(v >= units for v in x):
        return None
    return Butterfly(units, _stages(x, units)), tuple(bases)


def recv_butterfly(rounds: Sequence[RoundLike], units: int
                   ) -> tuple[Butterfly, tuple[int, ...]] | None:
    """``(butterfly of y, base_k per round)`` where every lane receives in every round, lane
    ``t`` filing round ``k``'s word as destination word ``base_k ^ y(t)``, the ``base_k``
    covering the ``units`` destination words once; None otherwise."""
    if not _power_of_two(units) or len(rounds) != units or \
            any(r is None for rd in rounds for r in rd.recv):
        return None
    bases = tuple(rd.recv[0] for rd in rounds)
    if sorted(b for b in bases if b is not None) != list(range(units)):
        return None
    known = {t: (rd.recv[t] or 0) ^ (rd.recv[0] or 0) for rd in rounds[:1] for t in range(LANES)}
    y = linear_fill(known)
    if y is None or any((rd.recv[t] or 0) != (rd.recv[0] or 0) ^ y[t]
                        for rd in rounds for t in range(LANES)):
        return None
    return Butterfly(units, _stages(y, units)), tuple(b or 0 for b in bases)
