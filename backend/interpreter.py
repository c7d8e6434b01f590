"""CPU reference execution of regcopy IR (xDSL interpreter), barrier-faithful.

xDSL's interpreter runs ``func``, ``arith``, ``scf`` and a little of ``memref``; this module
adds what regcopy kernels need beyond that (xdsl-notes.md §6):

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
  and float ``addf``/``subf``/``mulf`` rounded to their type (``interp_arith``);
* vectors (tuples of lanes): every ``arith`` op lane by lane, with its scalar semantics per
  lane, and ``vector.bitcast`` (little-endian lane bytes) (``interp_vector``);
* the *reference semantics* of an un-lowered ``regcopy.copy``: the executing thread moves
  every element of the region it owns (by R's thread axes), so an original module and its
  lowering can be compared element by element;
* the warp-collective ``regcopy.ldmatrix``/``regcopy.stmatrix`` (``interp_matrix``: the PTX
  ``.m8n8 .b16`` fragment rule), executed once per warp (see *Warp lockstep*).

Thread ids, launch configuration and argument checks are in ``interp_launch``. Buffers are
``Buffer`` values (``interp_buffers``): a memref type and a flat Python list of its physical
span. Kernel arguments are ``Buffer``s (global memrefs) and Python ints (``index``/integer
scalars; a ``{regcopy.divisibility = N}`` promise is checked at launch).

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

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

from xdsl.dialects import gpu, memref, vector
from xdsl.dialects.builtin import (
    MemRefType,
    ModuleOp,
    VectorType,
)
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    register_impls,
)
from xdsl.interpreters.arith import ArithFunctions
from xdsl.interpreters.builtin import BuiltinFunctions
from xdsl.interpreters.func import FuncFunctions
from xdsl.interpreters.memref import MemRefFunctions
from xdsl.interpreters.scf import ScfFunctions
from xdsl.interpreters.shaped_array import ShapedArray
from xdsl.ir import Operation
from xdsl.utils.exceptions import InterpretationError

from regcopy_backend.cta_barrier import CtaBarrier, run_cta
from regcopy_backend.interp_arith import (
    ExtraArithFunctions,
    FastIntArithFunctions,
    FloatArithFunctions,
)
from regcopy_backend.interp_casts import CastFunctions
from regcopy_backend.interp_buffers import (
    Buffer,
    CopyTable,
    copy_table,
    run_reference_copy,
    is_local,
    layout_of,
    ravel,
    region_indices,
    storage_size,
    unravel,
)
from regcopy_backend.interp_launch import (
    AXIS_VALUE,
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
from regcopy_backend.interp_matrix import MatrixLane, run_matrix
from regcopy_backend.interp_vector import VectorFunctions
from regcopy_backend.warp_sync import WARP, WarpSync, attach_warps
from regcopy_dialect.matrix_ops import LdMatrixOp, MatrixOpBase, StMatrixOp
from regcopy_dialect.regcopy import (
    CopyOp,
    LayoutAttr,
    MultipleOfOp,
    StorageOp,
    element_bits,
)

__all__ = ["AXIS_VALUE", "Buffer", "CopyTable", "GpuState", "RegcopyFunctions", "ThreadState",
           "copy_table", "gpu_state", "is_local", "launch", "launch_config", "layout_of",
           "make_interpreter", "ravel", "region_indices", "set_thread", "storage_size",
           "threads_of", "unravel"]

# --------------------------------------------------------------------------------------------
# Interpreter-side state: the current thread and the allocations
# --------------------------------------------------------------------------------------------

AllocKey = tuple[Operation, Dim3, int | None]


@dataclass
class GpuState:
    """Everything the regcopy functions keep between ops, stored as interpreter data.

    ``allocations`` maps ``(alloca op, block id, thread)`` to its buffer; ``thread`` is None
    for shared buffers (one per CTA). ``check_alignment`` makes a ``vector.load/store`` whose
    physical offset is not a multiple of its element count an error (buffers are 16-byte
    aligned on the GPU, so that is exactly a misaligned vector access). ``check_ownership``
    makes a ``memref.load/store`` of a local element the thread does not own an error (it is
    undefined behaviour in CUDA terms). ``barrier`` is the CTA's barrier while the kernel runs
    in barrier phases (None: ``gpu.barrier`` is a no-op, the threads run one after another),
    ``slot`` the thread's index in it, ``warp`` its warp's barrier when the kernel has
    warp-collective ops. The per-thread states of a phased CTA share ``allocations``,
    ``copy_tables`` and ``lock`` with the launching interpreter's state (``for_thread``)."""

    thread: ThreadState = field(default_factory=ThreadState)
    allocations: dict[AllocKey, Buffer] = field(default_factory=dict[AllocKey, Buffer])
    fill: Any = 0
    check_alignment: bool = True
    check_ownership: bool = True
    copy_tables: dict[tuple[Any, ...], CopyTable] = field(
        default_factory=dict[tuple[Any, ...], CopyTable])
    barrier: CtaBarrier | None = None
    slot: int = 0
    warp: WarpSync | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def for_thread(self, thread: ThreadState, barrier: CtaBarrier, slot: int,
                   warp: WarpSync | None = None) -> GpuState:
        """A state for thread ``slot`` of a phased CTA sharing this state's memory and
        checks."""
        return replace(self, thread=thread, barrier=barrier, slot=slot, warp=warp)

    def buffer_for(self, op: Operation, block_id: Dim3 = (0, 0, 0),
                   tid: int | None = None) -> Buffer:
        """The buffer of alloca ``op`` in CTA ``block_id`` (and thread ``tid`` for local
        buffers), created filled with ``fill`` on first use. Use it to preset or inspect."""
        t = cast(MemRefType, op.results[0].type)
        key = (op, block_id, tid if is_local(t) else None)
        with self.lock:  # the threads of a phased CTA allocate the same shared buffer
            if key not in self.allocations:
                self.allocations[key] = Buffer.new(t, self.fill)
            return self.allocations[key]


def gpu_state(interp: Interpreter) -> GpuState:
    """The ``GpuState`` of ``interp`` (created on first use)."""
    return interp.get_data(RegcopyFunctions, "gpu", GpuState)


def set_thread(interp: Interpreter, thread: ThreadState) -> None:
    """Make ``thread`` the thread that the next ops execute as."""
    gpu_state(interp).thread = thread


# --------------------------------------------------------------------------------------------
# The implementations
# --------------------------------------------------------------------------------------------


def _dim(op: Operation) -> int:
    return "xyz".index(cast(Any, op).dimension.data.value)



def _vector_offsets(interp: Interpreter, op: Operation, buf: Buffer, indices: Sequence[int],
                    n: int) -> int:
    """Physical offset of an ``n``-element vector access at ``indices`` (consecutive along the
    last dim); checks bounds, physical contiguity and alignment. Returns the first offset."""
    if not isinstance(buf, Buffer):
        raise InterpretationError(f"{op.name} on a {type(buf).__name__}; expected a Buffer")
    *outer, last = indices
    if isinstance(buf.type.layout, LayoutAttr):
        offsets = [buf.offset([*outer, last + k]) for k in range(n)]
        first = offsets[0]
        if offsets != list(range(first, first + n)):
            raise InterpretationError(f"{op.name} of {n} elements at {list(indices)} is not "
                                      f"physically contiguous in {buf.type}: offsets {offsets}")
    else:  # row-major: consecutive along the last dim; check the whole range is in bounds
        ravel([*outer, last + n - 1], buf.type.get_shape())
        first = ravel(indices, buf.type.get_shape())
    state = gpu_state(interp)
    if state.check_alignment and first % n:
        bits = element_bits(buf.type.element_type) or 8
        raise InterpretationError(
            f"misaligned {op.name}: vector<{n}x{buf.type.element_type}> ({n * bits // 8} bytes) "
            f"at element offset {first} (byte offset {first * bits // 8}) of {buf.type}, "
            f"thread {state.thread.linear_tid} of block {state.thread.block_id}")
    return first


def _run_collective_matrix(interp: Interpreter, op: MatrixOpBase, args: PythonValues
                           ) -> tuple[()]:
    """This lane's part of a warp-collective ``regcopy.ldmatrix``/``stmatrix``: deposit its
    operands at the warp barrier, which runs the op once all 32 lanes are there."""
    src, dst, offset = args
    shared, registers = (src, dst) if op.LOADS else (dst, src)
    state = gpu_state(interp)
    if state.warp is None:
        raise InterpretationError(f"{op.name} is warp-collective: it runs only in a launch() "
                                  "of the kernel (its warps in lockstep)")
    lane = MatrixLane(shared, registers, offset)
    state.warp.meet(state.thread.linear_tid % WARP, op, lane,
                    lambda lanes: run_matrix(op, lanes))
    return ()


@register_impls
class RegcopyFunctions(InterpreterFunctions):
    """Implementations of the gpu, vector, memref-with-layout, regcopy and extra arith ops."""

    # ---- gpu ----
    @impl(gpu.ThreadIdOp)
    def run_thread_id(self, interp: Interpreter, op: gpu.ThreadIdOp, args: PythonValues):
        return (gpu_state(interp).thread.tid[_dim(op)],)

    @impl(gpu.BlockIdOp)
    def run_block_id(self, interp: Interpreter, op: gpu.BlockIdOp, args: PythonValues):
        return (gpu_state(interp).thread.block_id[_dim(op)],)

    @impl(gpu.BlockDimOp)
    def run_block_dim(self, interp: Interpreter, op: gpu.BlockDimOp, args: PythonValues):
        return (gpu_state(interp).thread.block_dim[_dim(op)],)

    @impl(gpu.GridDimOp)
    def run_grid_dim(self, interp: Interpreter, op: gpu.GridDimOp, args: PythonValues):
        return (gpu_state(interp).thread.grid_dim[_dim(op)],)

    @impl(gpu.GlobalIdOp)
    def run_global_id(self, interp: Interpreter, op: gpu.GlobalIdOp, args: PythonValues):
        th, d = gpu_state(interp).thread, _dim(op)
        return (th.block_id[d] * th.block_dim[d] + th.tid[d],)

    @impl(gpu.LaneIdOp)
    def run_lane_id(self, interp: Interpreter, op: gpu.LaneIdOp, args: PythonValues):
        return (gpu_state(interp).thread.linear_tid % 32,)

    @impl(gpu.BarrierOp)
    def run_barrier(self, interp: Interpreter, op: gpu.BarrierOp, args: PythonValues):
        state = gpu_state(interp)
        if state.barrier is not None:
            state.barrier.wait(state.slot)
        return ()

    # ---- memref ----
    @impl(memref.AllocaOp)
    def run_alloca(self, interp: Interpreter, op: memref.AllocaOp, args: PythonValues):
        if args:
            raise InterpretationError("memref.alloca with dynamic sizes is not supported")
        state = gpu_state(interp)
        th = state.thread
        return (state.buffer_for(op, th.block_id, th.linear_tid),)

    @impl(memref.LoadOp)
    def run_load(self, interp: Interpreter, op: memref.LoadOp, args: PythonValues):
        buf, *indices = args
        if isinstance(buf, ShapedArray):
            return (cast(ShapedArray[Any], buf).load(tuple(indices)),)
        self._check_owner(interp, op, buf, indices)
        return (buf.read(indices),)

    @impl(memref.StoreOp)
    def run_store(self, interp: Interpreter, op: memref.StoreOp, args: PythonValues):
        value, buf, *indices = args
        if isinstance(buf, ShapedArray):
            cast(ShapedArray[Any], buf).store(tuple(indices), value)
            return ()
        self._check_owner(interp, op, buf, indices)
        buf.write(indices, value)
        return ()

    @staticmethod
    def _check_owner(interp: Interpreter, op: Operation, buf: Buffer,
                     indices: Sequence[int]) -> None:
        state = gpu_state(interp)
        if not (buf.local and state.check_ownership):
            return
        axes = buf.owner(indices)
        for name, value in axes.items():
            if state.thread.axis(name) != value:
                raise InterpretationError(
                    f"{op.name} of {list(indices)} in {buf.type} by thread "
                    f"{state.thread.linear_tid}, which does not own it ({name} = "
                    f"{state.thread.axis(name)}, owner has {value})")

    # ---- regcopy ----
    @impl(StorageOp)
    def run_storage(self, interp: Interpreter, op: StorageOp, args: PythonValues):
        (buf,) = args
        view = Buffer(cast(MemRefType, op.result.type), buf.storage)
        if len(view.storage) != storage_size(view.type):
            raise InterpretationError(f"storage of {buf.type} has {len(buf.storage)} "
                                      f"elements, its view {view.type} expects "
                                      f"{storage_size(view.type)}")
        return (view,)

    @impl(MultipleOfOp)
    def run_multiple_of(self, interp: Interpreter, op: MultipleOfOp, args: PythonValues):
        (value,) = args
        if value % op.divisor_value:
            th = gpu_state(interp).thread
            raise InterpretationError(
                f"regcopy.multiple_of: the value {value} is not a multiple of "
                f"{op.divisor_value} (thread {th.linear_tid} of block {th.block_id}); the "
                "promise is broken")
        return (value,)

    @impl(CopyOp)
    def run_copy(self, interp: Interpreter, op: CopyOp, args: PythonValues):
        src, dst, *dyn = args
        n_src = len(op.src_offsets)
        state = gpu_state(interp)
        run_reference_copy(state.thread.axis, state.copy_tables, op, src, dst, dyn[:n_src],
                           dyn[n_src:])
        return ()

    @impl(LdMatrixOp)
    def run_ldmatrix(self, interp: Interpreter, op: LdMatrixOp, args: PythonValues):
        return _run_collective_matrix(interp, op, args)

    @impl(StMatrixOp)
    def run_stmatrix(self, interp: Interpreter, op: StMatrixOp, args: PythonValues):
        return _run_collective_matrix(interp, op, args)

    # ---- vector ----
    @impl(vector.LoadOp)
    def run_vector_load(self, interp: Interpreter, op: vector.LoadOp, args: PythonValues):
        buf, *indices = args
        (n,) = cast(VectorType, op.result.type).get_shape()
        first = _vector_offsets(interp, op, buf, indices, n)
        return (tuple(buf.storage[first:first + n]),)

    @impl(vector.StoreOp)
    def run_vector_store(self, interp: Interpreter, op: vector.StoreOp, args: PythonValues):
        vec, buf, *indices = args
        n = len(vec)
        first = _vector_offsets(interp, op, buf, indices, n)
        buf.storage[first:first + n] = list(vec)
        return ()



# --------------------------------------------------------------------------------------------
# Driving a kernel
# --------------------------------------------------------------------------------------------


def make_interpreter(module: ModuleOp) -> Interpreter:
    """An interpreter for ``module`` with xDSL's func/arith/scf/memref/builtin functions,
    ``interp_arith``'s (extra, faster and f32/f16-rounding arith), ``interp_casts``' (casts,
    ``negf``, ``minnumf``/``maxnumf``), ``VectorFunctions``
    (arith on vectors lane by lane, ``vector.bitcast``) and ``RegcopyFunctions`` (which
    overrides ``memref.load/store`` to honour layouts)."""
    interp = Interpreter(module, index_bitwidth=64)
    arith_fns = (ArithFunctions(), ExtraArithFunctions(), CastFunctions())
    overrides = (FastIntArithFunctions(), FloatArithFunctions())
    for fns in (BuiltinFunctions(), *arith_fns, FuncFunctions(), ScfFunctions(),
                MemRefFunctions()):
        interp.register_implementations(fns)
    for fns in (*overrides, VectorFunctions((*arith_fns, *overrides)), RegcopyFunctions()):
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
           threads: Sequence[int] | None = None) -> None:
    """Run ``kernel`` on every thread of its ``regcopy.launch`` (or only the CTA-local
    ``threads`` given: whole warps when it has warp-collective ops) with ``args`` (``Buffer``s
    and Python ints, in parameter order).

    Without ``gpu.barrier`` and warp-collective ops the threads run one after another; with
    one, each CTA runs in barrier phases, its warps in lockstep at collective ops (module
    docstring), CTAs one after another."""
    fn = kernel_func(interp, kernel)
    check_arguments(fn, args)
    block, grid = launch_config(interp, kernel)
    lockstep = has_collectives(fn, interp)
    wanted = None if threads is None else set(threads)
    if lockstep and wanted is not None and not whole_warps(block, wanted):
        raise InterpretationError(f"kernel @{kernel} has warp-collective ops: threads= must "
                                  "name whole warps")
    ctas: dict[Dim3, list[ThreadState]] = {}
    for th in threads_of(block, grid):
        if wanted is None or th.linear_tid in wanted:
            ctas.setdefault(th.block_id, []).append(th)
    if not (lockstep or has_barrier(fn, interp)):
        for cta in ctas.values():
            for th in cta:
                set_thread(interp, th)
                interp.call_op(kernel, tuple(args))
        return
    workers = [make_interpreter(interp.module) for _ in range(block)]
    for cta in ctas.values():
        _run_phased(interp, workers, kernel, tuple(args), cta, lockstep)
