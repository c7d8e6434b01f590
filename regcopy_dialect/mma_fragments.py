"""The PTX ISA's ``mma.sync.aligned`` fragments as layouts, and the match of a register tile's
layout against them: pure Python, no xDSL imports (like ``layout``).

An ``mma.sync`` instruction of shape ``m16nNkK`` multiplies an ``M x K`` tile of A by a ``K x N``
tile of B into an ``M x N`` accumulator C. Each lane of the warp holds a fixed *fragment* of
each operand: element ``i`` of lane ``l``'s fragment is one cell of the instruction tile, with
``g = l / 4`` (the PTX ISA's groupID) and ``c = l % 4`` (threadID_in_group). Register word ``w``
of the operand holds elements ``w * per_word ..`` (``per_word = 32 / bits``; the first is the
low half or byte). The cell of element ``i`` (``fragment_cell``), from the ISA's tables:

* ``m16n8k16`` (f16, bf16): A ``16 x 16``: row ``g + 8 * (i / 2 % 2)``, column
  ``2c + i % 2 + 8 * (i / 4)``; B ``16 x 8``: row (k) ``2c + i % 2 + 8 * (i / 2)``, column g;
* ``m16n8k8`` (tf32): A ``16 x 8``: row ``g + 8 * (i % 2)``, column ``c + 4 * (i / 2)``;
  B ``8 x 8``: row ``c + 4 i``, column g;
* ``m16n8k32`` (8-bit): A ``16 x 32``: row ``g + 8 * (i / 4 % 2)``, column
  ``4c + i % 4 + 16 * (i / 8)``; B ``32 x 8``: row ``4c + i % 4 + 16 * (i / 4)``, column g;
* C/D ``16 x 8`` (every shape, 32-bit or f16 elements): row ``g + 8 * (i / 2)``, column
  ``2c + i % 2``.

B is written ``K x N``; under ``transpose_b`` the register tile is ``N x K`` (K-major, the
``.col`` operand's memory form), so its cell is the transpose.

``fragment_layout`` gives the same rule as a ``Layout`` of the instruction tile (element ``i``
in register slot ``i``), the form an error names. ``match_fragments`` takes the layout of a
register tile of any multiple of the instruction tile and returns, per instruction tile, the
register slot of each of its operand words, or says in one line why the layout is not a
fragment tile. A second tensor-core op (``wgmma``'s register operands) reuses both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from regcopy_dialect.layout import WARP, Iter, Layout


class Operand(Enum):
    A = "A"
    B = "B"
    C = "C"


@dataclass(frozen=True)
class MmaShape:
    """One ``mma.sync`` shape: ``m``, ``n``, ``k`` and the bits of the A/B elements."""

    m: int
    n: int
    k: int
    ab_bits: int

    @property
    def name(self) -> str:
        return f"m{self.m}n{self.n}k{self.k}"


M16N8K16 = MmaShape(16, 8, 16, 16)
M16N8K8 = MmaShape(16, 8, 8, 32)
M16N8K32 = MmaShape(16, 8, 32, 8)
SHAPES = (M16N8K16, M16N8K8, M16N8K32)


class FragmentMismatch(ValueError):
    """A register tile whose layout is not a tile of instruction fragments (one line)."""


def operand_tile(shape: MmaShape, operand: Operand, transpose_b: bool = False
                 ) -> tuple[int, int]:
    """``(rows, columns)`` of the operand's instruction tile as the register tile holds it."""
    if operand is Operand.A:
        return shape.m, shape.k
    if operand is Operand.B:
        return (shape.n, shape.k) if transpose_b else (shape.k, shape.n)
    return shape.m, shape.n


def fragment_elements(shape: MmaShape, operand: Operand) -> int:
    """Elements of one lane's fragment."""
    rows, cols = operand_tile(shape, operand)
    return rows * cols // WARP


def fragment_cell(shape: MmaShape, operand: Operand, lane: int, i: int,
                  transpose_b: bool = False) -> tuple[int, int]:
    """``(row, column)`` in the operand's instruction tile of element ``i`` of ``lane``'s
    fragment (the module doc's table)."""
    g, c = lane // 4, lane % 4
    if operand is Operand.C:
        return g + 8 * (i // 2), 2 * c + i % 2
    if shape == M16N8K16:
        cell = ((g + 8 * (i // 2 % 2), 2 * c + i % 2 + 8 * (i // 4)) if operand is Operand.A
                else (2 * c + i % 2 + 8 * (i // 2), g))
    elif shape == M16N8K8:
        cell = ((g + 8 * (i % 2), c + 4 * (i // 2)) if operand is Operand.A
                else (c + 4 * i, g))
    else:
        cell = ((g + 8 * (i // 4 % 2), 4 * c + i % 4 + 16 * (i // 8)) if operand is Operand.A
                else (4 * c + i % 4 + 16 * (i // 4), g))
    if operand is Operand.B and transpose_b:
        return cell[1], cell[0]
    return cell


def fragment_layout(shape: MmaShape, operand: Operand, transpose_b: bool = False) -> Layout:
    """The operand's fragment as a layout of its instruction tile: the cell of element ``i``
    of lane ``l`` (``fragment_cell``) is owned by ``laneid = l`` in register slot ``i``.

    Rows and columns are split into the ISA's digits (``g``, ``c`` and the element bits),
    outermost first: e.g. m16n8k16 A is ``(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)``."""
    lane = "laneid"
    p = 32 // shape.ab_bits  # A/B elements of one 32-bit word along K
    if operand is Operand.C:
        iters = [Iter(2, 2), Iter(8, 4, lane), Iter(4, 1, lane), Iter(2, 1)]
        return Layout(tuple(iters))
    if operand is Operand.A:
        halves = shape.k // (4 * p)  # K digits above the word: 2 (k16, k32) or 2 (k8)
        iters = [Iter(2, p), Iter(8, 4, lane), Iter(halves, 2 * p), Iter(4, 1, lane)]
        if p > 1:
            iters.append(Iter(p, 1))
        return Layout(tuple(i for i in iters if i.extent > 1))
    k_iters = [Iter(shape.k // (4 * p), p), Iter(4, 1, lane)] + ([Iter(p, 1)] if p > 1 else [])
    n_iter = [Iter(8, 4, lane)]
    iters = n_iter + k_iters if transpose_b else k_iters + n_iter
    return Layout(tuple(iters))


@dataclass(frozen=True)
class FragmentTiles:
    """A register tile matched against an operand's fragment: ``tiles[r][c]`` is the tuple of
    register slots (element offsets in each lane's registers) of the operand words of the
    instruction tile at tile row ``r``, tile column ``c``."""

    tiles: tuple[tuple[tuple[int, ...], ...], ...]

    @property
    def rows(self) -> int:
        return len(self.tiles)

    @property
    def cols(self) -> int:
        return len(self.tiles[0])


def match_fragments(layout: Layout, tile_shape: Sequence[int], shape: MmaShape,
                    operand: Operand, bits: int, transpose_b: bool = False) -> FragmentTiles:
    """Match ``layout`` (of a ``rows x cols`` register tile of ``bits``-bit elements) against
    the operand's fragment; ``FragmentMismatch`` with the reason otherwise.

    The tile must be a multiple of the instruction tile, its only thread axis ``laneid``, and
    for every instruction tile and fragment element ``i``: the cell ``fragment_cell(l, i)`` of
    every lane ``l`` is owned by lane ``l``, at one register slot ``s_i`` shared by all lanes;
    the slots of one word are consecutive (``s_{w p + j} = s_{w p} + j``) and ``s_{w p}`` is a
    multiple of ``p`` (elements a word: the 32-bit view of the registers)."""
    rows, cols = tile_shape
    trows, tcols = operand_tile(shape, operand, transpose_b)
    if rows % trows or cols % tcols:
        raise FragmentMismatch(f"the {rows}x{cols} tile is not a multiple of the "
                               f"{trows}x{tcols} instruction tile")
    if layout.replicas:
        raise FragmentMismatch("replicated register tiles are not fragments")
    if any(it.axis != "laneid" for it in layout.thread_iters):
        axes = sorted({str(it.axis) for it in layout.thread_iters if it.axis != "laneid"})
        raise FragmentMismatch(f"a warp's fragment tile is distributed over laneid only, not "
                               f"{', '.join(axes)}")
    per_word = max(1, 32 // bits)
    count = fragment_elements(shape, operand)
    tiles = []
    for tr in range(rows // trows):
        row = []
        for tc in range(cols // tcols):
            slots = []
            for i in range(count):
                slot = None
                for lane in range(WARP):
                    r, c = fragment_cell(shape, operand, lane, i, transpose_b)
                    r, c = tr * trows + r, tc * tcols + c
                    owner, s = layout.apply(r * cols + c)
                    if owner.get("laneid", 0) != lane:
                        raise FragmentMismatch(
                            f"element ({r}, {c}) belongs to lane {lane}, the layout gives it "
                            f"to lane {owner.get('laneid', 0)}")
                    if slot is None:
                        slot = s
                    elif s != slot:
                        raise FragmentMismatch(
                            f"fragment element {i} of the tile at ({tr * trows}, "
                            f"{tc * tcols}) is in register {slot} of lane 0 but {s} of "
                            f"lane {lane}")
                assert slot is not None
                slots.append(slot)
            words = []
            for w in range(0, count, per_word):
                first = slots[w]
                if first % per_word or slots[w:w + per_word] != list(
                        range(first, first + per_word)):
                    raise FragmentMismatch(
                        f"the tile at ({tr * trows}, {tc * tcols}) puts fragment elements "
                        f"{w}..{w + per_word - 1} in registers {slots[w:w + per_word]}, "
                        f"not one {32}-bit word")
                words.append(first)
            row.append(tuple(words))
        tiles.append(tuple(row))
    return FragmentTiles(tuple(tiles))


def expected_text(shape: MmaShape, operand: Operand, transpose_b: bool = False) -> str:
    """``#regcopy.layout<...>`` of the fragment of one instruction tile, for messages."""
    rows, cols = operand_tile(shape, operand, transpose_b)
    return f"#regcopy.layout<{fragment_layout(shape, operand, transpose_b)}> on {rows}x{cols}"
