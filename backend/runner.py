"""Run a printed kernel on the GPU through ``cuda.core`` with numpy arrays in and out (SPEC §5).

``run_kernel(source, info, arrays)`` compiles the CUDA source with ``cuda.core.Program`` (NVRTC,
the device's own ``sm_XX``), copies every array to device memory (``Device.allocate``, staged
through pinned host memory), checks that every pointer is aligned for the widest vector the
kernel uses (``check_alignment``, a pure function: a clear ``AlignmentError``, never a
misaligned-address fault), launches with the grid/block of ``regcopy.launch`` and copies every
buffer back. Without a GPU or driver it raises ``NoGpuError`` with a one-line message.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from regcopy_backend.kernel_info import KernelInfo, KernelParam


class NoGpuError(RuntimeError):
    """No CUDA GPU (or no driver) is available; the message is one line."""


class AlignmentError(ValueError):
    """A global pointer is not aligned for the kernel's vector accesses."""


class LaunchError(RuntimeError):
    """Compiling, launching or copying failed on the GPU."""


def check_alignment(kernel: str, params: Sequence[KernelParam],
                    addresses: Sequence[int]) -> None:
    """Raise ``AlignmentError`` unless each address is a multiple of its parameter's
    alignment (element size, or the widest vector access made through it)."""
    if len(params) != len(addresses):
        raise AlignmentError(f"kernel {kernel} takes {len(params)} buffers, got "
                             f"{len(addresses)} pointers")
    for p, addr in zip(params, addresses, strict=True):
        if addr % p.alignment:
            raise AlignmentError(
                f"kernel {kernel}: buffer '{p.name}' at 0x{addr:x} is not {p.alignment}-byte "
                f"aligned (its widest access is {p.alignment} bytes); refusing to launch")


def check_arrays(info: KernelInfo, arrays: Sequence[np.ndarray]) -> None:
    """Each host array must hold at least the elements its buffer spans."""
    if len(arrays) != len(info.params):
        raise ValueError(f"kernel {info.name} takes {len(info.params)} buffers, got "
                         f"{len(arrays)} arrays")
    for p, a in zip(info.params, arrays, strict=True):
        if a.size < p.elements:
            raise ValueError(f"kernel {info.name}: array for '{p.name}' has {a.size} "
                             f"elements, the buffer spans {p.elements}")


def cuda_core() -> Any:
    """The ``cuda.core`` namespace holding ``Device`` (``cuda.core.experimental`` before 0.5)."""
    import cuda.core as core

    if hasattr(core, "Device"):
        return core
    import cuda.core.experimental as experimental

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
    """``cuda.core.Program`` -> cubin for the device's architecture -> the named kernel."""
    core = cuda_core()
    opts = core.ProgramOptions(arch=f"sm_{dev.arch}", std="c++17")
    try:
        module = core.Program(source, code_type="c++", options=opts).compile("cubin")
        return module.get_kernel(name)
    except Exception as e:  # noqa: BLE001 - surface the NVRTC/driver log as one error
        raise LaunchError(f"could not compile kernel {name}: {e}") from None


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


def run_kernel(source: str, info: KernelInfo, arrays: Sequence[np.ndarray],
               offsets: Sequence[int] | None = None, kernel: Any = None) -> RunResult:
    """Compile ``source`` (unless ``kernel`` is given), run ``info``'s kernel once on copies of
    ``arrays`` and return every buffer after the launch. ``offsets`` (bytes, per buffer) shift
    the pointers handed to the kernel; the alignment check then refuses misaligned ones."""
    check_arrays(info, arrays)
    shifts = list(offsets) if offsets is not None else [0] * len(arrays)
    if len(shifts) != len(arrays) or min(shifts, default=0) < 0:
        raise ValueError(f"need one non-negative byte offset per buffer, got {shifts}")
    dev = get_device()
    core = cuda_core()
    stream = dev.create_stream()
    pinned = core.LegacyPinnedMemoryResource()
    if kernel is None:
        kernel = compile_kernel(dev, source, info.name)
    bufs = [_to_device(dev, stream, pinned, a, s) for a, s in zip(arrays, shifts, strict=True)]
    try:
        ptrs = [int(b.handle) + s for b, s in zip(bufs, shifts, strict=True)]
        check_alignment(info.name, info.params, ptrs)
        config = core.LaunchConfig(grid=info.grid3, block=info.block)
        start = time.perf_counter()
        core.launch(stream, config, kernel, *ptrs)
        stream.sync()
        seconds = time.perf_counter() - start
        outs = [_to_host(stream, pinned, b, a, s)
                for b, a, s in zip(bufs, arrays, shifts, strict=True)]
    except AlignmentError:
        raise
    except Exception as e:  # noqa: BLE001 - a driver error becomes one LaunchError
        raise LaunchError(f"kernel {info.name} failed: {e}") from None
    finally:
        for b in bufs:
            b.close(stream)
    return RunResult(outs, seconds)
