"""The PTX ISA's ``ldmatrix``/``stmatrix .m8n8 .b16`` fragment tables, written out as text.

Written from the PTX ISA (section "Warp-level matrix load instruction: ldmatrix"), *not* from
regcopy's implementation: an 8x8 matrix of b16 elements, each cell naming the thread that
holds it; a thread holds two cells, the first it meets in row-major order is the low half
(``a0``) of its 32-bit register, the second the high half (``a1``). For ``.x2``/``.x4`` every
matrix ``m`` has the same table (its cells go to register ``m`` of the thread) and its row
``r`` starts at the address given by thread ``8m + r``.

``.trans`` reads the matrix column-major: each thread receives a column, so the table is the
transpose of the plain one.
"""

from __future__ import annotations

PLAIN = """
T0  T0  T1  T1  T2  T2  T3  T3
T4  T4  T5  T5  T6  T6  T7  T7
T8  T8  T9  T9  T10 T10 T11 T11
T12 T12 T13 T13 T14 T14 T15 T15
T16 T16 T17 T17 T18 T18 T19 T19
T20 T20 T21 T21 T22 T22 T23 T23
T24 T24 T25 T25 T26 T26 T27 T27
T28 T28 T29 T29 T30 T30 T31 T31
"""

TRANS = """
T0  T4  T8  T12 T16 T20 T24 T28
T0  T4  T8  T12 T16 T20 T24 T28
T1  T5  T9  T13 T17 T21 T25 T29
T1  T5  T9  T13 T17 T21 T25 T29
T2  T6  T10 T14 T18 T22 T26 T30
T2  T6  T10 T14 T18 T22 T26 T30
T3  T7  T11 T15 T19 T23 T27 T31
T3  T7  T11 T15 T19 T23 T27 T31
"""


def fragment(trans: bool) -> dict[tuple[int, int], tuple[int, int]]:
    """``(thread, half) -> (row, b16 column)`` of one 8x8 matrix, read off the table."""
    table = TRANS if trans else PLAIN
    out: dict[tuple[int, int], tuple[int, int]] = {}
    for row, line in enumerate(table.split("\n")[1:-1]):
        for col, cell in enumerate(line.split()):
            thread = int(cell[1:])
            half = 1 if (thread, 0) in out else 0
            out[(thread, half)] = (row, col)
    assert len(out) == 64
    return out


def expected_bytes(count: int, trans: bool, rows: list[int], words: list[int]
                   ) -> dict[tuple[int, int], int]:
    """``(thread, register byte) -> shared byte`` for an ``.x{count}`` transfer: matrix ``m``
    starts its row ``r`` at byte ``rows[8m + r]`` and lands in byte ``words[m]`` of each
    thread's registers (half h at ``+ 2h``)."""
    table = fragment(trans)
    out: dict[tuple[int, int], int] = {}
    for m in range(count):
        for (thread, half), (row, col) in table.items():
            for b in range(2):
                out[(thread, words[m] + 2 * half + b)] = rows[8 * m + row] + 2 * col + b
    return out
