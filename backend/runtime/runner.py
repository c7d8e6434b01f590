"""Run a printed kernel on the GPU through ``cuda.core``: numpy arrays in and out, or device
arrays (torch tensors, ``__cuda_array_interface__``, DLPack) used in place.

``run_kernel(source, info, args)`` checks the arguments against the signature before anything
else (``arguments.check_arguments``: one per parameter; per buffer its element type, shape and
size — or its runtime extents and their ``regcopy.divisibility`` array —; scalars in range and
keeping their promise; a one-line ``ArgumentError`` otherwise, nothing copied or launched),
passes a dynamic buffer's extents after its pointer (a strided buffer takes a numpy view,
``A[:, :100]`` of a larger array, or a contiguous device array: the view's span is copied and
its strides passed after the extents, ``strided_host``), launches nothing when a dynamic
buffer has an extent 0 (``RunResult.skipped``), compiles the CUDA source with
``cuda.core.Program`` (NVRTC, the device's own ``sm_XX``; a runtime-shaped kernel in its
32-bit form when every offset of the launch fits in an ``int``: ``index_width``; each form
compiled once per process) and looks the kernel up by its C name, copies every host array to
device memory (``Device.allocate``, staged
through pinned host memory), checks that every pointer is aligned for the widest vector the
kernel uses (``check_alignment``, a pure function: a clear ``AlignmentError``, never a
misaligned-address fault from a pointer; a broken ``regcopy.multiple_of`` promise inside the
kernel is not a pointer and is not checked here), sets and passes the kernel's dynamic shared
memory, launches with the grid/block of ``regcopy.launch`` (or the ``grid`` given: sizes or a
function of the extents) and copies every host buffer back. Without a GPU or driver it raises
``NoGpuError`` with a one-line message.
"""

from __future__ import annotations

import ctypes
import hashlib
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from regcopy_backend.cuda.kernel_info import KernelInfo, KernelParam, Param
from regcopy_backend.cuda.types import INDEX32_MACRO
from regcopy_backend.runtime.arguments import (
    ArgumentError,
    ArrayArg,
    array_arg,
    check_arguments,
    check_extents,
    empty_launch,
    signature,
)
from regcopy_backend.runtime.index_width import launch_index32
from regcopy_backend.runtime.strided_host import from_span, span_of, view_strides
from regcopy_backend.runtime.tensor_map import (
    TensorMapError,
    encode_tensor_map,
    launch_raw,
)
from regcopy_dialect.radix import suffix_product

__all__ = ["AlignmentError", "ArgumentError", "LaunchError", "NoGpuError", "RunResult",
           "check_alignment", "check_arguments", "check_extents", "run_kernel", "signature"]

GridSpec = Sequence[int] | Callable[[Mapping[str, Any]], Any]
"""A launch grid: 1 to 3 sizes, or a function of ``launch_facts`` that returns them."""


class NoGpuError(RuntimeError):
    """No CUDA GPU (or no driver) is available; the message is one line."""


class AlignmentError(ValueError):
    """A global pointer is not aligned for the kernel's vector accesses."""


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


def stride_values(info: KernelInfo, p: KernelParam, a: Any) -> list[Any]:
    """The stride parameters that follow a strided buffer's extents: one per ``?`` stride,
    in dimension order, in elements, as the kernel's ``index`` type."""
    dtype = np.int64 if info.index64 else np.int32
    strides = element_strides(p, a)
    return [dtype(strides[d]) for d in p.stride_dims]


def element_strides(p: KernelParam, a: Any) -> tuple[int, ...]:
    """The element strides of the array ``a`` for the strided buffer ``p``: a numpy view's
    (``strided_host.view_strides``); a device array is contiguous (``check_arguments``), so
    row-major."""
    if isinstance(a, np.ndarray):
        return view_strides(p.type, a)
    return suffix_product(_shape(a))


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
                out.extend(extent_values(info, p, _shape(a)))
            if p.strided:
                out.extend(stride_values(info, p, a))
        else:
            out.append(scalar_value(p, a))
    return out


def _shape(a: Any) -> tuple[int, ...]:
    """The shape of an array argument of any kind ``array_arg`` accepts."""
    arr = array_arg(a)
    return arr.shape if arr is not None else tuple(a.shape)


def grid_of(info: KernelInfo, grid: GridSpec | None,
            args: Sequence[Any] = (), arrays: Sequence[ArrayArg | None] = ()
            ) -> tuple[int, int, int]:
    """The launch grid: ``grid`` (1 to 3 sizes >= 1, or a function of the arguments'
    runtime facts that returns them: ``launch_facts``) over the ``regcopy.launch`` one."""
    if grid is None:
        return info.grid3
    sizes: Any = grid
    if callable(grid):
        try:
            sizes = grid(launch_facts(info, args, arrays))
        except Exception as e:  # noqa: BLE001 - the user's function: one line naming it
            raise ArgumentError(f"kernel {info.name}: the grid function failed: "
                                f"{type(e).__name__}: {e}") from None
        if isinstance(sizes, int | np.integer):
            sizes = (int(sizes),)
    if (not isinstance(sizes, Sequence) or not 1 <= len(sizes) <= 3
            or any(int(g) < 1 for g in sizes)):
        raise ArgumentError(f"kernel {info.name}: grid {sizes!r} must be 1 to 3 sizes >= 1")
    g = [int(x) for x in sizes] + [1, 1]
    return g[0], g[1], g[2]


def launch_facts(info: KernelInfo, args: Sequence[Any], arrays: Sequence[ArrayArg | None]
                 ) -> dict[str, Any]:
    """What a grid function sees: per buffer parameter name its array's shape (a tuple),
    per scalar parameter name its value."""
    out: dict[str, Any] = {}
    for p, a, arr in zip(info.params, args, arrays, strict=True):
        out[p.name] = arr.shape if arr is not None else a
    return out


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
    """Outputs of one launch: every buffer after it (a host array's copy back, a device
    array itself, written in place), the kernel time, and ``skipped``: why nothing was
    launched, if so (the arrays are then the arguments, untouched)."""

    arrays: list[Any]
    seconds: float
    skipped: str | None = None  # why nothing was launched (an empty buffer)
    index32: bool = False
    """Whether ``run_kernel`` chose and compiled the 32-bit form (``index_width``); False
    when the caller passed its own compiled ``kernel``."""


MODULE_CACHE_SIZE = 32
"""Compiled sources ``compile_kernel`` keeps per process (least recently used dropped first)."""
_modules: OrderedDict[tuple[Any, ...], Any] = OrderedDict()


def compile_kernel(dev: Any, source: str, name: str, index32: bool = False) -> Any:
    """``cuda.core.Program`` -> cubin for the device's architecture -> the kernel whose C
    name is ``name`` (``KernelInfo.symbol``: MLIR names may have been mangled); ``index32``:
    compiled with ``-DREGCOPY_INDEX32`` (``rc_index`` is ``int``: ``index_width``). The
    compiled source is cached per process by (device, source, width): every kernel of a
    source, in each width, costs one NVRTC compile however often it is launched."""
    key = (dev.device_id, hashlib.sha256(source.encode()).digest(), index32)
    try:
        if (module := _modules.get(key)) is None:
            core = cuda_core()
            from regcopy_backend.cuda.nvrtc import module_arch

            opts = core.ProgramOptions(arch=module_arch(source, f"sm_{dev.arch}"),
                                       std="c++17",
                                       define_macro=INDEX32_MACRO if index32 else None)
            module = core.Program(source, code_type="c++", options=opts).compile("cubin")
            _modules[key] = module
            if len(_modules) > MODULE_CACHE_SIZE:
                _modules.popitem(last=False)
        _modules.move_to_end(key)
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
    return [encode_tensor_map(tm, pointers[buffer_index[tm.source]], _shape(args[tm.source]),
                              info.params[tm.source].name) for tm in info.tensor_maps]


def run_kernel(source: str, info: KernelInfo, args: Sequence[Any],
               offsets: Sequence[int] | None = None, kernel: Any = None,
               grid: GridSpec | None = None) -> RunResult:
    """Compile ``source`` (unless ``kernel`` is given), run ``info``'s kernel once and return
    every buffer after the launch.

    ``args`` holds one argument per parameter, in order: for a buffer a numpy array (copied
    to the device and back) or a device array used in place, without a host copy (a torch
    CUDA tensor, anything with ``__cuda_array_interface__`` or DLPack); a Python int for an
    integer/``index`` scalar (a number for f32/f64). ``check_arguments`` refuses bad ones —
    element type, shape, size, range, promises — before anything is copied or launched. A
    dynamic buffer with an extent 0 launches nothing (``RunResult.skipped`` says so).
    ``offsets`` (bytes, one per *buffer*; host arrays only) shift the pointers handed to the
    kernel; the alignment check then refuses misaligned ones. The kernel is looked up by its
    C name (``info.symbol``). A kernel with ``shared.dyn`` buffers gets its dynamic shared
    size set and passed at launch, after checking it against the device's per-block opt-in
    limit. ``RunResult.arrays`` holds the buffers only, in order (``info.buffers``). A
    dynamic buffer's extents are its array's shape (passed after its pointer); a strided
    buffer takes a numpy view (its span is copied, its strides passed after the extents, and
    ``RunResult.arrays`` holds the view's elements) or a contiguous device array; ``grid``
    (sizes, or a function of ``launch_facts``: ``lambda f: (cdiv(f["X"][0], 8),)``)
    overrides the launch attribute's grid. A kernel with runtime-shaped buffers is compiled
    (once per process, ``compile_kernel``) in its 32-bit form when every offset the launch
    can form fits in an ``int`` (``launch_index32``), else in its 64-bit form; a ``kernel``
    given is launched as it is (both forms take the same arguments)."""
    facts = check_arguments(info, args)
    grid3 = grid_of(info, grid, args, facts)
    pairs = [(a, f) for p, a, f in zip(info.params, args, facts, strict=True)
             if isinstance(p, KernelParam) and f is not None]
    params = [p for p in info.params if isinstance(p, KernelParam)]
    shifts = list(offsets) if offsets is not None else [0] * len(pairs)
    if len(shifts) != len(pairs) or min(shifts, default=0) < 0:
        raise ArgumentError(f"need one non-negative byte offset per buffer ({len(pairs)}), "
                            f"got {shifts}")
    if any(s and f.pointer is not None for (_, f), s in zip(pairs, shifts, strict=True)):
        raise ArgumentError("byte offsets apply to host (numpy) arrays only")
    if (why := empty_launch(info, facts)) is not None:
        return RunResult([a for a, _ in pairs], 0.0, skipped=why)
    dev = get_device()
    core = cuda_core()
    check_shared_memory(info, int(dev.properties.max_shared_memory_per_block_optin),
                        str(dev.name))
    stream = dev.create_stream()
    pinned = core.LegacyPinnedMemoryResource()
    index32 = False
    if kernel is None:
        index32 = launch_index32(info, args, facts, grid3)
        kernel = compile_kernel(dev, source, info.symbol, index32)
    if info.dynamic_shared_bytes:
        set_dynamic_shared_memory(dev, kernel, info.dynamic_shared_bytes)
    bufs = [None if f.pointer is not None
            else _to_device(dev, stream, pinned, _staged(p, a), s)
            for p, (a, f), s in zip(params, pairs, shifts, strict=True)]
    try:
        ptrs = [f.pointer if b is None else int(b.handle) + s
                for (_, f), b, s in zip(pairs, bufs, shifts, strict=True)]
        check_alignment(info.name, info.params, ptrs)
        if any(f.pointer is not None for _, f in pairs):
            dev.sync()  # device arrays: whatever stream wrote them has finished
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
        outs = [a if b is None else _from_staged(p, a, _to_host(stream, pinned, b,
                                                                _staged(p, a), s))
                for p, (a, _), b, s in zip(params, pairs, bufs, shifts, strict=True)]
    except (AlignmentError, TensorMapError):
        raise
    except Exception as e:  # noqa: BLE001 - a driver error becomes one LaunchError
        raise LaunchError(f"kernel {info.name} failed: {e}") from None
    finally:
        for b in bufs:
            if b is not None:
                try:
                    b.close(stream)
                except Exception:  # noqa: BLE001, S110 - after a trap the context is gone;
                    pass  # the launch's own error is the one to report
    return RunResult(outs, seconds, index32=index32)


def _staged(p: KernelParam, a: Any) -> np.ndarray:
    """What a host array argument copies to the device: for a strided buffer, the numpy
    view's span (gaps between rows included), else the array (``_host``)."""
    if p.strided and isinstance(a, np.ndarray):
        return span_of(a, view_strides(p.type, a))
    return _host(a)


def _from_staged(p: KernelParam, a: Any, out: np.ndarray) -> np.ndarray:
    """The launch's copy of a host array argument from what came back (``_staged``): for a
    strided buffer, the view's elements."""
    if p.strided and isinstance(a, np.ndarray):
        return from_span(out, a.shape, view_strides(p.type, a))
    return out


def _host(a: Any) -> np.ndarray:
    """A host array argument as numpy (a CPU torch tensor through ``numpy()``, bf16/fp8 as
    their raw bits)."""
    if isinstance(a, np.ndarray):
        return a
    t = a.detach().contiguous()
    try:
        return np.asarray(t.numpy())
    except TypeError:  # bf16/fp8: numpy has no such type; their raw bits
        import torch

        raw = torch.int16 if t.element_size() == 2 else torch.uint8
        out = t.view(raw).numpy()
        return out.view(np.uint16) if t.element_size() == 2 else out
