"""Run a printed kernel on the GPU through ``cuda.core`` with numpy arrays in and out.

``run_kernel(source, info, args)`` checks the arguments (``check_arguments``: one per parameter,
arrays big enough, scalars in range and keeping their ``regcopy.divisibility`` promise; a
one-line ``ArgumentError`` otherwise; a dynamic buffer's array shape must fit its type and
keep its ``regcopy.divisibility`` array, and is passed as its extents after its pointer),
compiles the CUDA source with ``cuda.core.Program``
(NVRTC, the device's own ``sm_XX``) and looks the kernel up by its C name, copies every array
to device memory (``Device.allocate``, staged through pinned host memory), checks that every
pointer is aligned for the widest vector the kernel uses (``check_alignment``, a pure function:
a clear ``AlignmentError``, never a misaligned-address fault), sets and passes the kernel's
dynamic shared memory, launches with the grid/block of ``regcopy.launch`` (or the ``grid``
given) and copies every
buffer back. Without a GPU or driver it raises ``NoGpuError`` with a one-line message.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from regcopy_backend.cuda.kernel_info import KernelInfo, KernelParam, Param
from regcopy_backend.runtime.tensor_map import (
    TensorMapError,
    encode_tensor_map,
    launch_raw,
)


class NoGpuError(RuntimeError):
    """No CUDA GPU (or no driver) is available; the message is one line."""


class AlignmentError(ValueError):
    """A global pointer is not aligned for the kernel's vector accesses."""


class ArgumentError(ValueError):
    """A launch argument does not fit its parameter (kind, size, range or divisibility
    promise); the message is one line."""


class LaunchError(RuntimeError):
    """Compiling, launching or copying failed on the GPU."""


def check_alignment(kernel: str, params: Sequence[Param], addresses: Sequence[int]) -> None:
    """Raise ``AlignmentError`` unless each address is a multiple of its buffer's alignment
    (element size, or the widest vector access made through it). ``addresses`` holds one
    pointer per *buffer* parameter of ``params``, in order (scalars are skipped)."""
    buffers = [p for p in params if isinstance(p, KernelParam)]
    if len(buffers) != len(addresses):
        raise AlignmentError(f"kernel {kernel} takes {len(buffers)} buffers, got "
                             f"{len(addresses)} pointers")
    for p, addr in zip(buffers, addresses, strict=True):
        if addr % p.alignment:
            raise AlignmentError(
                f"kernel {kernel}: buffer '{p.name}' at 0x{addr:x} is not {p.alignment}-byte "
                f"aligned (its widest access is {p.alignment} bytes); refusing to launch")


def check_arguments(info: KernelInfo, args: Sequence[Any]) -> None:
    """Refuse (``ArgumentError``, one line) arguments that do not fit ``info.params``: one per
    parameter, a numpy array holding at least the buffer's span for a buffer, a Python/numpy
    integer in range for an integer/index scalar (a float for f32/f64), and a multiple of the
    parameter's ``regcopy.divisibility`` promise where it has one."""
    kernel = info.name
    if len(args) != len(info.params):
        raise ArgumentError(f"kernel {kernel} takes {len(info.params)} arguments "
                            f"({_signature(info)}), got {len(args)}")
    for p, a in zip(info.params, args, strict=True):
        if isinstance(p, KernelParam):
            if not isinstance(a, np.ndarray):
                raise ArgumentError(f"kernel {kernel}: argument %{p.name} is a buffer; pass "
                                    f"a numpy array, not {type(a).__name__}")
            if p.dynamic:
                check_extents(kernel, p, a.shape, info.index64)
            elif a.size < p.elements:
                raise ArgumentError(f"kernel {kernel}: array for '{p.name}' has {a.size} "
                                    f"elements, the buffer spans {p.elements}")
            continue
        if p.dtype.kind == "f":
            if not isinstance(a, int | float | np.integer | np.floating):
                raise ArgumentError(f"kernel {kernel}: argument %{p.name} is {p.type}; "
                                    f"pass a number, not {type(a).__name__}")
            continue
        if isinstance(a, bool) or not isinstance(a, int | np.integer):
            raise ArgumentError(f"kernel {kernel}: argument %{p.name} is {p.type}; pass an "
                                f"int, not {type(a).__name__}")
        if (why := p.check(int(a))) is not None:
            raise ArgumentError(f"kernel {kernel}: argument %{p.name} {why}; refusing to "
                                "launch")


def check_extents(kernel: str, p: KernelParam, shape: Sequence[int], index64: bool) -> None:
    """Refuse (``ArgumentError``, one line naming the argument) an array shape that cannot be
    the dynamic buffer ``p``: the wrong rank or a static size, an extent below 1, over the
    index range, or one that breaks ``p``'s ``regcopy.divisibility`` promise. Pure: it runs
    before any CUDA call."""
    from regcopy_backend.interpreter.extents import divisor_problem, shape_problem

    problem = shape_problem(p.type, shape) or divisor_problem(shape, p.divisors)
    limit = 2**63 - 1 if index64 else 2**31 - 1
    if problem is None and int(np.prod(shape, dtype=np.float64)) > limit:
        problem = f"has {int(np.prod(shape))} elements, over the index range ({limit})"
    if problem is not None:
        raise ArgumentError(f"kernel {kernel}: array for '{p.name}' of shape "
                            f"{'x'.join(map(str, shape))} {problem}; refusing to launch")


def extent_values(info: KernelInfo, p: KernelParam, shape: Sequence[int]) -> list[Any]:
    """The extent parameters that follow the pointer of the dynamic buffer ``p``: one per
    ``?`` dimension, in dimension order, as the kernel's ``index`` type."""
    dtype = np.int64 if info.index64 else np.int32
    return [dtype(shape[d]) for d in p.dynamic_dims]


def launch_arguments(info: KernelInfo, args: Sequence[Any], pointers: Sequence[int]
                     ) -> list[Any]:
    """The kernel's parameters in printed order: per buffer its pointer (then its extents
    when dynamic), per scalar its numpy value."""
    ptrs = iter(pointers)
    out: list[Any] = []
    for p, a in zip(info.params, args, strict=True):
        if isinstance(p, KernelParam):
            out.append(next(ptrs))
            if p.dynamic:
                out.extend(extent_values(info, p, a.shape))
        else:
            out.append(scalar_value(p, a))
    return out


def grid_of(info: KernelInfo, grid: Sequence[int] | None) -> tuple[int, int, int]:
    """The launch grid: ``grid`` (1 to 3 sizes >= 1) over the ``regcopy.launch`` one."""
    if grid is None:
        return info.grid3
    if not 1 <= len(grid) <= 3 or any(int(g) < 1 for g in grid):
        raise ArgumentError(f"kernel {info.name}: grid {list(grid)} must be 1 to 3 sizes "
                            ">= 1")
    g = [int(x) for x in grid] + [1, 1]
    return g[0], g[1], g[2]


def _signature(info: KernelInfo) -> str:
    return ", ".join(f"%{p.name}: {'buffer' if isinstance(p, KernelParam) else p.type}"
                     for p in info.params)


def check_shared_memory(info: KernelInfo, optin_limit: int, device: str) -> None:
    """Refuse a kernel whose static + dynamic shared memory exceeds the device's per-block
    opt-in limit (``max_shared_memory_per_block_optin``)."""
    total = info.static_shared_bytes + info.dynamic_shared_bytes
    if total > optin_limit:
        raise LaunchError(
            f"kernel {info.name} needs {total} bytes of shared memory per block "
            f"({info.static_shared_bytes} static + {info.dynamic_shared_bytes} shared.dyn), "
            f"over the {optin_limit}-byte per-block limit of {device}; refusing to launch")


def cuda_core() -> Any:
    """The ``cuda.core`` namespace holding ``Device`` (``cuda.core.experimental`` before 0.5)."""
    from cuda import core

    if hasattr(core, "Device"):
        return core
    from cuda.core import experimental

    return experimental


def get_device() -> Any:
    """The current ``cuda.core.Device``; ``NoGpuError`` when there is none."""
    try:
        dev = cuda_core().Device()
        dev.set_current()
        return dev
    except Exception as e:  # noqa: BLE001 - any failure here means "no usable GPU"
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise NoGpuError(f"no CUDA GPU available ({first})") from None


def gpu_available() -> tuple[bool, str]:
    """``(True, device name)`` or ``(False, why not)``."""
    try:
        dev = get_device()
    except NoGpuError as e:
        return False, str(e)
    return True, str(dev.name)


@dataclass
class RunResult:
    """Outputs of one launch: every buffer copied back, and the kernel time."""

    arrays: list[np.ndarray]
    seconds: float


def compile_kernel(dev: Any, source: str, name: str) -> Any:
    """``cuda.core.Program`` -> cubin for the device's architecture -> the kernel whose C
    name is ``name`` (``KernelInfo.symbol``: MLIR names may have been mangled)."""
    core = cuda_core()
    from regcopy_backend.runtime.nvrtc import module_arch

    opts = core.ProgramOptions(arch=module_arch(source, f"sm_{dev.arch}"), std="c++17")
    try:
        module = core.Program(source, code_type="c++", options=opts).compile("cubin")
        return module.get_kernel(name)
    except Exception as e:  # noqa: BLE001 - surface the NVRTC/driver log as one error
        raise LaunchError(f"could not compile kernel {name}: {e}") from None


def set_dynamic_shared_memory(dev: Any, kernel: Any, size: int) -> None:
    """Allow ``kernel`` ``size`` bytes of dynamic shared memory (over the default 48 KiB):
    ``CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`` through ``cuKernelSetAttribute`` for a
    library kernel (``CUkernel``, what ``cuda.core`` 1.x hands out), else
    ``cuFuncSetAttribute``. ``cuda.core``'s kernel attributes are read-only."""
    from cuda.bindings import driver

    attr = driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    handle = kernel.handle
    if isinstance(handle, driver.CUkernel):
        device = driver.CUdevice(dev.device_id)
        result = driver.cuKernelSetAttribute(attr, size, handle, device)
    else:
        result = driver.cuFuncSetAttribute(handle, attr, size)
    (err, *_) = result if isinstance(result, tuple) else (result,)
    if err != driver.CUresult.CUDA_SUCCESS:
        raise LaunchError(f"could not allow {size} bytes of dynamic shared memory: {err.name}")


def scalar_value(p: Any, value: Any) -> Any:
    """A scalar argument as the numpy scalar of its parameter's C type (``cuda.core`` passes
    numpy scalars by their dtype; a plain Python int would go as a 64-bit ``intptr_t``)."""
    return p.dtype.type(value)


def _to_device(dev: Any, stream: Any, pinned_mr: Any, a: np.ndarray, shift: int) -> Any:
    """A device buffer holding ``a``'s bytes from byte ``shift`` on (staged through pinned
    host memory; ``cuda.core`` copies buffer to buffer)."""
    host = np.ascontiguousarray(a)
    size = shift + host.nbytes
    staging = pinned_mr.allocate(size)
    ctypes.memset(int(staging.handle), 0, size)
    ctypes.memmove(int(staging.handle) + shift, host.ctypes.data, host.nbytes)
    buf = dev.allocate(size, stream=stream)
    buf.copy_from(staging, stream=stream)
    stream.sync()
    staging.close()
    return buf


def _to_host(stream: Any, pinned_mr: Any, buf: Any, like: np.ndarray, shift: int) -> np.ndarray:
    """The bytes of ``buf`` from ``shift`` on, as an array shaped like ``like``."""
    staging = pinned_mr.allocate(shift + like.nbytes)
    buf.copy_to(staging, stream=stream)
    stream.sync()
    out = np.empty_like(np.ascontiguousarray(like))
    ctypes.memmove(out.ctypes.data, int(staging.handle) + shift, like.nbytes)
    staging.close()
    return out


def tensor_maps(info: KernelInfo, args: Sequence[Any], pointers: Sequence[int]) -> list[Any]:
    """The encoded ``CUtensorMap`` of each of ``info.tensor_maps`` (``tensor_map``), over
    the device pointer and the array shape of its source buffer."""
    if not info.tensor_maps:
        return []
    buffer_index = {k: b for b, k in enumerate(
        k for k, p in enumerate(info.params) if isinstance(p, KernelParam))}
    return [encode_tensor_map(tm, pointers[buffer_index[tm.source]], args[tm.source].shape,
                              info.params[tm.source].name) for tm in info.tensor_maps]


def run_kernel(source: str, info: KernelInfo, args: Sequence[Any],
               offsets: Sequence[int] | None = None, kernel: Any = None,
               grid: Sequence[int] | None = None) -> RunResult:
    """Compile ``source`` (unless ``kernel`` is given), run ``info``'s kernel once and return
    every buffer after the launch.

    ``args`` holds one argument per parameter, in order: a numpy array for a buffer (copied to
    the device), a Python int for an integer/``index`` scalar (a number for f32/f64).
    ``check_arguments`` refuses bad ones before anything is launched. ``offsets`` (bytes, one
    per *buffer*) shift the pointers handed to the kernel; the alignment check then refuses
    misaligned ones. The kernel is looked up by its C name (``info.symbol``). A kernel with
    ``shared.dyn`` buffers gets its dynamic shared size set and passed at launch, after
    checking it against the device's per-block opt-in limit. ``RunResult.arrays`` holds the
    buffers only, in order (``info.buffers``). A dynamic buffer's extents are its array's
    shape (passed after its pointer); ``grid`` overrides the launch attribute's grid."""
    check_arguments(info, args)
    grid3 = grid_of(info, grid)
    arrays = [a for p, a in zip(info.params, args, strict=True) if isinstance(p, KernelParam)]
    shifts = list(offsets) if offsets is not None else [0] * len(arrays)
    if len(shifts) != len(arrays) or min(shifts, default=0) < 0:
        raise ArgumentError(f"need one non-negative byte offset per buffer ({len(arrays)}), "
                            f"got {shifts}")
    dev = get_device()
    core = cuda_core()
    check_shared_memory(info, int(dev.properties.max_shared_memory_per_block_optin),
                        str(dev.name))
    stream = dev.create_stream()
    pinned = core.LegacyPinnedMemoryResource()
    if kernel is None:
        kernel = compile_kernel(dev, source, info.symbol)
    if info.dynamic_shared_bytes:
        set_dynamic_shared_memory(dev, kernel, info.dynamic_shared_bytes)
    bufs = [_to_device(dev, stream, pinned, a, s) for a, s in zip(arrays, shifts, strict=True)]
    try:
        ptrs = [int(b.handle) + s for b, s in zip(bufs, shifts, strict=True)]
        check_alignment(info.name, info.params, ptrs)
        launch_args = launch_arguments(info, args, ptrs)
        config = core.LaunchConfig(grid=grid3, block=info.block,
                                   shmem_size=info.dynamic_shared_bytes)
        maps = tensor_maps(info, args, ptrs)
        start = time.perf_counter()
        if maps:
            launch_raw(kernel, stream, grid3, info.block, info.dynamic_shared_bytes,
                       launch_args + maps)
        else:
            core.launch(stream, config, kernel, *launch_args)
        stream.sync()
        seconds = time.perf_counter() - start
        outs = [_to_host(stream, pinned, b, a, s)
                for b, a, s in zip(bufs, arrays, shifts, strict=True)]
    except (AlignmentError, TensorMapError):
        raise
    except Exception as e:  # noqa: BLE001 - a driver error becomes one LaunchError
        raise LaunchError(f"kernel {info.name} failed: {e}") from None
    finally:
        for b in bufs:
            b.close(stream)
    return RunResult(outs, seconds)
