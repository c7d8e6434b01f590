"""TMA at run time: the tensor-map geometry the runner encodes, the by-value parameter array,
the interpreter's rule for one TMA load (zero fill, swizzled placement) and, on a GPU
(``-m gpu``), the buffers of test/gpu/kernels/tma_*.mlir bit for bit against that rule
(their SASS, UTMALDG and the SYNCS barrier ops, is test/backend/cuda-tma-ops.mlir's)."""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
import pytest

from regcopy_backend.cuda.kernel_info import TensorMapParam
from regcopy_backend.interpreter.tma import TmaError, read_box, tma_load_into
from regcopy_backend.runtime.runner import gpu_available
from regcopy_backend.runtime.tensor_map import (
    TensorMapError,
    kernel_params,
    tensor_map_geometry,
)

REPO = Path(__file__).resolve().parents[2]
KERNELS = REPO / "test" / "gpu" / "kernels"


def test_geometry_is_in_tma_order() -> None:
    geo = tensor_map_geometry(TensorMapParam(0, (64, 32), 128, 2), (1000, 512))
    assert geo.rank == 2 and geo.dims == (512, 1000) and geo.strides == (1024,)
    assert geo.box == (32, 64) and geo.element_strides == (1, 1)
    geo3 = tensor_map_geometry(TensorMapParam(0, (1, 8, 16), 0, 4), (3, 10, 20))
    assert geo3.dims == (20, 10, 3) and geo3.strides == (80, 800) and geo3.box == (16, 8, 1)


def test_geometry_refuses_unaligned_rows() -> None:
    with pytest.raises(TensorMapError, match=r"^tensor map of buffer 'A': row stride 200 bytes "
                       r"of shape \[100, 100\] is not a multiple of 16 bytes"):
        tensor_map_geometry(TensorMapParam(0, (8, 8), 0, 2), (100, 100), "A")
    with pytest.raises(TensorMapError, match="array has 1 dims, the box 2"):
        tensor_map_geometry(TensorMapParam(0, (8, 8), 0, 2), (100,))


class FakeMap:
    """Stands in for ``driver.CUtensorMap``: 128 bytes behind ``getPtr``."""

    def __init__(self) -> None:
        self.raw = (ctypes.c_uint64 * 16)(*range(16))

    def getPtr(self) -> int:  # noqa: N802 - the driver's spelling
        return ctypes.addressof(self.raw)


def test_kernel_params_point_at_each_value() -> None:
    tmap = FakeMap()
    keep, params = kernel_params([0xDEAD0000, np.int32(-7), tmap])
    assert len(keep) == 3 and params.dtype == np.uint64
    assert ctypes.c_uint64.from_address(int(params[0])).value == 0xDEAD0000
    assert ctypes.c_int32.from_address(int(params[1])).value == -7
    assert int(params[2]) == tmap.getPtr()
    with pytest.raises(TypeError, match="unsupported type str"):
        kernel_params(["x"])


def test_read_box_fills_zero_outside() -> None:
    src = np.arange(1, 13, dtype=np.int32).reshape(3, 4)
    box = read_box(src, (-1, 2), (3, 3))
    np.testing.assert_array_equal(box, [[0, 0, 0], [3, 4, 0], [7, 8, 0]])
    assert not read_box(src, (5, 0), (2, 2)).any()


def test_tma_load_places_rows_swizzled() -> None:
    """128B swizzle, f16: element (r, c) of a 64-wide box lands in 16-byte chunk
    ``(c // 8) ^ (r % 8)`` of row r."""
    src = np.arange(64 * 64, dtype=np.uint16).reshape(64, 64)
    shared = np.zeros(4096, dtype=np.uint16)
    assert tma_load_into(shared, src, (0, 0), (64, 64), 128) == 8192
    r, c = 5, 19
    assert shared[r * 64 + (((c // 8) ^ (r % 8)) * 8) + c % 8] == src[r, c]
    assert sorted(shared.tolist()) == list(range(4096))
    with pytest.raises(TmaError, match="TMA destination at byte 256 is not 1024-byte aligned"):
        tma_load_into(shared, src, (0, 0), (8, 64), 128, base=128)


HAS_GPU, WHY = gpu_available()
CASES = {
    "tma_swizzle128": [((64, 128), (64, 64), 0)],
    "tma_ragged": [((80, 48), (32, 32), 0), ((-8, -16), (32, 32), 1024)],
}


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_GPU, reason=WHY)
@pytest.mark.parametrize("name", sorted(CASES))
def test_tma_kernel_bit_exact(name: str) -> None:
    from regcopy_backend.runtime.runner import run_kernel
    from regcopy_tools.regcopy_run import prepare, random_inputs

    path = KERNELS / f"{name}.mlir"
    prepared = prepare(path.read_text(), str(path))
    (info,) = prepared.kernels
    g, o = random_inputs(info, np.random.default_rng(5))
    out = run_kernel(prepared.source, info, [g, o]).arrays[1]
    want = np.zeros(o.size, dtype=o.dtype)
    for coords, box, base in CASES[name]:
        part = np.zeros(int(np.prod(box)), dtype=o.dtype)
        tma_load_into(part, g, coords, box, 128)
        want[base:base + part.size] = part
    assert (out.view(np.uint8) == want.view(np.uint8)).all()


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_GPU, reason=WHY)
def test_tma_ring_streams_bit_exact() -> None:
    """test/gpu/kernels/tma_ring.mlir under transfer=tma: a 3-slot mbarrier ring reused over
    8 tiles per CTA (phases 0..2 of every slot); O equals G."""
    from regcopy_backend.runtime.runner import run_kernel
    from regcopy_tools.regcopy_run import prepare, random_inputs

    path = KERNELS / "tma_ring.mlir"
    prepared = prepare(path.read_text(), str(path), passes="lower-reg-copy{transfer=tma}")
    (info,) = prepared.kernels
    assert len(info.tensor_maps) == 1 and "cp.async.bulk.tensor.2d" in prepared.source
    g, o = random_inputs(info, np.random.default_rng(3))
    out = run_kernel(prepared.source, info, [g, o]).arrays[1]
    assert (out.view(np.uint8) == g.view(np.uint8)).all()


SMALL_RING = """
!S = memref<2x8x8xf32, #regcopy.layout<(2,8,8):(64,8,1), swizzle<2,1,3>>, #regcopy.mem<shared>>
func.func @small_ring(%G: memref<62x8xf32, #regcopy.mem<global>>, %O: memref<64x8xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 64, grid = [1]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %S = memref.alloca() : !S
  %t0 = regcopy.copy_async cta %G[0, 0] [8, 8] -> %S[0, 0, 0] [1, 8, 8] : memref<62x8xf32, #regcopy.mem<global>> -> !S
  %g0 = regcopy.async_group %t0
  %last = scf.for %k = %c0 to %c8 step %c1 iter_args(%ga = %g0) -> (!regcopy.token) {
    %k1 = arith.addi %k, %c1 : index
    %k1c = arith.minui %k1, %c7 : index
    %s1 = arith.remui %k1, %c2 : index
    %row1 = arith.muli %k1c, %c8 : index
    %t = regcopy.copy_async cta %G[%row1, 0] [8, 8] -> %S[%s1, 0, 0] [1, 8, 8] : memref<62x8xf32, #regcopy.mem<global>> -> !S
    %g = regcopy.async_group %t
    regcopy.async_wait %ga {pending = 1 : i64}
    %s = arith.remui %k, %c2 : index
    %r = arith.divui %tid, %c8 : index
    %c = arith.remui %tid, %c8 : index
    %v = memref.load %S[%s, %r, %c] : !S
    %row = arith.muli %k, %c8 : index
    %orow = arith.addi %row, %r : index
    memref.store %v, %O[%orow, %c] : memref<64x8xf32, #regcopy.mem<global>>
    "gpu.barrier"() : () -> ()
    scf.yield %g : !regcopy.token
  }
  func.return
}
"""


def test_lowered_tma_ring_on_the_interpreter() -> None:
    """A 2-slot ring of 8x8 f32 boxes (32-byte swizzle), 8 tiles of a 62-row tensor: the
    last tile hangs 2 rows over the edge. Lowered with transfer=tma, the CPU interpreter runs
    the mbarrier phases and lands each box at its wait: O is G with zero rows after row 62."""
    from regcopy_backend.cuda.kernel_info import kernel_info, kernels
    from regcopy_backend.runtime.cpu_run import run_on_cpu
    from regcopy_tools.regcopy_run import parse_and_lower, random_inputs

    lowered = parse_and_lower(SMALL_RING, "ring.mlir", "lower-reg-copy{transfer=tma}")
    assert "regcopy.tma_load" in str(lowered) and "copy_async" not in str(lowered)
    info = kernel_info(kernels(lowered)[0])
    assert info.tensor_maps[0].box == (8, 8) and info.tensor_maps[0].swizzle == 32
    g, o = random_inputs(info, np.random.default_rng(2))
    out = run_on_cpu(lowered, info.name, [g, o])[1]
    want = np.zeros_like(o)
    want[:62] = g
    np.testing.assert_array_equal(out, want)
