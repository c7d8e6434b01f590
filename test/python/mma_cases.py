"""One-warp ``regcopy.mma`` kernels for the tests, with register tiles of any multiple of the
instruction tile in any register order, and integer-valued data with its numpy expectation.

``tile_layout`` builds a register tile's layout from the PTX fragment (``fragment_layout``)
by putting tile digits above its row and column iters, and giving every word-level digit
(the fragment's own word digits and the tile digits) a stride from a mixed-radix order
chosen by ``order`` (a permutation): any order of the instruction tiles' registers, and of
the words inside a fragment."""

from __future__ import annotations

from collections.abc import Sequence
from math import prod

import numpy as np
from regcopy_backend.host_data import as_float64
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    IntegerType,
    Signedness,
)

from regcopy_dialect.layout import Iter, Layout
from regcopy_dialect.mma_fragments import (
    MmaShape,
    Operand,
    fragment_layout,
    operand_tile,
)
from regcopy_dialect.mma_ops import MMA_KINDS

BITS = {"f16": 16, "bf16": 16, "f32": 32, "i8": 8, "ui8": 8, "i32": 32, "f8E4M3FN": 8,
        "f8E5M2": 8}
IR = {"f16": Float16Type(), "bf16": BFloat16Type(), "f32": Float32Type(),
      "i8": IntegerType(8), "ui8": IntegerType(8, Signedness.UNSIGNED),
      "i32": IntegerType(32), "f8E4M3FN": Float8E4M3FNType(), "f8E5M2": Float8E5M2Type()}
KINDS = sorted(MMA_KINDS)
"""Every ``(A, B, C)`` element-type triple of the instruction table."""


def _factors(n: int) -> list[int]:
    out, p = [], 2
    while n > 1:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out


def tile_layout(shape: MmaShape, operand: Operand, bits: int, tiles: tuple[int, int],
                order: Sequence[int] | None = None, transpose_b: bool = False) -> Layout:
    """The layout of a ``tiles[0] x tiles[1]``-instruction-tile register tile; ``order`` is a
    permutation of the word-level digits (``word_digits``), outermost first (None: the
    tile digits row-major, outermost, then the fragment's words)."""
    frag = fragment_layout(shape, operand, transpose_b)
    rows = operand_tile(shape, operand, transpose_b)[0]
    per_word = max(1, 32 // bits)
    k, acc = 0, 1
    while acc < rows:
        acc *= frag.iters[k].extent
        k += 1
    row_iters, col_iters = list(frag.iters[:k]), list(frag.iters[k:])
    row_tiles = [Iter(f, -1) for f in _factors(tiles[0])]
    col_tiles = [Iter(f, -1) for f in _factors(tiles[1])]
    iters = row_tiles + row_iters + col_tiles + col_iters
    words = [i for i, it in enumerate(iters) if it.axis is None and (it.stride != 1 or
                                                                     per_word == 1)]
    words_sorted = sorted(words, key=lambda i: (iters[i].stride >= 0, -iters[i].stride))
    perm = list(range(len(words))) if order is None else list(order)
    ordered = [words_sorted[p] for p in perm]
    stride = per_word
    out = list(iters)
    for i in reversed(ordered):
        out[i] = Iter(iters[i].extent, stride)
        stride *= iters[i].extent
    return Layout(tuple(out))


def word_digits(shape: MmaShape, operand: Operand, bits: int, tiles: tuple[int, int]) -> int:
    """How many word-level digits ``tile_layout`` orders (the length of ``order``)."""
    per_word = max(1, 32 // bits)
    frag = fragment_layout(shape, operand)
    own = sum(1 for it in frag.iters if it.axis is None and (it.stride != 1 or per_word == 1))
    return own + len(_factors(tiles[0])) + len(_factors(tiles[1]))


def local_type(rows: int, cols: int, t: str, layout: Layout) -> str:
    return f"memref<{rows}x{cols}x{t}, #regcopy.layout<{layout}>, #regcopy.mem<local>>"


def mma_kernel(kind: tuple[str, str, str], shape: MmaShape, tiles: tuple[int, int, int],
               transpose_b: bool = False, orders: Sequence[Sequence[int] | None] = (
                   None, None, None)) -> str:
    """One warp: A, B, C global -> registers, ``regcopy.mma``, C -> global. ``tiles`` is
    ``(M, N, K)`` in instruction tiles."""
    ta, tb, tc = kind
    tm, tn, tk = tiles
    m, n, k = tm * shape.m, tn * shape.n, tk * shape.k
    la = tile_layout(shape, Operand.A, BITS[ta], (tm, tk), orders[0])
    b_tiles = (tn, tk) if transpose_b else (tk, tn)
    lb = tile_layout(shape, Operand.B, BITS[tb], b_tiles, orders[1], transpose_b)
    lc = tile_layout(shape, Operand.C, BITS[tc], (tm, tn), orders[2])
    b_shape = (n, k) if transpose_b else (k, n)
    A, B = local_type(m, k, ta, la), local_type(*b_shape, tb, lb)
    C = local_type(m, n, tc, lc)
    ga, gb = f"memref<{m}x{k}x{ta}, #regcopy.mem<global>>", \
        f"memref<{b_shape[0]}x{b_shape[1]}x{tb}, #regcopy.mem<global>>"
    gc = f"memref<{m}x{n}x{tc}, #regcopy.mem<global>>"
    attrs = []
    if transpose_b:
        attrs.append("transpose_b")
    if ta == "f32":
        attrs.append("precision = tf32")
    attr = f" {{{', '.join(attrs)}}}" if attrs else ""
    return f"""func.func @mma(%X: {ga}, %Y: {gb}, %Z: {gc})
    attributes {{regcopy.launch = #regcopy.launch<block = 32, grid = [1]>}} {{
  %A = memref.alloca() : {A}
  %B = memref.alloca() : {B}
  %C = memref.alloca() : {C}
  regcopy.copy warp %X -> %A : {ga} -> {A}
  regcopy.copy warp %Y -> %B : {gb} -> {B}
  regcopy.copy warp %Z -> %C : {gc} -> {C}
  regcopy.mma warp %A, %B, %C{attr} : {A}, {B}, {C}
  regcopy.copy warp %C -> %Z : {C} -> {gc}
  func.return
}}
"""


def encode(values: np.ndarray, t: str) -> np.ndarray:
    """Small integers as host data of element type ``t`` (raw bits for bf16 and fp8)."""
    if t == "f16":
        return values.astype(np.float16)
    if t == "f32":
        return values.astype(np.float32)
    if t == "bf16":
        return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    if t in ("i8", "i32"):
        return values.astype(np.int8 if t == "i8" else np.int32)
    if t == "ui8":
        return values.astype(np.uint8)
    codes = np.arange(256, dtype=np.uint8)
    table = {float(v): int(c) for c, v in zip(codes, as_float64(codes, IR[t])) if not np.isnan(v)}
    table[0.0] = 0
    return np.array([table[float(v)] for v in values.ravel()],
                    dtype=np.uint8).reshape(values.shape)


def case_data(kind: tuple[str, str, str], shape: MmaShape, tiles: tuple[int, int, int],
              transpose_b: bool, seed: int) -> tuple[list[np.ndarray], np.ndarray]:
    """``([X, Y, Z] host arrays, expected Z as float64)``: integer-valued, every partial sum
    exact in f32 (and f16 for an f16 accumulator)."""
    ta, tb, tc = kind
    tm, tn, tk = tiles
    m, n, k = tm * shape.m, tn * shape.n, tk * shape.k
    rng = np.random.default_rng(seed)

    def values(t: str, dims: tuple[int, int]) -> np.ndarray:
        lo, hi = (0, 6) if t == "ui8" else (-3, 4)
        return rng.integers(lo, hi, dims).astype(np.float64)

    a = values(ta, (m, k))
    b = values(tb, (n, k) if transpose_b else (k, n))
    c = values(tc, (m, n))
    want = c + a @ (b.T if transpose_b else b)
    return [encode(a, ta), encode(b, tb), encode(c, tc)], want


def decoded(z: np.ndarray, t: str) -> np.ndarray:
    return as_float64(z, IR[t])


def total_tiles(tiles: tuple[int, int, int]) -> int:
    return prod(tiles)
