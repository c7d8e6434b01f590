"""Shared memory of a kernel: static ``shared`` buffers and the carve-up of ``shared.dyn``.

* a ``shared`` alloca is a static ``__shared__ alignas(128) T name[span]`` array; NVRTC/ptxas
  allow at most ``STATIC_LIMIT`` = 48 KiB of static shared memory per kernel;
* the ``shared.dyn`` allocas of a kernel live in one ``extern __shared__`` byte array: buffer
  ``k`` starts at ``offset_k = round_up(offset_{k-1} + bytes_{k-1}, 128)`` (``offset_0 = 0``), in
  program order, and the kernel's dynamic byte count is ``offset_last + bytes_last`` (0 without
  ``shared.dyn``). The runner passes that count at launch;
* static + dynamic bytes must fit the per-block opt-in limit: ``SM90_OPTIN_LIMIT`` = 227 KiB
  (232448 bytes) on sm_90, and the device's own attribute at launch.

Exceeding a limit is a ``SharedMemoryError`` naming the buffers and their sizes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from xdsl.dialects import func, memref
from xdsl.dialects.builtin import MemRefType, ModuleOp

from regcopy_backend.cuda.types import element_bytes
from regcopy_passes.reg_copy.staging_budget import DYN_ALIGN, SM90_OPTIN_LIMIT, STATIC_LIMIT
from regcopy_dialect.regcopy import MemSpace, buffer_layout, memory_space



class SharedMemoryError(ValueError):
    """A kernel's shared memory exceeds a limit; the message names the buffers."""


@dataclass(frozen=True)
class SharedBuffer:
    """One shared alloca: its name, size, and (``shared.dyn`` only) byte offset."""

    name: str
    bytes: int
    offset: int | None  # None for a static ``shared`` buffer

    @property
    def dynamic(self) -> bool:
        return self.offset is not None

    def describe(self) -> str:
        return f"%{self.name} ({self.bytes} bytes)"


@dataclass(frozen=True)
class SharedUsage:
    """All shared buffers of one function, in program order."""

    buffers: tuple[SharedBuffer, ...]

    @property
    def static(self) -> tuple[SharedBuffer, ...]:
        return tuple(b for b in self.buffers if not b.dynamic)

    @property
    def dynamic(self) -> tuple[SharedBuffer, ...]:
        return tuple(b for b in self.buffers if b.dynamic)

    @property
    def static_bytes(self) -> int:
        return sum(b.bytes for b in self.static)

    @property
    def dynamic_bytes(self) -> int:
        """End of the last ``shared.dyn`` buffer (the ``shmem_size`` of the launch)."""
        return max((cast(int, b.offset) + b.bytes for b in self.dynamic), default=0)

    @property
    def total_bytes(self) -> int:
        return self.static_bytes + self.dynamic_bytes


def round_up(n: int, k: int) -> int:
    return -(-n // k) * k


def alloca_bytes(t: MemRefType) -> int:
    """Bytes of a shared buffer: its layout's span times the element size."""
    return buffer_layout(t).span() * element_bytes(t.element_type)


def shared_allocas(f: func.FuncOp) -> list[memref.AllocaOp]:
    """The ``shared``/``shared.dyn`` allocas of ``f``, in program order."""
    return [op for op in f.walk() if isinstance(op, memref.AllocaOp)
            and memory_space(cast(MemRefType, op.memref.type)) in (MemSpace.SHARED,
                                                                    MemSpace.SHARED_DYN)]


def alloca_alignment(op: memref.AllocaOp) -> int:
    """Bytes a shared buffer is aligned to: 128, or its ``alignment`` if larger (a TMA
    destination with a 128-byte swizzle asks for 1024)."""
    return max(DYN_ALIGN, op.alignment.value.data if op.alignment is not None else 0)


def dynamic_shared_alignment(module: ModuleOp) -> int | None:
    """The alignment of the module's one ``extern __shared__`` array: the largest any
    ``shared.dyn`` buffer of any kernel needs (None without ``shared.dyn``). Every kernel of
    a module sees the same declaration, so it must satisfy all of them."""
    aligns = [alloca_alignment(op) for op in module.walk()
              if isinstance(op, memref.AllocaOp)
              and memory_space(cast(MemRefType, op.memref.type)) == MemSpace.SHARED_DYN]
    return max(aligns, default=None)


SCRATCH_ATTR = "regcopy.scratch"
"""On a ``shared.dyn`` alloca: the scratch tile of a register <-> register conversion."""


def shared_usage(f: func.FuncOp) -> SharedUsage:
    """The shared buffers of ``f`` with the ``shared.dyn`` offsets of the module docstring;
    the conversions' scratch tiles (``regcopy.scratch``, whose lifetimes never overlap: each is
    written and read between barriers by one conversion) all start at one offset after the
    other ``shared.dyn`` buffers, so they take the largest one's bytes, not their sum."""
    out: list[SharedBuffer | memref.AllocaOp] = []
    end = 0
    scratch: list[tuple[int, memref.AllocaOp]] = []
    for k, op in enumerate(shared_allocas(f)):
        t = cast(MemRefType, op.memref.type)
        name = op.memref.name_hint or f"shared{k}"
        size = alloca_bytes(t)
        if memory_space(t) == MemSpace.SHARED_DYN and SCRATCH_ATTR in op.attributes:
            scratch.append((len(out), op))
            out.append(op)
        elif memory_space(t) == MemSpace.SHARED_DYN:
            offset = round_up(end, alloca_alignment(op))
            end = offset + size
            out.append(SharedBuffer(name, size, offset))
        else:
            out.append(SharedBuffer(name, size, None))
    if scratch:
        start = round_up(end, max(alloca_alignment(op) for _, op in scratch))
        for k, op in scratch:
            t = cast(MemRefType, op.memref.type)
            out[k] = SharedBuffer(op.memref.name_hint or f"shared{k}", alloca_bytes(t), start)
    return SharedUsage(tuple(cast(SharedBuffer, b) for b in out))


def _listing(buffers: tuple[SharedBuffer, ...]) -> str:
    return ", ".join(b.describe() for b in buffers)


def check_shared_limits(kernel: str, usage: SharedUsage,
                        limit: int = SM90_OPTIN_LIMIT, where: str = "sm_90") -> None:
    """``SharedMemoryError`` when static shared memory exceeds 48 KiB, or static + dynamic
    exceeds ``limit`` (the per-block opt-in limit of ``where``)."""
    if usage.static_bytes > STATIC_LIMIT:
        raise SharedMemoryError(
            f"kernel {kernel}: static shared memory is {usage.static_bytes} bytes "
            f"({_listing(usage.static)}), over the {STATIC_LIMIT}-byte (48 KiB) limit of "
            "static __shared__ arrays; allocate the large buffers in #regcopy.mem<shared.dyn> "
            "(dynamic shared memory, up to 227 KiB per block on sm_90)")
    if usage.total_bytes > limit:
        raise SharedMemoryError(
            f"kernel {kernel}: shared memory is {usage.total_bytes} bytes "
            f"({_listing(usage.buffers)}; shared.dyn buffers are {DYN_ALIGN}-byte aligned), "
            f"over the {limit}-byte per-block limit of {where}")
