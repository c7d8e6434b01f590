"""Kernels with runtime extents for the ragged tests: an un-lowered bounds-checked tile copy
(the reference semantics) and the hand-lowered ragged copy of ``test/gpu/kernels``, parsed
without the verifier so that the interpreter can be tested on its own."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from regcopy_tools.regcopy_run import build_context

ROOT = Path(__file__).resolve().parents[2]
LOWERED = ROOT / "test" / "gpu" / "kernels" / "ragged_lowered.mlir"

EDGES = (1, 3, 4, 5, 31, 32, 33, 79, 80)
"""The extents every sweep covers: around a vector (4), a tile (32) and the sweep's end."""

THOROUGH = bool(os.environ.get("REGCOPY_PERF")) or \
    os.environ.get("REGCOPY_HYPOTHESIS", "ci") != "ci"
"""Whether the sweeps cover every M, N in 1..80 (else a slice through ``EDGES``)."""

TILE = (32, 8)
PAD = 0.5

COPY_TYPES = ("memref<?x?xf32, #regcopy.mem<global>>",
              "memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>")


def tile_copy(attrs_in: str = "{padding = 0.5 : f32}", attrs_out: str = "") -> str:
    """One warp moves the 32x8 tile (bx, by) of X to registers (lane i: row i) and on to Y,
    both with runtime extents."""
    g, r = COPY_TYPES
    return f"""
func.func @tile(%X: {g}, %Y: {g}) attributes {{regcopy.launch = #regcopy.launch<block = 32, grid = [1, 1]>}} {{
  %R = memref.alloca() : {r}
  %bx = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %by = "gpu.block_id"() <{{dimension = #gpu<dim y>}}> : () -> index
  %c32 = arith.constant 32 : index
  %c8 = arith.constant 8 : index
  %r = arith.muli %bx, %c32 : index
  %c = arith.muli %by, %c8 : index
  regcopy.copy warp %X[%r, %c] [32, 8] -> %R {attrs_in} : {g} -> {r}
  regcopy.copy warp %R -> %Y[%r, %c] [32, 8] {attrs_out} : {r} -> {g}
  func.return
}}
"""


def parse_unverified(text: str) -> ModuleOp:
    """The module of ``text``, not verified (the interpreter's semantics on their own)."""
    return Parser(build_context(), text, "ragged.mlir").parse_module()


def tiles(m: int, n: int, tile: tuple[int, int] = TILE) -> tuple[int, int]:
    """The grid covering an m x n buffer with ``tile``-sized tiles."""
    return -(-m // tile[0]), -(-n // tile[1])


def sweep_shapes() -> list[tuple[int, int]]:
    """Every (M, N) in 1..80 when ``THOROUGH``, else every edge once as M and once as N
    (paired with the edges in another order)."""
    if THOROUGH:
        return [(m, n) for m in range(1, 81) for n in range(1, 81)]
    shuffled = EDGES[4:] + EDGES[:4]
    return sorted(set(zip(EDGES, shuffled)) | {(1, 80), (80, 1), (4, 4)})


def padded_reference(x: np.ndarray, shape: tuple[int, int], fill: float) -> np.ndarray:
    """``shape`` filled with ``fill``, ``x`` in its top-left corner (numpy's answer)."""
    out = np.full(shape, fill, dtype=x.dtype)
    out[:x.shape[0], :x.shape[1]] = x
    return out


def k_loop_copy() -> str:
    """One warp walks the K (column) extent of X in 8-wide tiles, the last one ragged: tile
    (bx, k) of X -> registers (padding 0.5) -> Y, for k in 0, 8, .. < K."""
    g, r = COPY_TYPES
    return f"""
func.func @kloop(%X: {g}, %Y: {g}) attributes {{regcopy.launch = #regcopy.launch<block = 32, grid = [1]>}} {{
  %R = memref.alloca() : {r}
  %bx = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %K = memref.dim %X, %c1 : {g}
  %r = arith.muli %bx, %c32 : index
  scf.for %k = %c0 to %K step %c8 {{
    regcopy.copy warp %X[%r, %k] [32, 8] -> %R {{padding = 0.5 : f32}} : {g} -> {r}
    regcopy.copy warp %R -> %Y[%r, %k] [32, 8] : {r} -> {g}
  }}
  func.return
}}
"""
