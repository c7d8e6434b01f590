"""Tensor maps for ``regcopy.tensor_map`` parameters, and the launch that passes them by value.

A kernel with TMA loads takes one ``const __grid_constant__ CUtensorMap`` (128 opaque bytes)
per ``regcopy.tensor_map`` op after its own parameters (``KernelInfo.tensor_maps``). For each,
the runner calls the driver's ``cuTensorMapEncodeTiled`` with the device pointer of the source
buffer and the extents of the argument array (so a box that hangs over the edge reads zeros:
the hardware fills every element outside the runtime extents with 0):

* ``tensor_map_geometry`` (pure): rank, global dims and byte strides in TMA order (dim 0
  innermost), box dims, element strides (all 1); a one-line ``TensorMapError`` for an array
  TMA cannot describe (stride not a multiple of 16 bytes, extent over 2^32);
* ``encode_tensor_map``: the driver call (unsigned data type of the element's size, no
  interleave, the op's swizzle, L2 promotion 128B, out-of-bounds fill zero), one line on failure;
* ``launch_raw``: ``cuLaunchKernel`` with a ``kernelParams`` array built here (one pointer per
  parameter to its bytes). ``cuda.core``'s ``launch`` marshals pointers and numpy scalars
  only, not a 128-byte struct by value, so kernels with tensor maps launch through the driver.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from regcopy_backend.cuda.kernel_info import TensorMapParam

TMA_STRIDE_ALIGN = 16
MAX_GLOBAL_DIM = 2**32
SWIZZLE_NAMES = {0: "NONE", 32: "32B", 64: "64B", 128: "128B"}


class TensorMapError(ValueError):
    """A tensor map cannot be built for an argument; the message is one line."""


@dataclass(frozen=True)
class Geometry:
    """``cuTensorMapEncodeTiled``'s shape arguments, TMA order (dim 0 innermost)."""

    rank: int
    dims: tuple[int, ...]
    strides: tuple[int, ...]  # bytes, dims 1 .. rank-1
    box: tuple[int, ...]
    element_strides: tuple[int, ...]


def tensor_map_geometry(tm: TensorMapParam, shape: Sequence[int], name: str = "") -> Geometry:
    """The geometry of ``tm`` over a row-major array of ``shape`` (outermost first)."""
    who = f"tensor map of buffer '{name}'" if name else "tensor map"
    if len(shape) != len(tm.box):
        raise TensorMapError(f"{who}: array has {len(shape)} dims, the box {len(tm.box)}")
    dims = tuple(int(d) for d in reversed(shape))
    if any(not 1 <= d <= MAX_GLOBAL_DIM for d in dims):
        raise TensorMapError(f"{who}: extents {list(shape)} must each be in 1..2^32")
    strides: list[int] = []
    step = tm.element_bytes
    for d in dims[:-1]:
        step *= d
        strides.append(step)
    bad = [s for s in strides if s % TMA_STRIDE_ALIGN]
    if bad:
        raise TensorMapError(f"{who}: row stride {bad[0]} bytes of shape {list(shape)} is not a "
                             f"multiple of 16 bytes (TMA needs it); pad the inner extent")
    return Geometry(len(dims), dims, tuple(strides), tuple(reversed(tm.box)),
                    (1,) * len(dims))


def encode_tensor_map(tm: TensorMapParam, address: int, shape: Sequence[int],
                      name: str = "") -> Any:
    """A ``cuda.bindings.driver.CUtensorMap`` for ``tm`` over the device array at
    ``address`` of ``shape``; ``TensorMapError`` (one line) if the driver refuses."""
    from cuda.bindings import driver

    geo = tensor_map_geometry(tm, shape, name)
    if address % TMA_STRIDE_ALIGN:
        raise TensorMapError(f"tensor map of buffer '{name}': address 0x{address:x} is not "
                             "16-byte aligned")
    dtype = getattr(driver.CUtensorMapDataType,
                    f"CU_TENSOR_MAP_DATA_TYPE_UINT{8 * tm.element_bytes}")
    swizzle = getattr(driver.CUtensorMapSwizzle,
                      f"CU_TENSOR_MAP_SWIZZLE_{SWIZZLE_NAMES[tm.swizzle]}")
    u64, u32 = driver.cuuint64_t, driver.cuuint32_t
    err, tmap = driver.cuTensorMapEncodeTiled(
        dtype, geo.rank, address, [u64(d) for d in geo.dims], [u64(s) for s in geo.strides],
        [u32(b) for b in geo.box], [u32(e) for e in geo.element_strides],
        driver.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        swizzle, driver.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
        driver.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    if err != driver.CUresult.CUDA_SUCCESS:
        raise TensorMapError(f"cuTensorMapEncodeTiled failed for buffer '{name}' ({err.name}): "
                             f"dims {list(geo.dims)}, strides {list(geo.strides)}, box "
                             f"{list(geo.box)}, swizzle {SWIZZLE_NAMES[tm.swizzle]}")
    return tmap


def kernel_params(values: Sequence[Any]) -> tuple[list[Any], np.ndarray]:
    """``cuLaunchKernel``'s ``kernelParams``: an array of pointers, one per parameter, to its
    bytes. A Python int is a device pointer (8 bytes), a numpy scalar its own bytes, a
    ``CUtensorMap`` its 128 bytes. Returns the storage to keep alive and the array."""
    keep: list[Any] = []
    addresses: list[int] = []
    for v in values:
        if isinstance(v, int):
            cell: Any = ctypes.c_uint64(v)
            addresses.append(ctypes.addressof(cell))
        elif isinstance(v, np.generic):
            cell = np.array([v])
            addresses.append(cell.ctypes.data)
        elif hasattr(v, "getPtr"):
            cell = v
            addresses.append(int(v.getPtr()))
        else:
            raise TypeError(f"kernel parameter of unsupported type {type(v).__name__}")
        keep.append(cell)
    return keep, np.array(addresses, dtype=np.uint64)


def launch_raw(kernel: Any, stream: Any, grid: tuple[int, int, int], block: int, shmem: int,
               values: Sequence[Any]) -> None:
    """Launch ``kernel`` (a ``cuda.core`` kernel) with ``values`` through ``cuLaunchKernel``."""
    from cuda.bindings import driver

    handle = kernel.handle
    if isinstance(handle, driver.CUkernel):
        err, func = driver.cuKernelGetFunction(handle)
        if err != driver.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cuKernelGetFunction failed ({err.name})")
    else:
        func = handle
    keep, params = kernel_params(values)
    (err,) = driver.cuLaunchKernel(func, *grid, block, 1, 1, shmem,
                                   driver.CUstream(int(stream.handle)), params.ctypes.data, 0)
    del keep
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuLaunchKernel failed ({err.name})")
