"""``regcopy_backend.interpreter.ldmatrix`` (what one ldmatrix/stmatrix moves) against the PTX ISA's
fragment tables (``ptx_fragments``), and the element moves against the byte rule for 8-, 16-
and 32-bit elements."""

from __future__ import annotations

import random

import numpy as np
import pytest
from ptx_fragments import expected_bytes, fragment

from regcopy_backend.interpreter.ldmatrix import (
    MatrixError,
    byte_moves,
    element_moves,
    fragment_units,
    matrix_moves,
)

CASES = [(count, trans) for count in (1, 2, 4) for trans in (False, True)]


def scattered_rows(count: int, seed: int, span_rows: int = 64) -> list[int]:
    """Byte addresses of the ``8 * count`` rows: distinct 16-byte rows in random order."""
    rng = random.Random(seed)
    return [16 * r for r in rng.sample(range(span_rows), 8 * count)]


@pytest.mark.parametrize(("count", "trans"), CASES)
def test_fragment_units_are_the_ptx_table(count: int, trans: bool) -> None:
    table = fragment(trans)
    got = {(u.lane, u.matrix, u.half): (u.row, u.column) for u in fragment_units(count, trans)}
    want = {(t, m, h): rc for m in range(count) for (t, h), rc in table.items()}
    assert got == want


@pytest.mark.parametrize(("count", "trans"), CASES)
def test_byte_moves_follow_the_ptx_table(count: int, trans: bool) -> None:
    """Rows scattered over shared memory (lane 8m + r names row r of matrix m), each lane's
    words at register bytes 8, 4, 12, 0 (in that matrix order)."""
    rows = scattered_rows(count, seed=count + 10 * trans)
    words = [8, 4, 12, 0][:count]
    got = {(lane, reg): shared for lane, reg, shared in byte_moves(count, trans, rows, words)}
    assert got == expected_bytes(count, trans, rows, words)


def run_bytes(loads: bool, moves, shared: np.ndarray, regs: np.ndarray) -> None:  # noqa: ANN001
    for lane, reg, s in moves:
        if loads:
            regs[lane, reg] = shared[s]
        else:
            shared[s] = regs[lane, reg]


@pytest.mark.parametrize("loads", [True, False], ids=["ldmatrix", "stmatrix"])
@pytest.mark.parametrize(("bits", "trans"), [(8, False), (16, False), (32, False), (16, True)])
@pytest.mark.parametrize("count", [1, 2, 4])
def test_element_moves_equal_the_byte_rule(loads: bool, bits: int, trans: bool,
                                           count: int) -> None:
    """Random bytes moved byte by byte (the b16 rule on bytes) and element by element (what the
    interpreter does, on a numpy view of the same bytes with the element's dtype) agree."""
    e = bits // 8
    dtype = {8: np.uint8, 16: np.uint16, 32: np.uint32}[bits]
    rng = np.random.default_rng(bits + count)
    rows = scattered_rows(count, seed=bits * count)
    words = [4 * m for m in range(count)]  # bytes
    shared_b = rng.integers(0, 256, 64 * 16, dtype=np.uint8)
    regs_b = rng.integers(0, 256, (32, 16), dtype=np.uint8)
    shared_e, regs_e = shared_b.copy().view(dtype), regs_b.copy().view(dtype)
    bmoves = byte_moves(count, trans, rows, words)
    run_bytes(loads, bmoves, shared_b, regs_b)
    for m in element_moves(bmoves, e):
        if loads:
            regs_e[m.lane, m.register] = shared_e[m.shared]
        else:
            shared_e[m.shared] = regs_e[m.lane, m.register]
    assert np.array_equal(shared_e.view(np.uint8), shared_b)
    assert np.array_equal(regs_e.view(np.uint8), regs_b)
    assert len(element_moves(bmoves, e)) == 32 * count * 4 // e


def test_a_32_bit_element_cannot_be_transposed() -> None:
    """.trans splits a lane's 32-bit word across two rows: no whole 32-bit element moves."""
    moves = byte_moves(1, True, [16 * r for r in range(8)], [0])
    with pytest.raises(MatrixError, match="not one 32-bit element"):
        element_moves(moves, 4)


def test_matrix_moves_in_elements() -> None:
    """16-bit x2: lane 8m + r gives element offset 8 * (2r + m) (rows interleaved); lane 5's
    word of matrix 1 (registers 2, 3) is columns 2, 3 of row 1 of matrix 1 = S[8*3 + 2 ..]."""
    offsets = tuple(8 * (2 * (lane % 8) + lane // 8) for lane in range(16)) + (999,) * 16
    moves = matrix_moves(2, False, 2, offsets, (0, 2), 128, 4)
    mine = sorted((m.register, m.shared) for m in moves if m.lane == 5)
    assert mine == [(0, 8 * 2 + 2), (1, 8 * 2 + 3), (2, 8 * 3 + 2), (3, 8 * 3 + 3)]


@pytest.mark.parametrize(("offsets", "regs", "message"), [
    ((4,) + (0,) * 31, (0,), r"lane 0's row address \(element 4, byte 8\) is not 16-byte"),
    ((0,) * 7 + (120,) + (0,) * 24, (0,), r"lane 7's row \(element 120, bytes 240..255\) is "
                                          r"outside the 128-byte"),
    ((0,) * 32, (6,), r"register offset 6 is not a whole 32-bit word inside the 6 registers"),
    ((0,) * 32, (1,), r"register offset 1 is not a whole 32-bit word"),
])
def test_bad_operands(offsets: tuple[int, ...], regs: tuple[int, ...], message: str) -> None:
    with pytest.raises(MatrixError, match=message):
        matrix_moves(1, False, 2, offsets, regs, 64, 6)


def test_lanes_beyond_the_matrices_give_no_address() -> None:
    """.x1 uses lanes 0..7's addresses only; the others may hold anything."""
    offsets = tuple(8 * r for r in range(8)) + (-5,) * 24
    assert len(matrix_moves(1, False, 2, offsets, (0,), 64, 2)) == 64
