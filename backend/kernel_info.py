"""Facts about a kernel ``func.func`` that both the printer and the runner need: launch
configuration, parameters, index width, and the alignment each global pointer must have."""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import cast

from xdsl.dialects import func, vector
from xdsl.dialects.builtin import MemRefType, ModuleOp, VectorType
from xdsl.ir import Operation, SSAValue

from regcopy_backend.cuda_types import element_bytes, vector_bytes
from regcopy_dialect.regcopy import LaunchAttr, StorageOp, buffer_layout

LAUNCH = "regcopy.launch"
INDEX64_THRESHOLD = 2**31
"""A buffer of this many elements or more makes a kernel's index math 64-bit (SPEC §4)."""


@dataclass(frozen=True)
class KernelParam:
    """One global-buffer parameter of a kernel."""

    name: str
    type: MemRefType
    alignment: int  # bytes: element size, or the widest vector access through it

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.type.get_shape())

    @property
    def elements(self) -> int:
        """Elements the host array holds: the span of the buffer's layout."""
        return buffer_layout(self.type).span()


@dataclass(frozen=True)
class KernelInfo:
    """What it takes to launch one kernel."""

    name: str
    block: int
    grid: tuple[int, ...]
    params: tuple[KernelParam, ...]
    index64: bool
    widest_vector: int  # bytes; 0 when the kernel has no vector access

    @property
    def grid3(self) -> tuple[int, int, int]:
        g = tuple(self.grid) + (1, 1, 1)
        return cast(tuple[int, int, int], g[:3])


def is_kernel(op: Operation) -> bool:
    """A kernel is a ``func.func`` carrying ``regcopy.launch``."""
    return isinstance(op, func.FuncOp) and isinstance(op.attributes.get(LAUNCH), LaunchAttr)


def kernels(module: ModuleOp) -> list[func.FuncOp]:
    """The kernel funcs of a module, in order."""
    return [op for op in module.ops if is_kernel(op) and isinstance(op, func.FuncOp)]


def buffer_elements(t: MemRefType) -> int:
    """Elements a buffer spans: its logical size or its layout's span, whichever is larger."""
    return max(prod(t.get_shape()), buffer_layout(t).span())


def _memref_values(f: func.FuncOp) -> list[SSAValue]:
    values: list[SSAValue] = list(f.args)
    for op in f.walk():
        values.extend(op.results)
        for region in op.regions:
            for block in region.blocks:
                values.extend(block.args)
    return [v for v in values if isinstance(v.type, MemRefType)]


def needs_index64(f: func.FuncOp) -> bool:
    """Whether ``f`` touches a buffer of 2^31 elements or more (then index math is 64-bit)."""
    return any(buffer_elements(cast(MemRefType, v.type)) >= INDEX64_THRESHOLD
               for v in _memref_values(f))


def root_buffer(v: SSAValue) -> SSAValue:
    """The buffer a value aliases (through ``regcopy.storage``)."""
    while isinstance(v.owner, StorageOp):
        v = v.owner.buffer
    return v


def vector_accesses(f: func.FuncOp) -> list[tuple[SSAValue, int]]:
    """``(buffer, bytes)`` of every ``vector.load``/``vector.store`` of ``f``."""
    out: list[tuple[SSAValue, int]] = []
    for op in f.walk():
        if isinstance(op, vector.LoadOp):
            out.append((root_buffer(op.base), vector_bytes(cast(VectorType, op.result.type))))
        elif isinstance(op, vector.StoreOp):
            out.append((root_buffer(op.base), vector_bytes(cast(VectorType, op.vector.type))))
    return out


def kernel_info(f: func.FuncOp) -> KernelInfo:
    """Launch facts of the kernel ``f`` (which must carry ``regcopy.launch``)."""
    launch = f.attributes.get(LAUNCH)
    if not isinstance(launch, LaunchAttr):
        raise ValueError(f"func.func @{f.sym_name.data} has no {LAUNCH} attribute")
    widest: dict[SSAValue, int] = {}
    for buf, size in vector_accesses(f):
        widest[buf] = max(widest.get(buf, 0), size)
    params: list[KernelParam] = []
    for k, arg in enumerate(f.args):
        if not isinstance(arg.type, MemRefType):
            raise ValueError(f"kernel @{f.sym_name.data} parameter {k} is {arg.type}; kernel "
                             "parameters must be global memrefs")
        t = cast(MemRefType, arg.type)
        align = max(element_bytes(t.element_type), widest.get(arg, 0))
        params.append(KernelParam(arg.name_hint or f"arg{k}", t, align))
    return KernelInfo(
        name=f.sym_name.data,
        block=launch.block.data,
        grid=tuple(g.data for g in launch.grid),
        params=tuple(params),
        index64=needs_index64(f),
        widest_vector=max(widest.values(), default=0),
    )
