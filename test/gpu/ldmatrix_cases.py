"""GPU cases of issue 10's ldmatrix/stmatrix kernels (test/gpu/kernels/ldmatrix_*.mlir).

Each kernel loads an MMA fragment from a shared tile (``regcopy.copy`` S -> R), writes every
thread's registers in slot order to ``%regs[t, :]``, stores the fragment back to a second
tile (R -> S2) and copies that tile to ``%out``. The expectations below come straight from
the PTX ISA's fragment tables (``g = lane / 4``, ``c = lane % 4``), not from the kernels'
layouts. ``plan`` is the *vector* lowering's (vector elements, rounds) per copy; a copy
lowered to ld/stmatrix has no ``vector.load`` (see ``MATRIX_KINDS`` for what each kernel must
select once the pass emits them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from cases import KERNELS, Arrays, GpuCase

Table = Callable[[int, int], tuple[int, int]]
"""``(lane, register slot) -> (row, column)`` of a fragment in its tile."""


def a_m16k16(lane: int, i: int) -> tuple[int, int]:
    """mma.m16n8k16 A: a{4kh+2h+p} = A[g + 8h][2c + 8kh + p]."""
    g, c, h, p, kh = lane // 4, lane % 4, (i >> 1) & 1, i & 1, i >> 2
    return g + 8 * h, 2 * c + 8 * kh + p


def b_kn(lane: int, i: int) -> tuple[int, int]:
    """mma.m16n8k16 B on a K x N tile: b{2kh+p} = B[2c + 8kh + p][g]."""
    g, c, p, kh = lane // 4, lane % 4, i & 1, i >> 1
    return 2 * c + 8 * kh + p, g


def b_nk(lane: int, i: int) -> tuple[int, int]:
    """The same B fragment read from an N x K tile."""
    k, n = b_kn(lane, i)
    return n, k


def c_m16n8(lane: int, i: int) -> tuple[int, int]:
    """mma.m16n8 C/D (f16, bf16 and f32 alike per element): c{2h+p} = C[g + 8h][2c + p]."""
    g, c, h, p = lane // 4, lane % 4, i >> 1, i & 1
    return g + 8 * h, 2 * c + p


def a_i8_k32(lane: int, i: int) -> tuple[int, int]:
    """mma.m16n8k32 A of 8-bit integers: a{4(2q+h)+j} = A[g + 8h][16q + 4c + j]."""
    g, c, w, j = lane // 4, lane % 4, i // 4, i % 4
    h, q = w & 1, w >> 1
    return g + 8 * h, 16 * q + 4 * c + j


def wg_a_64x64(tid: int, i: int) -> tuple[int, int]:
    """Warp w = tid / 32 of a warpgroup: A fragments of rows 16w.., k16 tile ki = i / 8."""
    row, col = a_m16k16(tid % 32, i % 8)
    return 16 * (tid // 32) + row, 16 * (i // 8) + col


def fragment_case(name: str, table: Table, threads: int, regs: int,
                  plan: tuple[tuple[int, int], ...],
                  region: tuple[int, int, int, int] | None = None) -> GpuCase:
    """``region = (row0, col0, rows, cols)`` of ``%in`` that the fragment covers (None: all)."""

    def expect(a: Arrays) -> dict[int, np.ndarray]:
        tile = a[0] if region is None else \
            a[0][region[0]:region[0] + region[2], region[1]:region[1] + region[3]]
        frag = np.empty((threads, regs), dtype=a[0].dtype)
        for t in range(threads):
            for i in range(regs):
                frag[t, i] = tile[table(t, i)]
        return {1: tile.copy(), 2: frag}

    return GpuCase(name, KERNELS / f"{name}.mlir", expect, plan)


LDMATRIX_CASES: tuple[GpuCase, ...] = (
    fragment_case("ldmatrix_a_f16", a_m16k16, 32, 8, ((2, 4), (2, 4))),
    fragment_case("ldmatrix_b_trans", b_kn, 32, 4, ((1, 4), (1, 4))),
    fragment_case("ldmatrix_b_nk", b_nk, 32, 4, ((2, 2), (2, 2))),
    fragment_case("ldmatrix_c_bf16", c_m16n8, 32, 4, ((2, 2), (2, 2))),
    fragment_case("ldmatrix_a_i8", a_i8_k32, 32, 16, ((4, 4), (4, 4))),
    fragment_case("ldmatrix_wg_swizzle", wg_a_64x64, 128, 32, ((2, 16), (2, 16))),
    fragment_case("ldmatrix_misaligned", a_m16k16, 32, 8, ((2, 4), (2, 4)), (0, 4, 16, 16)),
    fragment_case("ldmatrix_c_f32", c_m16n8, 32, 4, ((2, 2), (2, 2))),
)

MATRIX_KINDS: dict[str, tuple[str | None, str | None]] = {
    "ldmatrix_a_f16": ("ldmatrix.x4", "stmatrix.x4"),
    "ldmatrix_b_trans": ("ldmatrix.x2.trans", "stmatrix.x2.trans"),
    "ldmatrix_b_nk": ("ldmatrix.x2", "stmatrix.x2"),
    "ldmatrix_c_bf16": ("ldmatrix.x2", "stmatrix.x2"),
    "ldmatrix_a_i8": ("ldmatrix.x4", "stmatrix.x4"),
    "ldmatrix_wg_swizzle": ("ldmatrix.x4", "stmatrix.x4"),
    "ldmatrix_misaligned": (None, None),
    "ldmatrix_c_f32": (None, None),
}
"""Per kernel, (S -> R, R -> S): the instruction ``plan_matrix`` selects, or None where the
per-thread path must run (the slice base is 8 bytes off; f32 words are no matrix rows)."""

CHOSEN_BY_DEFAULT = ("ldmatrix_b_trans", "ldmatrix_c_bf16", "ldmatrix_wg_swizzle")
"""Where ``transfer=auto`` takes the matrix kind: the others' 16-byte rows sit 32 bytes apart
(2-way bank conflicts between rows) while the lane-rotated per-thread path is conflict-free,
so the pass keeps the per-thread path there (``transfer=matrix`` forces ld/stmatrix)."""

MATRIX_INSTRUCTIONS: dict[str, int] = {
    "ldmatrix_a_f16": 1, "ldmatrix_b_trans": 1, "ldmatrix_b_nk": 1, "ldmatrix_c_bf16": 1,
    "ldmatrix_a_i8": 1, "ldmatrix_wg_swizzle": 4,
}
"""Instructions a warp issues per fragment copy (8 f16 A registers = 4 words = one .x4; 16
warpgroup registers a thread = 16 words = four .x4 ...)."""

LDMATRIX_GPU_CASES: tuple[GpuCase, ...] = tuple(
    replace(c, plan=tuple((kind, MATRIX_INSTRUCTIONS[c.name])
                          for kind in MATRIX_KINDS[c.name] if kind is not None))
    if c.name in CHOSEN_BY_DEFAULT else c for c in LDMATRIX_CASES)
"""The same cases as the pass lowers them by default (``transfer=auto``): ld/stmatrix where
``MATRIX_KINDS`` names them (their other accesses are scalar loops), the per-thread plan
elsewhere."""
