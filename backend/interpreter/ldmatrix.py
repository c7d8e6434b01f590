"""What one ``ldmatrix``/``stmatrix .m8n8 .b16`` moves, as pure functions (PTX ISA semantics).

The warp moves ``count`` (1, 2 or 4) matrices of 8 rows x 16 bytes. Lane ``8m + r`` gives
the shared address of row ``r`` of matrix ``m``; each lane ``l`` owns, per matrix, one 32-bit
register word of two ``b16`` halves ``h``:

* plain:  half ``h`` of lane ``l``'s word is b16 column ``2(l % 4) + h`` of row ``l / 4``
  (the word is bytes ``[4(l % 4), 4(l % 4) + 4)`` of the row);
* trans:  half ``h`` of lane ``l``'s word is b16 column ``l / 4`` of row ``2(l % 4) + h``.

The rule is stated on b16 units (``fragment_units``) and applied to bytes (``byte_moves``:
``(lane, register byte, shared byte)``); ``element_moves`` then groups the bytes into the
elements the interpreter stores (8-bit: one byte; 16-bit: one b16 unit; 32-bit: two b16 units
that must be the two halves of one shared element, in order). So 8-, 16- and 32-bit data all
follow from the one b16 rule. ``stmatrix`` writes exactly the bytes ``ldmatrix`` reads.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache, cache

from regcopy_backend.interpreter.buffers import Buffer

from regcopy_dialect.layout import WARP
from regcopy_dialect.matrix_ops import MATRIX_COUNTS, MatrixOpBase
from regcopy_dialect.regcopy import element_bits

ROWS = 8
ROW_BYTES = 16
WORD_BYTES = 4


class MatrixError(ValueError):
    """A warp's operands that no ``ldmatrix``/``stmatrix`` can execute (one-line message)."""


@dataclass(frozen=True)
class Unit:
    """One b16 unit of a fragment: half ``half`` of ``lane``'s register word of matrix
    ``matrix`` is column ``column`` (in b16 units, 0..7) of row ``row`` of that matrix."""

    lane: int
    matrix: int
    half: int
    row: int
    column: int


@dataclass(frozen=True)
class ElementMove:
    """Register element ``register`` of lane ``lane`` <-> shared element ``shared``."""

    lane: int
    register: int
    shared: int


@cache
def fragment_units(count: int, trans: bool) -> tuple[Unit, ...]:
    """Every b16 unit the warp moves (module doc): ``count * 32 * 2`` units, lane-major."""
    if count not in MATRIX_COUNTS:
        raise MatrixError(f"ldmatrix/stmatrix move 1, 2 or 4 matrices, not {count}")
    units = []
    for lane in range(WARP):
        for m in range(count):
            for h in range(2):
                if trans:
                    row, column = 2 * (lane % 4) + h, lane // 4
                else:
                    row, column = lane // 4, 2 * (lane % 4) + h
                units.append(Unit(lane, m, h, row, column))
    return tuple(units)


def byte_moves(count: int, trans: bool, rows: Sequence[int], words: Sequence[int]
               ) -> tuple[tuple[int, int, int], ...]:
    """``(lane, register byte, shared byte)`` for every byte moved. ``rows[8m + r]`` is the
    shared byte address of row ``r`` of matrix ``m``; ``words[m]`` the byte offset, in every
    lane's registers, of its word of matrix ``m``. Register byte ``words[m] + 2h + b`` <->
    shared byte ``rows[8m + row] + 2 column + b`` (b = 0, 1) for each ``Unit``."""
    out: list[tuple[int, int, int]] = []
    for u in fragment_units(count, trans):
        reg = words[u.matrix] + 2 * u.half
        shared = rows[ROWS * u.matrix + u.row] + 2 * u.column
        out.extend((u.lane, reg + b, shared + b) for b in range(2))
    return tuple(out)


def element_moves(moves: Sequence[tuple[int, int, int]], element_bytes: int
                  ) -> tuple[ElementMove, ...]:
    """The byte moves as whole-element moves: the bytes of register element ``e`` of a lane
    must be bytes ``0 .. element_bytes-1`` of one shared element, in order (always true for
    8- and 16-bit elements and for plain 32-bit words; a 32-bit element split across two
    shared elements, as ``.trans`` would do, is a ``MatrixError``)."""
    groups: dict[tuple[int, int], list[tuple[int, int]]] = defaultdict(list)
    for lane, reg, shared in moves:
        groups[(lane, reg // element_bytes)].append((reg % element_bytes, shared))
    out = []
    for (lane, element), parts in groups.items():
        parts.sort()
        first = parts[0][1]
        if (first % element_bytes or len(parts) != element_bytes
                or [s for _, s in parts] != list(range(first, first + element_bytes))):
            raise MatrixError(f"lane {lane}'s register element {element} would take bytes "
                              f"{[s for _, s in parts]} of shared memory, not one "
                              f"{8 * element_bytes}-bit element")
        out.append(ElementMove(lane, element, first // element_bytes))
    return tuple(out)


@lru_cache(maxsize=4096)
def matrix_moves(count: int, trans: bool, element_bytes: int, lane_offsets: tuple[int, ...],
                 register_offsets: tuple[int, ...], shared_elements: int,
                 register_elements: int) -> tuple[ElementMove, ...]:
    """The element moves of one warp-wide op, after checking its operands.

    ``lane_offsets[l]`` is lane ``l``'s element offset into the shared storage (only lanes
    ``< 8 count`` are used: row starts, 16-byte aligned, 16 bytes inside the
    ``shared_elements``-element storage); ``register_offsets[m]`` is the element offset of
    each lane's word of matrix ``m`` (a whole 32-bit word inside ``register_elements``)."""
    if len(register_offsets) != count:
        raise MatrixError(f"{count} matrices need {count} register offsets, got "
                          f"{len(register_offsets)}")
    word = WORD_BYTES // element_bytes
    for r in register_offsets:
        if r < 0 or r % word or r + word > register_elements:
            raise MatrixError(f"register offset {r} is not a whole 32-bit word inside the "
                              f"{register_elements} registers of each lane")
    rows = []
    for lane in range(ROWS * count):
        start = lane_offsets[lane] * element_bytes
        if start % ROW_BYTES:
            raise MatrixError(f"lane {lane}'s row address (element {lane_offsets[lane]}, "
                              f"byte {start}) is not 16-byte aligned")
        if start < 0 or start + ROW_BYTES > shared_elements * element_bytes:
            raise MatrixError(f"lane {lane}'s row (element {lane_offsets[lane]}, bytes "
                              f"{start}..{start + ROW_BYTES - 1}) is outside the "
                              f"{shared_elements * element_bytes}-byte shared storage")
        rows.append(start)
    words = [r * element_bytes for r in register_offsets]
    return element_moves(byte_moves(count, trans, rows, words), element_bytes)


# --------------------------------------------------------------------------------------------
# Executing an op on the interpreter's buffers
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MatrixLane:
    """One lane's operands of a ``regcopy.ldmatrix``/``stmatrix``: the shared storage, its
    own register storage (``regcopy.storage`` views) and its element offset into ``shared``."""

    shared: Buffer
    registers: Buffer
    offset: int


def run_matrix(op: MatrixOpBase, lanes: Sequence[MatrixLane]) -> list[None]:
    """Execute ``op`` for a whole warp (``lanes[l]``: lane ``l``'s operands): move every
    element of ``matrix_moves`` between the shared storage and the lanes' registers."""
    shared = lanes[0].shared
    if any(lane.shared.storage is not shared.storage for lane in lanes):
        raise MatrixError("the lanes name different shared storages")
    bits = element_bits(op.element_type)
    if bits not in (8, 16, 32):
        raise MatrixError(f"moves 8-, 16- or 32-bit elements, got {op.element_type}")
    moves = matrix_moves(op.count, op.transposed, bits // 8,
                         tuple(lane.offset for lane in lanes), op.register_offsets,
                         len(shared.storage), min(len(lane.registers.storage) for lane in lanes))
    s = shared.storage
    if op.LOADS:
        for m in moves:
            lanes[m.lane].registers.storage[m.register] = s[m.shared]
    else:
        for m in moves:
            s[m.shared] = lanes[m.lane].registers.storage[m.register]
    return [None] * len(lanes)
