"""copy_async from global buffers with runtime extents, run on the CPU interpreter against
numpy: every tile of a ragged matrix lands in shared memory with zeros past the edges, in the
reference (un-lowered) semantics and lowered to cp.async (full-width chunks, source size 0 or
partial at the edge, versioned on the row length) or to TMA (the tensor map's extents are the
array's). A small default slice of shapes; ``REGCOPY_PERF=1`` sweeps many more. On a GPU
(``-m gpu``) test/gpu/kernels/async_ragged.mlir, bit for bit."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from regcopy_backend.cuda.kernel_info import kernel_info, kernels
from regcopy_backend.cuda.printer import print_cuda
from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_backend.runtime.runner import gpu_available
from regcopy_dialect.builders import parse_module
from regcopy_dialect.tma_ops import TmaLoadOp
from regcopy_tools.regcopy_run import parse_and_lower

REPO = Path(__file__).resolve().parents[2]
KERNEL = REPO / "test" / "gpu" / "kernels" / "async_ragged.mlir"

SWEEP = """
func.func @sweep(%X: memref<?x?xf32, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 2>},
                 %Z: memref<?x?x8x16xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1, 1]>} {
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
  %r0 = arith.muli %by, %c8 : index
  %k0 = arith.muli %bx, %c16 : index
  %S = memref.alloca() : memref<8x16xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<8x16xf32, #regcopy.layout<(8,4,4):(4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  %t = regcopy.copy_async warp %X[%r0, %k0] [8, 16] -> %S : memref<?x?xf32, #regcopy.mem<global>> -> memref<8x16xf32, #regcopy.mem<shared>>
  %g = regcopy.async_group %t
  regcopy.async_wait %g {pending = 0 : i64}
  "gpu.barrier"() : () -> ()
  regcopy.copy warp %S -> %R : memref<8x16xf32, #regcopy.mem<shared>> -> memref<8x16xf32, #regcopy.layout<(8,4,4):(4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %Z[%by, %bx, 0, 0] [1, 1, 8, 16] : memref<8x16xf32, #regcopy.layout<(8,4,4):(4@laneid,1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?x8x16xf32, #regcopy.mem<global>>
  func.return
}
"""
"""One warp per 8 x 16 f32 tile of %X (rows promised a multiple of 2: the copy is versioned,
16-byte chunks when the row length is a multiple of 4, else 8-byte ones); %Z[by, bx] gets
the tile as it landed in shared memory."""

DEFAULT_SHAPES = [(5, 6), (9, 20), (3, 34)]
"""Ragged rows and columns; the proven (8-byte) path, the wide (16-byte) path, the proven path
with a straddling last tile column."""
PERF_SHAPES = [(m, n) for m in (1, 7, 8, 9, 17) for n in (2, 4, 6, 14, 16, 18, 30, 32, 34)]


def tiles(x: np.ndarray, th: int, tw: int) -> np.ndarray:
    """``x`` cut into ``th x tw`` tiles, zero-padded: ``out[by, bx]`` is tile (by, bx)."""
    gy, gx = -(-x.shape[0] // th), -(-x.shape[1] // tw)
    pad = np.zeros((gy * th, gx * tw), x.dtype)
    pad[:x.shape[0], :x.shape[1]] = x
    return pad.reshape(gy, th, gx, tw).transpose(0, 2, 1, 3)


def run_sweep(module: object, shape: tuple[int, int]) -> None:
    m, n = shape
    x = (np.arange(m * n, dtype=np.float32) + 1).reshape(m, n)
    want = tiles(x, 8, 16)
    z = np.full(want.shape, -1, np.float32)
    _, got = run_on_cpu(module, "sweep", [x, z],  # type: ignore[arg-type]
                        grid=[want.shape[1], want.shape[0]])
    assert np.array_equal(got, want), shape


SHAPES = PERF_SHAPES if os.environ.get("REGCOPY_PERF") else DEFAULT_SHAPES


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_lowered_cp_async_lands_zero_padded_tiles(shape: tuple[int, int]) -> None:
    run_sweep(parse_and_lower(SWEEP, "sweep.mlir"), shape)


def test_reference_and_tma_land_zero_padded_tiles() -> None:
    """The un-lowered semantics, and transfer=tma (rows of 4-byte multiples only: the tensor
    map needs 16-byte row strides, so %X is promised a multiple of 4 there)."""
    run_sweep(parse_module(SWEEP), (9, 22))
    tma = SWEEP.replace("array<i64: 1, 2>", "array<i64: 1, 4>").replace("warp %X", "cta %X")
    lowered = parse_and_lower(tma, "sweep.mlir", "lower-reg-copy{transfer=tma}")
    assert any(isinstance(op, TmaLoadOp) for op in lowered.walk())
    run_sweep(lowered, (9, 20))


HAS_GPU, WHY = gpu_available()
GPU_SHAPES = [(37, 72), (1, 8), (64, 128), (100, 200), (33, 1000)]


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_GPU, reason=WHY)
@pytest.mark.parametrize("transfer", ["cp.async", "tma"])
def test_async_ragged_kernel_is_bit_exact_on_the_gpu(transfer: str) -> None:
    """test/gpu/kernels/async_ragged.mlir on ragged f16 shapes: %Y equals %X and %Z holds the
    zero-padded 32 x 64 tiles, bit for bit."""
    from regcopy_backend.runtime.runner import run_kernel

    passes = "lower-reg-copy{transfer=tma}" if transfer == "tma" else "lower-reg-copy"
    module = parse_and_lower(KERNEL.read_text(), str(KERNEL), passes)
    source, info = print_cuda(module), kernel_info(kernels(module)[0])
    rng = np.random.default_rng(2)
    for m, n in GPU_SHAPES:
        x = rng.standard_normal((m, n)).astype(np.float16)
        want = tiles(x, 32, 64)
        y, z = np.zeros_like(x), np.full(want.shape, np.float16(7), np.float16)
        out = run_kernel(source, info, [x, y, z], grid=[want.shape[1], want.shape[0]]).arrays
        assert np.array_equal(out[1].view(np.uint16), x.view(np.uint16)), (m, n)
        assert np.array_equal(out[2].view(np.uint16), want.view(np.uint16)), (m, n)


def test_in_bounds_promise_broken_is_one_line() -> None:
    """``{in_bounds}`` on a region past the runtime extents: the interpreter says so in one
    line (the reference semantics; the lowered copy would read past the buffer)."""
    from xdsl.utils.exceptions import InterpretationError

    text = SWEEP.replace("-> %S : memref<?x?xf32", "-> %S {in_bounds} : memref<?x?xf32")
    x = np.ones((5, 6), np.float32)
    with pytest.raises(InterpretationError) as info:
        run_on_cpu(parse_module(text), "sweep", [x, np.zeros((1, 1, 8, 16), np.float32)])
    message = str(info.value).strip()
    assert "\n" not in message
    assert "src of copy_async (the copy promises {in_bounds}): region [0, 0] .. [7, 15]" in message


ROUNDS = """
func.func @rounds(%X: memref<?x?xf16, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>},
                  %Z: memref<?x?x16x64xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 64, grid = [1, 1]>} {
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
  %r0 = arith.muli %by, %c16 : index
  %k0 = arith.muli %bx, %c64 : index
  %S = memref.alloca() : memref<16x64xf16, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<16x64xf16, #regcopy.layout<(2,8,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>>
  %t = regcopy.copy_async cta %X[%r0, %k0] [16, 64] -> %S : memref<?x?xf16, #regcopy.mem<global>> -> memref<16x64xf16, #regcopy.mem<shared>>
  %g = regcopy.async_group %t
  regcopy.async_wait %g {pending = 0 : i64}
  "gpu.barrier"() : () -> ()
  regcopy.copy cta %S -> %R : memref<16x64xf16, #regcopy.mem<shared>> -> memref<16x64xf16, #regcopy.layout<(2,8,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %R -> %Z[%by, %bx, 0, 0] [1, 1, 16, 64] : memref<16x64xf16, #regcopy.layout<(2,8,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>> -> memref<?x?x16x64xf16, #regcopy.mem<global>>
  func.return
}
func.func @row(%V: memref<?xf16, #regcopy.mem<global>>, %Z: memref<?x1024xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %c1024 = arith.constant 1024 : index
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %k0 = arith.muli %bx, %c1024 : index
  %S = memref.alloca() : memref<1024xf16, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<1024xf16, #regcopy.layout<(4,32,8):(8,1@laneid,1)>, #regcopy.mem<local>>
  %t = regcopy.copy_async warp %V[%k0] [1024] -> %S : memref<?xf16, #regcopy.mem<global>> -> memref<1024xf16, #regcopy.mem<shared>>
  %g = regcopy.async_group %t
  regcopy.async_wait %g {pending = 0 : i64}
  "gpu.barrier"() : () -> ()
  regcopy.copy warp %S -> %R : memref<1024xf16, #regcopy.mem<shared>> -> memref<1024xf16, #regcopy.layout<(4,32,8):(8,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %Z[%bx, 0] [1, 1024] : memref<1024xf16, #regcopy.layout<(4,32,8):(8,1@laneid,1)>, #regcopy.mem<local>> -> memref<?x1024xf16, #regcopy.mem<global>>
  func.return
}
"""
"""Copies of several rounds a thread (2 for @rounds' 16 x 64 tile over 64 threads, 4 for @row's
1024-element run over a warp), whose rounds share one thread base in the lowering."""


def test_rounds_sharing_one_thread_base_land_zero_padded_tiles() -> None:
    """The lowered rounds of a thread share its offset and what lies past the region's origin
    (one ``thread_base`` a copy); on the CPU they land the same zero-padded tiles as the
    reference: tiles straddling the edges, tiles whose origin lies past the extents (launched
    on a grid one tile too wide and tall: nothing inside), and in @row 16-byte chunks that
    straddle the runtime length (partial source sizes)."""
    module = parse_and_lower(ROUNDS, "rounds.mlir")
    text = str(module)
    assert text.count("%thread_base = ") == 2  # one a copy
    assert text.count("%thread_base") == 3 + 5  # and every round starts from it
    rng = np.random.default_rng(5)
    for m, k in ((20, 72), (16, 64), (5, 8)):
        x = rng.standard_normal((m, k)).astype(np.float16)
        want = tiles(x, 16, 64)
        gy, gx = want.shape[0] + 1, want.shape[1] + 1
        whole = np.zeros((gy, gx, 16, 64), np.float16)
        whole[:want.shape[0], :want.shape[1]] = want
        z = np.full(whole.shape, 7, np.float16)
        _, got = run_on_cpu(module, "rounds", [x, z], grid=[gx, gy])
        assert np.array_equal(got.view(np.uint16), whole.view(np.uint16)), (m, k)
    for n in (1000, 1024, 2051):
        v = rng.standard_normal(n).astype(np.float16)
        want = np.zeros((-(-n // 1024) + 1) * 1024, np.float16)
        want[:n] = v
        z = np.full((want.size // 1024, 1024), 7, np.float16)
        _, got = run_on_cpu(module, "row", [v, z], grid=[z.shape[0]])
        assert np.array_equal(got.reshape(-1).view(np.uint16), want.view(np.uint16)), n
