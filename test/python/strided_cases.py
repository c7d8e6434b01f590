"""Kernels and host data shared by the strided-buffer tests (CPU and GPU): a warp copies a
32 x K tile of a strided view ``X`` into registers and out to a strided view ``Y`` (a
``strided<[?, 1]>`` buffer each: a runtime row stride), one warp per tile on a 2-D grid; an
async form goes global -> shared (cp.async) -> registers -> global."""

from __future__ import annotations

import numpy as np

G = "#regcopy.mem<global>"
ELEMENTS = {"f32": np.float32, "f16": np.float16, "i8": np.int8}


def view_type(elem: str, strides: str = "?, 1") -> str:
    return f"memref<?x?x{elem}, strided<[{strides}]>, {G}>"


def promises(extent: int = 1, stride: int = 1) -> str:
    """The argument attributes: the row length a multiple of ``extent``, the row stride a
    multiple of ``stride`` (1: no promise, attribute left out)."""
    attrs = []
    if extent > 1:
        attrs.append(f"regcopy.divisibility = array<i64: 1, {extent}>")
    if stride > 1:
        attrs.append(f"regcopy.stride_divisibility = array<i64: {stride}, 1>")
    return " {" + ", ".join(attrs) + "}" if attrs else ""


def view_copy(elem: str = "f32", k: int = 8, extent: int = 1, stride: int = 1,
              name: str = "view") -> str:
    """``Y[:m, :n] = X[:m, :n]`` through a 32 x ``k`` register tile per warp."""
    tile = f"memref<32x{k}x{elem}, #regcopy.layout<(32,{k}):(1@laneid,1)>, #regcopy.mem<local>>"
    g = view_type(elem)
    p = promises(extent, stride)
    return f"""func.func @{name}(%X: {g}{p}, %Y: {g}{p})
    attributes {{regcopy.launch = #regcopy.launch<block = 32, grid = [1, 1]>}} {{
  %R = memref.alloca() : {tile}
  %bx = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %by = "gpu.block_id"() <{{dimension = #gpu<dim y>}}> : () -> index
  %c32 = arith.constant 32 : index
  %ck = arith.constant {k} : index
  %r = arith.muli %bx, %c32 : index
  %c = arith.muli %by, %ck : index
  regcopy.copy warp %X[%r, %c] [32, {k}] -> %R : {g} -> {tile}
  regcopy.copy warp %R -> %Y[%r, %c] [32, {k}] : {tile} -> {g}
  func.return
}}
"""


def async_view_copy(stride: int = 2) -> str:
    """f16 ``X`` -> shared by cp.async (rows of 64 promised a multiple of 8, the stride of
    ``stride``) -> registers -> ``Y``, one CTA of 128 threads per 32 x 64 tile."""
    g = view_type("f16")
    s = "memref<32x64xf16, #regcopy.mem<shared>>"
    tile = "memref<32x64xf16, #regcopy.layout<(32,4,16):(1@laneid,1@warpid,1)>, " \
        "#regcopy.mem<local>>"
    p = promises(8, stride)
    return f"""func.func @async_view(%X: {g}{p}, %Y: {g}{p})
    attributes {{regcopy.launch = #regcopy.launch<block = 128, grid = [1, 1]>}} {{
  %S = memref.alloca() : {s}
  %R = memref.alloca() : {tile}
  %bx = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %by = "gpu.block_id"() <{{dimension = #gpu<dim y>}}> : () -> index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %r = arith.muli %bx, %c32 : index
  %c = arith.muli %by, %c64 : index
  %t = regcopy.copy_async cta %X[%r, %c] [32, 64] -> %S : {g} -> {s}
  %g = regcopy.async_group %t
  regcopy.async_wait %g {{pending = 0 : i64}}
  "gpu.barrier"() : () -> ()
  regcopy.copy cta %S -> %R : {s} -> {tile}
  regcopy.copy cta %R -> %Y[%r, %c] [32, 64] : {tile} -> {g}
  func.return
}}
"""


def parent(rows: int, ld: int, dtype: type, seed: int) -> np.ndarray:
    """A ``rows x ld`` array of distinct-ish exact values (the views are slices of it)."""
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "i":
        return rng.integers(-100, 100, (rows, ld)).astype(dtype)
    return (rng.integers(-(2**10), 2**10, (rows, ld)) / 4).astype(dtype)


def grid_for(m: int, n: int, k: int, rows: int = 32) -> tuple[int, int]:
    return -(-m // rows), -(-n // k)
