"""CPU reference execution of regcopy IR (xDSL interpreter), barrier-faithful.

xDSL's interpreter runs ``func``, ``arith``, ``scf`` and a little of ``memref``; this module
adds what regcopy kernels need beyond that:

* ``gpu.thread_id``/``block_id``/``block_dim``/``grid_dim``/``global_id``/``lane_id`` and
  ``gpu.barrier`` (``__syncthreads()``: see *Barriers* below);
* ``memref.alloca`` of ``shared``/``shared.dyn`` (one buffer per CTA, shared by its threads)
  and ``local`` buffers (one register file per thread, ``buffer_layout(t).storage().span()``
  slots);
* ``memref.load``/``memref.store`` through a buffer's ``#regcopy.layout`` (logical index ->
  physical offset, swizzle included; on a ``local`` buffer the register slot, executed by the
  owner thread);
* ``regcopy.storage`` (a flat 1-D view sharing the buffer's storage), ``vector.load`` and
  ``vector.store`` (bounds- and alignment-checked), ``regcopy.multiple_of`` (the value; a
  value that breaks the promise is an error), the unsigned/min/max ``arith`` ops xDSL lacks
  and float ``addf``/``subf``/``mulf`` rounded to their type (``arith``);
* vectors (tuples of lanes): every ``arith`` op lane by lane, with its scalar semantics per
  lane, and ``vector.bitcast`` (little-endian lane bytes) (``vector``);
* the *reference semantics* of an un-lowered ``regcopy.copy``: the executing thread moves
  every element of the region it owns (by R's thread axes), so an original module and its
  lowering can be compared element by element;
* runtime extents (``extents``): a dynamic global buffer is typed by its array's shape,
  ``memref.dim`` reads it, and an un-lowered copy on it is bounds-checked (out-of-extent
  elements not read — the registers get the padding — and not written; ``{in_bounds}`` on a
  region that is not inside is a runtime error);
* the warp-collective ``regcopy.ldmatrix``/``regcopy.stmatrix`` (``ldmatrix``: the PTX
  ``.m8n8 .b16`` fragment rule), executed once per warp (see *Warp lockstep*).

The per-thread state and the op implementations are in ``regcopy`` (this package's module);
the interpreter loop and its located runtime errors (``KernelError``: one line naming the
op, its ``file:line:col``, block and thread) in ``engine``; this module builds the
interpreter and drives a launch. Thread ids, launch configuration and argument checks are in
``launch``. Buffers are ``Buffer`` values (``buffers``): a memref type and a flat Python list
of its physical span. Kernel arguments are ``Buffer``s (global memrefs) and Python ints
(``index``/integer scalars; a ``{regcopy.divisibility = N}`` promise is checked at launch).

**Barriers.** A kernel without ``gpu.barrier`` runs one thread after another (fast, exact: its
threads cannot observe each other's order). A kernel with a barrier runs each CTA in barrier
phases: every thread of the CTA is a Python thread with its own xDSL ``Interpreter`` (its own
SSA environment, sharing the CTA's allocations), and ``gpu.barrier`` waits until every live
thread of the CTA arrives (``cta_barrier``). Threads that exchange data through shared memory
between barriers are thus simulated faithfully; CTAs still run one after another.

**Warp lockstep.** A kernel with a warp-collective op runs in barrier phases too, and the 32
lanes of each warp meet at every collective op like at a warp-level barrier (``warp_sync``):
each lane deposits its operands, the last to arrive executes the op once for the whole warp,
then all continue. A diverged warp (a lane returned, waiting at ``gpu.barrier`` or at another
op while the others wait at a collective), a partial warp, and bad operands (a row address
not 16-byte aligned or outside the shared storage) are one-line ``InterpretationError``s that
stop the whole CTA, never a hang. Kernels with neither barriers nor collectives keep the fast
sequential path.

Typical use (e.g. ``regcopy-run --check``)::

    interp = make_interpreter(module)                 # xDSL built-ins + RegcopyFunctions
    a = Buffer.from_logical(a_type, array.ravel().tolist())
    out = Buffer.new(out_type)
    launch(interp, "kernel", (a, out, 512))           # buffers and scalars, in parameter order
    result = out.to_logical()

``gpu_state(interp).buffer_for(alloca_op, block_id, tid)`` presets or inspects a shared
buffer or one thread's registers; ``check_alignment``/``check_ownership`` turn the checks off.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from regcopy_backend.interpreter.arith import (
    ExtraArithFunctions,
    FastIntArithFunctions,
    FloatArithFunctions,
)
from regcopy_backend.interpreter.async_copy import AsyncCopyFunctions
from regcopy_backend.interpreter.buffers import (
    Buffer,
    CopyTable,
    copy_table,
    is_local,
    layout_of,
    storage_size,
)
from regcopy_backend.interpreter.casts import CastFunctions
from regcopy_backend.interpreter.compute import ComputeFunctions
from regcopy_backend.interpreter.cta_barrier import CtaBarrier, run_cta
from regcopy_backend.interpreter.engine import (
    KernelError,
    LoopFunctions,
    RegcopyInterpreter,
    Step,
    op_head,
)
from regcopy_backend.interpreter.extents import ExtentFunctions
from regcopy_backend.interpreter.launch import (
    Dim3,
    ThreadState,
    check_arguments,
    has_barrier,
    has_collectives,
    kernel_func,
    launch_config,
    threads_of,
    whole_warps,
)
from regcopy_backend.interpreter.mma import MmaFunctions
from regcopy_backend.interpreter.regcopy import (
    RegcopyFunctions,
    gpu_state,
    set_thread,
)
from regcopy_backend.interpreter.state import GpuState
from regcopy_backend.interpreter.tma_ops import TmaFunctions
from regcopy_backend.interpreter.vector import VectorFunctions
from regcopy_backend.interpreter.warp_sync import attach_warps
from regcopy_backend.interpreter.wgmma import WgmmaFunctions
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter
from xdsl.interpreters.arith import ArithFunctions
from xdsl.interpreters.builtin import BuiltinFunctions
from xdsl.interpreters.func import FuncFunctions
from xdsl.interpreters.memref import MemRefFunctions
from xdsl.interpreters.scf import ScfFunctions
from xdsl.ir import Block
from xdsl.utils.exceptions import InterpretationError

from regcopy_dialect.layout import WARP

__all__ = ["Buffer", "CopyTable", "GpuState", "KernelError", "RegcopyFunctions",
           "ThreadState", "copy_table", "gpu_state", "is_local", "launch", "launch_config",
           "layout_of", "make_interpreter", "op_head", "set_thread", "storage_size",
           "threads_of"]


# --------------------------------------------------------------------------------------------
# Driving a kernel
# --------------------------------------------------------------------------------------------


def make_interpreter(module: ModuleOp, programs: dict[Block, list[Step]] | None = None
                     ) -> Interpreter:
    """An interpreter for ``module`` with xDSL's func/arith/scf/memref/builtin functions,
    ``interp_arith``'s (extra, faster and f32/f16-rounding arith), ``interp_casts``' (casts,
    ``negf``, ``minnumf``/``maxnumf``), ``VectorFunctions``
    (arith on vectors lane by lane, ``vector.bitcast``), ``RegcopyFunctions`` (which
    overrides ``memref.load/store`` to honour layouts) and ``ComputeFunctions`` (``math``,
    ``maximumf``/``minimumf``, the warp-collective ``gpu.shuffle``)."""
    interp = RegcopyInterpreter(module, programs)
    arith_fns = (ArithFunctions(), ExtraArithFunctions(), CastFunctions())
    overrides = (FastIntArithFunctions(), FloatArithFunctions())
    for fns in (BuiltinFunctions(), *arith_fns, FuncFunctions(), ScfFunctions(),
                MemRefFunctions()):
        interp.register_implementations(fns)
    for fns in (*overrides, LoopFunctions(), VectorFunctions((*arith_fns, *overrides)),
                RegcopyFunctions(), ExtentFunctions(), AsyncCopyFunctions(), TmaFunctions(),
                ComputeFunctions(), MmaFunctions(), WgmmaFunctions()):
        interp.register_implementations(fns, override=True)
    return interp



def _run_phased(interp: Interpreter, workers: Sequence[Interpreter], kernel: str,
                args: tuple[Any, ...], cta: Sequence[ThreadState], lockstep: bool) -> None:
    """Run the threads of one CTA concurrently (``workers[k]`` runs ``cta[k]``), each
    ``gpu.barrier`` synchronising them and, with ``lockstep``, the lanes of each warp meeting
    at every warp-collective op; the first error of any thread is raised."""
    state = gpu_state(interp)
    barrier = CtaBarrier(len(cta))
    block = cta[0].block_id
    warps = attach_warps(barrier, lambda w: f"warp {cta[WARP * w].linear_tid // WARP} of "
                                            f"block {block}") if lockstep else ()

    def body(k: int) -> None:
        w = workers[k]
        warp = warps[k // WARP] if warps else None
        w.set_data(RegcopyFunctions, "gpu", state.for_thread(cta[k], barrier, k, warp))
        w.call_op(kernel, args)

    run_cta(barrier, body)


def launch(interp: Interpreter, kernel: str, args: Sequence[Any],
           threads: Sequence[int] | None = None,
           grid: Sequence[int] | None = None,
           blocks: Sequence[Dim3] | None = None) -> None:
    """Run ``kernel`` on every thread of its ``regcopy.launch`` (or only the CTA-local
    ``threads`` given: whole warps when it has warp-collective ops) with ``args`` (``Buffer``s
    and Python ints, in parameter order).

    Without ``gpu.barrier`` and warp-collective ops the threads run one after another; with
    one, each CTA runs in barrier phases, its warps in lockstep at collective ops (module
    docstring), CTAs one after another. ``grid`` (1 to 3 sizes) overrides the launch
    attribute's grid; ``blocks`` runs only those CTAs of it (``None``: all)."""
    fn = kernel_func(interp, kernel)
    check_arguments(fn, args)
    block, grid3 = launch_config(interp, kernel)
    if grid is not None:
        g = [*grid, 1, 1]
        grid3 = (g[0], g[1], g[2])
    lockstep = has_collectives(fn, interp)
    wanted = None if threads is None else set(threads)
    if lockstep and wanted is not None and not whole_warps(block, wanted):
        raise InterpretationError(f"kernel @{kernel} has warp-collective ops: threads= must "
                                  "name whole warps")
    ctas: dict[Dim3, list[ThreadState]] = {}
    only = None if blocks is None else set(blocks)
    for th in threads_of(block, grid3):
        if only is not None and th.block_id not in only:
            continue
        if wanted is None or th.linear_tid in wanted:
            ctas.setdefault(th.block_id, []).append(th)
    if not (lockstep or has_barrier(fn, interp)):
        for cta in ctas.values():
            for th in cta:
                set_thread(interp, th)
                interp.call_op(kernel, tuple(args))
        return
    programs = interp.programs if isinstance(interp, RegcopyInterpreter) else None
    workers = [make_interpreter(interp.module, programs) for _ in range(block)]
    for cta in ctas.values():
        _run_phased(interp, workers, kernel, tuple(args), cta, lockstep)
