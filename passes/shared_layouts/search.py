"""The search of ``choose-shared-layouts``: conflict-free XOR bases from the lanes' addresses.

Pure functions on integers, no IR. A shared access instruction is served in lane groups
(``banks.lane_groups``); two lanes of a group whose ``A``-byte accesses (aligned) lie in
different ``A``-byte blocks of one bank slot are served one after the other. For byte
addresses ``a``, ``a'`` and ``g = log2(max(A, 4))`` that is::

    conflict(a ^ a', A)  <=>  (a ^ a') >> g != 0  and  ((a ^ a') >> g) mod (128 / 2^g) == 0

(the lanes differ above the access but not in the bank bits ``[g, 7)``), a property of the
XOR difference alone. An XOR swizzle ``F`` (``xor_map``) is linear over GF(2):
``phys(x) ^ phys(x') = δ ^ F(δ)`` for ``δ = x ^ x'``. So the lanes of every lane group of
every copy give a small set of differences ``(δ, A)`` (``Constraint``), and a swizzle is
conflict-free for all of them iff ``δ ^ F(δ)`` is no conflict for each.

``solve_bases`` constructs ``F`` column by column: the *source* bits (offset bits at or above
one 128-byte bank line that some ``δ`` sets) each get a *target* mask over the bank bits of
the widest access (``[log2(W), 7)`` in bytes: 16-byte chunks stay whole, so 128-bit vectors
and ld/stmatrix rows keep their width), by depth-first search with each constraint checked
as soon as its source bits are all assigned. Masks are tried lowest first after 0, which
finds ``swizzle<M,B,S>``'s diagonal when it works. Every base flips only lower bits, so the
result is a bijection (``xor_map``). The caller verifies the winner with the bank model.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from regcopy_dialect.layout import Iter, Layout, Swizzle
from regcopy_dialect.radix import suffix_product
from regcopy_dialect.xor_map import XorMap, XorSwizzle

LINE_BYTES = 128
"""One wavefront: 32 banks of 4 bytes."""

MAX_NODES = 20_000
"""Search nodes before ``solve_bases`` gives up on proving a conflict-free map (then the
best map found greedily is returned)."""


@dataclass(frozen=True)
class Constraint:
    """Two lanes of one lane group: ``delta`` the XOR of their element offsets, ``access``
    the bytes each moves."""

    delta: int
    access: int


def _log2(x: int) -> int:
    return x.bit_length() - 1


def conflicts(delta_bytes: int, access: int) -> bool:
    """Whether two aligned ``access``-byte accesses whose byte addresses differ by the XOR
    ``delta_bytes`` hit different blocks of one bank slot (see module doc)."""
    g = _log2(max(access, 4))
    blocks = delta_bytes >> g
    return blocks != 0 and blocks % (LINE_BYTES >> g) == 0


def constraints(groups: Iterable[Sequence[int]], access: int) -> set[Constraint]:
    """The differences of every pair of lanes in each group (element offsets; lanes that
    touch the same address are a broadcast and give no constraint)."""
    out: set[Constraint] = set()
    for offsets in groups:
        distinct = sorted(set(offsets))
        for i, x in enumerate(distinct):
            for y in distinct[i + 1:]:
                out.add(Constraint(x ^ y, access))
    return out


def image(delta: int, bases: dict[int, int]) -> int:
    """``δ ^ F(δ)``: ``δ`` XOR the bases of its set source bits."""
    out = delta
    for bit, mask in bases.items():
        if delta >> bit & 1:
            out ^= mask
    return out


def violations(cons: Iterable[Constraint], bases: dict[int, int], element_bytes: int) -> int:
    """How many constraints conflict under ``bases``."""
    return sum(conflicts(image(c.delta, bases) * element_bytes, c.access) for c in cons)


def target_bits(element_bytes: int, widest: int) -> tuple[int, int]:
    """``[lo, hi)``: the element-offset bits a base may flip, the bank bits above the widest
    access of ``widest`` bytes (at least a 4-byte word)."""
    lo = _log2(max(widest, 4) // element_bytes) if max(widest, 4) >= element_bytes else 0
    return lo, _log2(LINE_BYTES // element_bytes)


def solve_bases(cons: set[Constraint], element_bytes: int, widest: int
                ) -> tuple[dict[int, int], int]:
    """XOR bases (``{source bit: mask}``) for ``cons`` and how many constraints they still
    break (0: conflict-free). See the module doc for the search."""
    lo, hi = target_bits(element_bytes, widest)
    masks = [0] + [m << lo for m in range(1, 1 << (hi - lo))]
    sources = sorted({b for c in cons for b in range(hi, c.delta.bit_length())
                      if c.delta >> b & 1})
    last = {s: i for i, s in enumerate(sources)}
    due: list[list[Constraint]] = [[] for _ in sources]
    for c in cons:  # a difference inside one line is beyond any swizzle's reach: skipped
        if top := [b for b in sources if c.delta >> b & 1]:
            due[max(last[b] for b in top)].append(c)
    nodes = 0
    bases: dict[int, int] = {}

    def dfs(k: int) -> bool:
        nonlocal nodes
        if k == len(sources):
            return True
        for m in masks:
            nodes += 1
            if nodes > MAX_NODES:
                return False
            bases[sources[k]] = m
            if not violations(due[k], bases, element_bytes) and dfs(k + 1):
                return True
        del bases[sources[k]]
        return False

    if dfs(0):
        return {b: m for b, m in bases.items() if m}, 0
    return _greedy(sources, masks, due, element_bytes)


def _greedy(sources: Sequence[int], masks: Sequence[int], due: Sequence[list[Constraint]],
            element_bytes: int) -> tuple[dict[int, int], int]:
    """Each source bit in turn takes the mask that breaks fewest of its due constraints."""
    bases: dict[int, int] = {}
    broken = 0
    for k, s in enumerate(sources):
        best = min(masks, key=lambda m: violations(due[k], {**bases, s: m}, element_bytes))
        bases[s] = best
        broken += violations(due[k], bases, element_bytes)
    return {b: m for b, m in bases.items() if m}, broken


def as_swizzle(bases: dict[int, int]) -> XorMap | None:
    """The map of ``bases``: None when empty, ``swizzle<M,B,S>`` when it is one, else
    ``xor<...>``."""
    if not bases:
        return None
    general = XorSwizzle(tuple(sorted(bases.items())))
    fields = general.fields
    if len(fields) == 1 and fields[0].src - fields[0].dst >= fields[0].width:
        f = fields[0]
        sw = Swizzle(f.dst, f.width, f.src - f.dst)
        if sw.bases == general.bases:
            return sw
    return general


def row_major(shape: Sequence[int], pitch_pad: int = 0, swizzle: XorMap | None = None
              ) -> Layout:
    """Row-major over ``shape``, the innermost rows ``pitch_pad`` elements apart beyond
    their length (a padded pitch), with ``swizzle``."""
    extents = list(shape)
    if pitch_pad and len(extents) >= 2:
        inner = extents[-1] + pitch_pad
        strides = [*suffix_product([*extents[:-1], inner])[:-1], 1]
    else:
        strides = list(suffix_product(extents))
    return Layout(tuple(Iter(e, s) for e, s in zip(extents, strides, strict=True)), swizzle)


def padded_pitches(shape: Sequence[int], element_bytes: int) -> list[int]:
    """Pitch pads to try (elements): 4, 8 and 16 bytes past each row, where a row exists."""
    if len(shape) < 2 or shape[-2] == 1:
        return []
    return sorted({b // element_bytes for b in (4, 8, 16) if b >= element_bytes})


@dataclass(frozen=True)
class CopyScore:
    """What a candidate layout gives one copy: its transfer's width in bits (ld/stmatrix
    count as 128), wavefronts and ideal (one warp, all rounds), instructions a warp."""

    width: int
    wavefronts: int
    ideal: int
    instructions: int
    transfer: str = ""
    """The transfer, e.g. ``vec 4 × f32 (128 bits)`` or ``ldmatrix.x4``."""

    def describe(self) -> str:
        """``<transfer>: no bank conflict: W wavefronts, ideal W`` (or ``N-way ...``)."""
        head = f"{self.transfer}: " if self.transfer else ""
        if self.wavefronts <= self.ideal:
            return f"{head}no bank conflict: {self.wavefronts} wavefronts, ideal {self.ideal}"
        ways = self.wavefronts / self.ideal if self.ideal else 1
        return (f"{head}{ways:g}-way bank conflict: {self.wavefronts} wavefronts, ideal "
                f"{self.ideal}")


def rank_key(scores: Sequence[CopyScore | None], span: int, layout: Layout
             ) -> tuple[int, int, int, int, int]:
    """Widest transfers first, then fewest wavefronts, then fewest instructions, then least
    memory, then the simplest swizzle (a copy that no candidate lowers is None: width 0)."""
    width = sum(s.width for s in scores if s is not None)
    waves = sum(s.wavefronts for s in scores if s is not None)
    instrs = sum(s.instructions for s in scores if s is not None)
    sw = layout.swizzle
    return (-width, waves, instrs, span, 0 if sw is None else len(sw.bases))
