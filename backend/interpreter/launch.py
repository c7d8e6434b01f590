"""Launch facts for the CPU interpreter: thread ids, the kernel's launch and arguments, and how
its threads must run.

``ThreadState`` holds the ids of one GPU thread (``THREAD_AXES`` of the layout algebra derives a layout's thread
axes, ``laneid`` .. ``wgid``, from its linear index); ``launch_config``/``threads_of``
enumerate a launch; ``check_arguments`` checks the host arguments (``check_extents`` a
dynamic buffer's: ``shape_problem``, ``divisor_problem``, and on a strided one
``buffer_strides`` and ``strided.stride_problem``; ``extents`` re-exports the first three);
``has_barrier``/``has_collectives`` (with ``uses_lockstep``) tell whether a kernel's threads
must run as Python threads (barrier phases, warp lockstep).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import product
from typing import Any

from xdsl.dialects import func, gpu
from xdsl.dialects.builtin import (
    IndexType,
    IntegerType,
    MemRefType,
)
from xdsl.interpreter import Interpreter
from xdsl.ir import Operation
from xdsl.utils.exceptions import InterpretationError

from regcopy_dialect.attrs import LayoutAttr
from regcopy_dialect.buffers import is_dynamic
from regcopy_dialect.gpu_shuffle import ShuffleOp
from regcopy_dialect.layout import THREAD_AXES, WARP
from regcopy_dialect.matrix_ops import LdMatrixOp, StMatrixOp
from regcopy_dialect.mma_ops import MmaOp, MmaSyncOp
from regcopy_dialect.promises import argument_promise
from regcopy_dialect.radix import suffix_product
from regcopy_dialect.regcopy import DIVISIBILITY, CopyOp, LaunchAttr, MemSpace, memory_space
from regcopy_dialect.strided import argument_stride_divisors, is_strided, stride_problem
from regcopy_dialect.wgmma_ops import WgmmaAsyncOp, WgmmaOp

Dim3 = tuple[int, int, int]

# --------------------------------------------------------------------------------------------
# Thread ids
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ThreadState:
    """The ids of the thread being executed (CUDA's threadIdx, blockIdx, blockDim, gridDim)."""

    tid: Dim3 = (0, 0, 0)
    block_id: Dim3 = (0, 0, 0)
    block_dim: Dim3 = (1, 1, 1)
    grid_dim: Dim3 = (1, 1, 1)

    @property
    def linear_tid(self) -> int:
        """The thread's index inside its CTA (``tx``: regcopy launches 1-D blocks)."""
        x, y, z = self.tid
        bx, by, _ = self.block_dim
        return x + bx * (y + by * z)

    def axis(self, name: str) -> int:
        """The value of thread axis ``name`` (``laneid``, ``tx``, ...) for this thread."""
        return THREAD_AXES[name].value(self.linear_tid)




# --------------------------------------------------------------------------------------------
# The launch
# --------------------------------------------------------------------------------------------


def kernel_func(interp: Interpreter, kernel: str) -> func.FuncOp:
    """The ``func.func`` named ``kernel``; ``InterpretationError`` when there is none."""
    try:
        fn = interp.get_op_for_symbol(kernel)
    except Exception:  # noqa: BLE001 - xDSL raises a bare InterpretationError or KeyError
        fn = None
    if not isinstance(fn, func.FuncOp):
        raise InterpretationError(f"no kernel func.func @{kernel} in the module")
    return fn


def launch_config(interp: Interpreter, kernel: str) -> tuple[int, Dim3]:
    """``(block, grid)`` from the kernel's ``regcopy.launch``."""
    launch = kernel_func(interp, kernel).attributes.get("regcopy.launch")
    if not isinstance(launch, LaunchAttr):
        raise InterpretationError(f"kernel @{kernel} has no regcopy.launch attribute")
    grid = [g.data for g in launch.grid] + [1, 1]
    return launch.block.data, (grid[0], grid[1], grid[2])


def threads_of(block: int, grid: Dim3) -> Iterator[ThreadState]:
    """Every thread of a launch, block by block, threads in order."""
    for bz, by, bx in product(range(grid[2]), range(grid[1]), range(grid[0])):
        for t in range(block):
            yield ThreadState((t, 0, 0), (bx, by, bz), (block, 1, 1), grid)


def check_arguments(fn: func.FuncOp, args: Sequence[Any]) -> None:
    """Buffers for memref parameters, ints for ``index``/integer ones, and every scalar keeps
    its divisibility promise; else an ``InterpretationError`` naming the parameter."""
    name = fn.sym_name.data
    params = fn.function_type.inputs.data
    if len(args) != len(params):
        raise InterpretationError(f"kernel @{name} takes {len(params)} arguments, got "
                                  f"{len(args)}")
    for k, (t, a) in enumerate(zip(params, args, strict=True)):
        arg = fn.args[k].name_hint or f"arg{k}"
        if isinstance(t, MemRefType) and is_dynamic(t):
            check_extents(fn, k, a)
        if isinstance(t, IndexType | IntegerType):
            if not isinstance(a, int) or isinstance(a, bool):
                raise InterpretationError(f"kernel @{name}: argument %{arg} is {t}; pass a "
                                          f"Python int, not {type(a).__name__}")
            if (n := argument_promise(fn, k)) is not None and a % n:
                raise InterpretationError(
                    f"kernel @{name}: argument %{arg} = {a} breaks its promise "
                    f"{{{DIVISIBILITY} = {n}}} (not a multiple of {n})")


def buffer_strides(t: MemRefType) -> tuple[int, ...]:
    """The element strides of a concrete (static) buffer type: its layout's, one iter per
    dim (``concrete_type``), else row-major."""
    if isinstance(t.layout, LayoutAttr) and len(t.layout.layout.iters) == len(t.get_shape()):
        return tuple(it.stride for it in t.layout.layout.iters)
    return suffix_product(tuple(t.get_shape()))


def shape_problem(t: MemRefType, shape: Sequence[int], allow_empty: bool = False
                  ) -> str | None:
    """Why an array of ``shape`` cannot be the buffer ``t`` (rank, a static size, an extent
    below 1 — below 0 with ``allow_empty``: a launch with an empty buffer does nothing),
    None when it can."""
    want = t.get_shape()
    spelled = "x".join("?" if d < 0 else str(d) for d in want)
    if len(shape) != len(want):
        return f"has rank {len(shape)}, the buffer {spelled} has rank {len(want)}"
    for i, (n, d) in enumerate(zip(shape, want, strict=True)):
        if n < (0 if allow_empty else 1):
            return f"has extent {n} in dim {i}; extents must be >= {0 if allow_empty else 1}"
        if d >= 0 and n != d:
            return f"has size {n} in dim {i}, the buffer's static size there is {d}"
    return None


def divisor_problem(shape: Sequence[int], divisors: Sequence[int] | None) -> str | None:
    """Why ``shape`` breaks the promise ``regcopy.divisibility = array<i64: divisors>``."""
    for i, (n, d) in enumerate(zip(shape, divisors or (), strict=False)):
        if n % d:
            return (f"extent {n} of dim {i} breaks its promise regcopy.divisibility = "
                    f"array<i64: {', '.join(str(x) for x in divisors or ())}> (not a "
                    f"multiple of {d})")
    return None


def check_extents(fn: func.FuncOp, k: int, buffer: Any) -> None:
    """The buffer passed for the dynamic memref parameter ``k``: its runtime shape fits the
    type and keeps the ``regcopy.divisibility`` promise (``extents``), a strided one's
    strides the type and the ``regcopy.stride_divisibility`` promise (``strided_host``), else
    one ``InterpretationError`` naming the parameter."""
    from regcopy_backend.cuda.kernel_info import extent_divisors

    arg = fn.args[k].name_hint or f"arg{k}"
    where = f"kernel @{fn.sym_name.data}: argument %{arg}"
    shape = getattr(buffer, "shape", None)
    if shape is None:
        raise InterpretationError(f"{where} is a buffer; pass a Buffer, not "
                                  f"{type(buffer).__name__}")
    t = fn.args[k].type
    assert isinstance(t, MemRefType)
    problem = shape_problem(t, shape) or divisor_problem(shape, extent_divisors(fn, k))
    if problem is None and is_strided(t):
        problem = stride_problem(t, shape, buffer_strides(buffer.type),
                                 argument_stride_divisors(fn, k))
    if problem is not None:
        raise InterpretationError(f"{where} of shape {'x'.join(map(str, shape))} {problem}")


COLLECTIVE_OPS: tuple[type[Operation], ...] = (LdMatrixOp, StMatrixOp, ShuffleOp, MmaOp,
                                                MmaSyncOp, WgmmaOp, WgmmaAsyncOp)
"""Warp-collective ops: their warp's 32 lanes execute them together (``warp_sync``)."""


def _scope(fn: func.FuncOp, interp: Interpreter) -> Operation:
    """``fn``, or the whole module when ``fn`` calls functions."""
    return interp.module if any(isinstance(op, func.CallOp) for op in fn.walk()) else fn


def has_barrier(fn: func.FuncOp, interp: Interpreter) -> bool:
    """Whether ``fn`` (or, when it calls functions, the module) holds a ``gpu.barrier``."""
    return any(isinstance(op, gpu.BarrierOp) for op in _scope(fn, interp).walk())


def is_local_pair(op: Operation) -> bool:
    """A ``regcopy.copy`` between two ``local`` buffers."""
    return isinstance(op, CopyOp) and memory_space(op.src_type) == MemSpace.LOCAL and \
        memory_space(op.dst_type) == MemSpace.LOCAL


def uses_lockstep(op: Operation) -> bool:
    """Whether ``op`` needs the threads of its CTA as Python threads (``convert_ops``' module
    doc), its warps in lockstep: a shuffle, a conversion, a warp-level ``gpu.barrier``
    (``regcopy.warp``)."""
    return isinstance(op, ShuffleOp) or is_local_pair(op) or \
        (isinstance(op, gpu.BarrierOp) and "regcopy.warp" in op.attributes)


def has_collectives(fn: func.FuncOp, interp: Interpreter) -> bool:
    """Whether ``fn`` (or, when it calls functions, the module) holds a warp-collective op
    (or a register ↔ register copy: ``uses_lockstep``)."""
    return any(isinstance(op, COLLECTIVE_OPS) or uses_lockstep(op)
               for op in _scope(fn, interp).walk())

def whole_warps(block: int, threads: set[int]) -> bool:
    """Whether ``threads`` is a union of whole warps of a ``block``-thread CTA."""
    return all({t - t % WARP + k for k in range(WARP)} & set(range(block)) <= threads
               for t in threads)

