"""Launch facts for the CPU interpreter: thread ids, the kernel's launch and arguments, and how
its threads must run.

``ThreadState`` holds the ids of one GPU thread (``THREAD_AXES`` of the layout algebra derives a layout's thread
axes, ``laneid`` .. ``wgid``, from its linear index); ``launch_config``/``threads_of``
enumerate a launch; ``check_arguments`` checks the host arguments; ``has_barrier``/``has_collectives`` tell
whether a kernel's threads must run as Python threads (barrier phases, warp lockstep).
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

from regcopy_dialect.buffers import is_dynamic
from regcopy_dialect.gpu_shuffle import ShuffleOp
from regcopy_dialect.layout import THREAD_AXES, WARP
from regcopy_dialect.matrix_ops import LdMatrixOp, StMatrixOp
from regcopy_dialect.mma_ops import MmaOp, MmaSyncOp
from regcopy_dialect.promises import argument_promise
from regcopy_dialect.regcopy import DIVISIBILITY, LaunchAttr
from regcopy_dialect.strided import argument_stride_divisors, is_strided
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


def check_extents(fn: func.FuncOp, k: int, buffer: Any) -> None:
    """The buffer passed for the dynamic memref parameter ``k``: its runtime shape fits the
    type and keeps the ``regcopy.divisibility`` promise (``extents``), a strided one's
    strides the type and the ``regcopy.stride_divisibility`` promise (``strided_host``), else
    one ``InterpretationError`` naming the parameter."""
    from regcopy_backend.cuda.kernel_info import extent_divisors
    from regcopy_backend.interpreter.extents import divisor_problem, shape_problem

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
        from regcopy_backend.interpreter.extents import buffer_strides
        from regcopy_backend.runtime.strided_host import stride_problem

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


def has_collectives(fn: func.FuncOp, interp: Interpreter) -> bool:
    """Whether ``fn`` (or, when it calls functions, the module) holds a warp-collective op
    (or a register ↔ register copy: ``convert_ops.uses_lockstep``)."""
    from regcopy_backend.interpreter.convert_ops import uses_lockstep
    return any(isinstance(op, COLLECTIVE_OPS) or uses_lockstep(op)
               for op in _scope(fn, interp).walk())

def whole_warps(block: int, threads: set[int]) -> bool:
    """Whether ``threads`` is a union of whole warps of a ``block``-thread CTA."""
    return all({t - t % WARP + k for k in range(WARP)} & set(range(block)) <= threads
               for t in threads)

