"""``wgmma.mma_async`` operands as layouts: the warpgroup's register fragments and the shared
matrix descriptors. Pure Python, no xDSL imports (like ``layout`` and ``mma_fragments``).

**Register fragments.** ``wgmma.m64nNk16`` is four ``mma.sync`` m16 fragments stacked along M,
one per warp of the warpgroup (``w = wid_in_wg``): element ``i`` of thread ``32 w + l`` is

* accumulator C (``64 x N``, ``N / 2`` elements): the m16n8 C cell of element ``i % 4`` of lane
  ``l`` (``mma_fragments.fragment_cell``) moved to row ``16 w +`` and column ``8 (i / 4) +``;
  as a layout ``(4,2,8,N/8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)``;
* A from registers (``64 x 16``, 8 elements): the m16n8k16 A cell of lane ``l``, row ``16 w +``;
  ``(4,2,8,2,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)``.

``match_warpgroup`` checks a register tile of any multiple of the instruction tile against
these cells (in any register order, as ``mma_fragments.match_fragments`` does for a warp).

**Matrix descriptors.** A shared operand is read through a 64-bit descriptor: start address,
leading and stride byte offsets (LBO, SBO) and a swizzle mode (none, 32, 64, 128 bytes: the
same byte-address XOR as TMA's modes). The PTX ISA fixes the *canonical* layouts a descriptor
can describe; for 16-bit elements (``T = 8`` elements = 16 bytes), ``W`` the swizzle width in
bytes, the byte offset of cell (``mn``, ``k``) of one ``k16`` instruction tile, before the
swizzle, is (``canonical_offset``):

* K-major, no swizzle: ``(mn % 8) 16 + (mn / 8) SBO + (k % 8) 2 + (k / 8) LBO``;
* K-major, swizzled: ``(mn % 8) W + (mn / 8) SBO + 2 k`` (LBO unused: set to 16);
* MN-major, no swizzle: ``2 (mn % 8) + (mn / 8) SBO + 16 (k % 8) + (k / 8) LBO``;
* MN-major, swizzled: ``2 (mn % (W/2)) + (mn / (W/2)) LBO + W (k % 8) + (k / 8) SBO``.

``derive_descriptor`` reads LBO and SBO off a shared region's layout and checks every cell
against that formula; the swizzle then comes from the layout's own swizzle, which must be
one of the byte swizzles above (``tma_plan.swizzle_mode``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import lru_cache

from regcopy_dialect.layout import WARP, Iter, Layout, Swizzle
from regcopy_dialect.mma_fragments import M16N8K16, M16N8K32, Operand, fragment_cell

WARPGROUP = 128
M = 64
K = 16
"""The K of one instruction for 16-bit inputs (``k_step``: 32 for 8-bit ones)."""


PTX_TYPES = {"f16": "f16", "bf16": "bf16", "f8E4M3FN": "e4m3", "f8E5M2": "e5m2"}
"""regcopy element type -> the PTX type of a wgmma A/B operand."""


def mnemonic(n: int, a: str, b: str) -> str:
    """``wgmma.mma_async.sync.aligned.m64n<N>k<K>.f32.<a>.<b>`` for regcopy element types."""
    ks = 16 if a in ("f16", "bf16") else 32
    return f"wgmma.mma_async.sync.aligned.m64n{n}k{ks}.f32.{PTX_TYPES[a]}.{PTX_TYPES[b]}"


def k_step(bits: int) -> int:
    """The K of one ``wgmma`` for ``bits``-bit A/B elements: 32 bytes of K (k16, k32)."""
    return 256 // bits
N_VALUES = tuple(range(8, 257, 8))
"""The N of ``wgmma.m64nNk16`` for f16/bf16 inputs."""

Cell = Callable[[int, int], tuple[int, int]]
"""``(thread in warpgroup, fragment element) -> (row, column)`` of an instruction tile."""


class WgmmaMismatch(ValueError):
    """A register tile that is not a tile of wgmma fragments (one line)."""


def accumulator_cell(thread: int, i: int) -> tuple[int, int]:
    """``(row, column)`` in the ``64 x N`` accumulator of element ``i`` of ``thread``."""
    w, lane = divmod(thread, WARP)
    r, c = fragment_cell(M16N8K16, Operand.C, lane, i % 4)
    return 16 * w + r, 8 * (i // 4) + c


def a_cell(thread: int, i: int, bits: int = 16) -> tuple[int, int]:
    """``(row, column)`` in the ``64 x k_step(bits)`` A tile of element ``i`` of ``thread``
    (mma.sync's m16n8k16 A fragment for 16-bit elements, m16n8k32 for 8-bit ones)."""
    w, lane = divmod(thread, WARP)
    r, c = fragment_cell(M16N8K16 if bits == 16 else M16N8K32, Operand.A, lane, i)
    return 16 * w + r, c


def a_fragment_text(bits: int) -> str:
    """The A fragment of one instruction as layout text."""
    if bits == 16:
        return fragment_text(16)
    return ("#regcopy.layout<(4,2,8,2,4,4):(1@wid_in_wg,4,4@laneid,8,1@laneid,1)> "
            "on 64x32")


def fragment_text(cols: int) -> str:
    """The ``64 x cols`` fragment (C with N = cols, or A with cols = 16) as layout text."""
    return (f"#regcopy.layout<(4,2,8,{cols // 8},4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)> "
            f"on 64x{cols}")


def _thread(owner: dict[str, int]) -> int:
    units = {"laneid": 1, "wid_in_wg": WARP, "tid_in_wg": 1}
    return sum(v * units[a] for a, v in owner.items())


def match_warpgroup(layout: Layout, tile_shape: Sequence[int], inst: tuple[int, int],
                    cell: Cell, count: int, bits: int) -> tuple[tuple[int, ...], ...]:
    """Match ``layout`` (a register tile of ``tile_shape``, ``bits``-bit elements) against the
    instruction tile ``inst`` whose thread ``t`` holds ``cell(t, i)`` for ``i < count``.
    Returns, per instruction tile along the columns, the register slot of each 32-bit word;
    ``WgmmaMismatch`` with the reason otherwise. Same rule as ``match_fragments``: one slot per
    element shared by all 128 threads, the elements of a word consecutive and aligned.
    A pure function of its arguments, so its answer is cached: the verifier asks again on
    every parse of a kernel."""
    return _match_warpgroup(layout, tuple(tile_shape), inst, cell, count, bits)


@lru_cache(maxsize=1024)
def _match_warpgroup(layout: Layout, tile_shape: tuple[int, ...], inst: tuple[int, int],
                     cell: Cell, count: int, bits: int) -> tuple[tuple[int, ...], ...]:
    rows, cols = tile_shape
    if rows != inst[0] or cols % inst[1]:
        raise WgmmaMismatch(f"the {rows}x{cols} tile is not {inst[0]} x a multiple of "
                            f"{inst[1]}")
    if layout.replicas:
        raise WgmmaMismatch("replicated register tiles are not fragments")
    bad = sorted({str(it.axis) for it in layout.thread_iters
                  if it.axis not in ("laneid", "wid_in_wg", "tid_in_wg")})
    if bad:
        raise WgmmaMismatch(f"a warpgroup's fragment is distributed over laneid and wid_in_wg "
                            f"(or tid_in_wg) only, not {', '.join(bad)}")
    per_word = max(1, 32 // bits)
    tiles = []
    for tc in range(cols // inst[1]):
        slots = []
        for i in range(count):
            slot = None
            for t in range(WARPGROUP):
                r, c = cell(t, i)
                c += tc * inst[1]
                owner, s = layout.apply(r * cols + c)
                if _thread(owner) != t:
                    raise WgmmaMismatch(f"element ({r}, {c}) belongs to thread {t} of the "
                                        f"warpgroup, the layout gives it to thread "
                                        f"{_thread(owner)}")
                if slot is None:
                    slot = s
                elif s != slot:
                    raise WgmmaMismatch(f"fragment element {i} of tile column {tc} is in "
                                        f"register {slot} of thread 0 but {s} of thread {t}")
            assert slot is not None
            slots.append(slot)
        words = []
        for w in range(0, count, per_word):
            first = slots[w]
            if first % per_word or slots[w:w + per_word] != list(range(first,
                                                                       first + per_word)):
                raise WgmmaMismatch(f"fragment elements {w}..{w + per_word - 1} of tile column "
                                    f"{tc} are in registers {slots[w:w + per_word]}, not one "
                                    "32-bit word")
            words.append(first)
        tiles.append(tuple(words))
    return tuple(tiles)


class WgmmaSwizzle(IntEnum):
    """A descriptor's swizzle mode; the value is the width in bytes (0: none)."""

    NONE = 0
    B32 = 32
    B64 = 64
    B128 = 128

    @property
    def layout_type(self) -> int:
        """Descriptor bits 62-63: 0 none, 1 128B, 2 64B, 3 32B."""
        return {0: 0, 128: 1, 64: 2, 32: 3}[int(self)]

    @property
    def period(self) -> int:
        """Bytes of one swizzle atom (8 rows of the width): 256/512/1024; 128 for none."""
        return 128 if self is WgmmaSwizzle.NONE else 8 * int(self)

    def swizzle(self, element_bytes: int) -> Swizzle | None:
        """The regcopy ``swizzle<M,B,S>`` equal to this mode on ``element_bytes`` elements:
        byte bits ``[4, 4+b)`` XOR ``[7, 7+b)`` (``b = log2(W / 16)``)."""
        if self is WgmmaSwizzle.NONE:
            return None
        k = element_bytes.bit_length() - 1
        return Swizzle(4 - k, int(self).bit_length() - 5, 3)

    def __str__(self) -> str:
        return "none" if self is WgmmaSwizzle.NONE else f"{int(self)}B"


def mode_of(swz: object, element_bytes: int) -> WgmmaSwizzle | None:
    """The mode whose byte swizzle is the layout swizzle ``swz`` (None if no mode is)."""
    for mode in WgmmaSwizzle:
        if mode.swizzle(element_bytes) == swz:
            return mode
    return None


@dataclass(frozen=True)
class Descriptor:
    """The layout fields of a wgmma matrix descriptor (bytes; the start address is the
    kernel's)."""

    swizzle: WgmmaSwizzle
    k_major: bool
    lbo: int
    sbo: int

    def encode(self, address: int, base_offset: int = 0) -> int:
        """The 64-bit descriptor: ``(address & 0x3FFFF) >> 4`` in bits 0-13, ``LBO >> 4`` in
        16-29, ``SBO >> 4`` in 32-45, the base offset in 49-51, the layout type in 62-63."""
        return (((address & 0x3FFFF) >> 4) | ((self.lbo >> 4) & 0x3FFF) << 16
                | ((self.sbo >> 4) & 0x3FFF) << 32 | (base_offset & 7) << 49
                | self.swizzle.layout_type << 62)

    @staticmethod
    def decode(value: int, k_major: bool) -> Descriptor:
        """The layout fields of an encoded descriptor (``encode``'s inverse but the address)."""
        value &= (1 << 64) - 1
        mode = {0: WgmmaSwizzle.NONE, 1: WgmmaSwizzle.B128, 2: WgmmaSwizzle.B64,
                3: WgmmaSwizzle.B32}[value >> 62]
        return Descriptor(mode, k_major, (value >> 16 & 0x3FFF) << 4, (value >> 32 & 0x3FFF) << 4)

    def fields(self) -> int:
        """``encode(0)``: the constant part the kernel ORs the address into."""
        return self.encode(0)

    def __str__(self) -> str:
        major = "K-major" if self.k_major else "MN-major"
        return f"{major}, swizzle {self.swizzle}, LBO {self.lbo}, SBO {self.sbo}"


def canonical_offset(d: Descriptor, mn: int, k: int, element_bytes: int = 2) -> int:
    """Byte offset (before the swizzle) of cell ``(mn, k)`` of a ``k16`` instruction tile in
    the PTX ISA's canonical layout of ``d`` (module doc), for 16-bit elements."""
    e, w = element_bytes, int(d.swizzle)
    t = 16 // e  # elements of 16 bytes
    if d.k_major:
        if d.swizzle is WgmmaSwizzle.NONE:
            return (mn % 8) * 16 + (mn // 8) * d.sbo + (k % t) * e + (k // t) * d.lbo
        return (mn % 8) * w + (mn // 8) * d.sbo + k * e
    if d.swizzle is WgmmaSwizzle.NONE:
        return (mn % t) * e + (mn // t) * d.sbo + (k % 8) * 16 + (k // 8) * d.lbo
    per = w // e
    return (mn % per) * e + (mn // per) * d.lbo + (k % 8) * w + (k // 8) * d.sbo


Offset = Callable[[int, int], int]
"""``(mn, k) -> element offset`` (before the swizzle) of a shared operand region."""


def derive_descriptor(offset: Offset, mn_extent: int, k_extent: int, mode: WgmmaSwizzle,
                      element_bytes: int = 2) -> tuple[Descriptor, tuple[int, ...]] | str:
    """The descriptor reading the region ``offset`` (``mn_extent x k_extent``, ``k_extent`` a
    multiple of 16) one ``k16`` step at a time, and each step's start offset in bytes from
    ``offset(0, 0)``; or why none does. Every cell of every step is checked against the
    canonical layout, K-major tried first."""
    e = element_bytes
    ks = k_step(8 * e)
    starts = tuple((offset(0, s) - offset(0, 0)) * e for s in range(0, k_extent, ks))

    def fits(d: Descriptor) -> bool:
        if not (0 < d.lbo < 1 << 18 and 0 < d.sbo < 1 << 18 and d.lbo % 16 == 0
                and d.sbo % 16 == 0):
            return False
        for s, _start in zip(range(0, k_extent, ks), starts, strict=True):
            base = offset(0, s) * e
            for mn in range(mn_extent):
                for k in range(ks):
                    if offset(mn, s + k) * e - base != canonical_offset(d, mn, k, e):
                        return False
        return start_ok(starts)

    def start_ok(st: tuple[int, ...]) -> bool:
        return all(x % 16 == 0 for x in st)

    def probe(mn: int, k: int) -> int:
        within = mn < mn_extent and k < k_extent
        return (offset(mn, k) - offset(0, 0)) * e if within else 16

    t = 16 // e
    w = int(mode)
    if mode is WgmmaSwizzle.NONE:
        tries = [Descriptor(mode, True, probe(0, t), probe(8, 0)),
                 Descriptor(mode, False, probe(0, 8), probe(t, 0))]
    else:
        per = w // e
        tries = [Descriptor(mode, True, 16, probe(8, 0)),
                 Descriptor(mode, False, probe(per, 0) if per < mn_extent else 16,
                            probe(0, 8))]
    for d in tries:
        if fits(d):
            return d, starts
    return (f"the region is neither K-major nor MN-major in wgmma's canonical layout for "
            f"swizzle {mode} (rows of 8 x {w or 16} bytes, 16-byte aligned strides)")


def panel_layout(shape: Sequence[int], element_bytes: int = 2) -> Layout | None:
    """The layout ``auto`` shared buffers read by a wgmma get: the last dim cut into panels of
    the widest swizzle width ``W`` dividing it, each panel ``rows x W`` bytes row-major with
    that swizzle (TMA's and wgmma's common 32/64/128B modes). A region of whole panel rows
    is canonical both K-major (last dim K) and MN-major (last dim M or N)."""
    *lead, rows, cols = shape
    for mode in (WgmmaSwizzle.B128, WgmmaSwizzle.B64, WgmmaSwizzle.B32):
        per = int(mode) // element_bytes
        if cols % per == 0 and rows % 8 == 0:
            iters: list[Iter] = []
            stride = rows * cols
            for e in reversed(lead):
                iters.insert(0, Iter(e, stride))
                stride *= e
            iters += [Iter(rows, per), Iter(cols // per, rows * per), Iter(per, 1)]
            return Layout(tuple(i for i in iters if i.extent > 1), mode.swizzle(element_bytes))
    return None


def suggested_layout(rows: int, cols: int, element_bytes: int = 2) -> str:
    """A legal K-major layout of a ``rows x cols`` (``mn x k``) shared tile: the widest swizzle
    whose rows divide ``cols``, K in panels of that width (row-major when one panel)."""
    for mode in (WgmmaSwizzle.B128, WgmmaSwizzle.B64, WgmmaSwizzle.B32):
        per = int(mode) // element_bytes
        if cols % per == 0 and rows % 8 == 0:
            sw = mode.swizzle(element_bytes)
            if cols == per:
                return f"#regcopy.layout<({rows},{cols}):({cols},1), {sw}>"
            return (f"#regcopy.layout<({rows},{cols // per},{per}):({per},{rows * per},1), "
                    f"{sw}>")
    return f"#regcopy.layout<({rows},{cols}):({cols},1)> (rows of a multiple of 16 bytes)"
