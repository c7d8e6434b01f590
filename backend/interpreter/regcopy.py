"""The regcopy side of the CPU interpreter (``driver`` drives it): the per-thread GPU
state (``state.GpuState``: the current thread, the allocations, the CTA's and warp's
barriers; ``gpu_state`` reads it) and ``RegcopyFunctions``, the implementations of the
``gpu`` ops, ``memref.alloca``/``load``/``store`` through layouts, ``vector.load``/``store``,
``regcopy.storage``/``multiple_of``, the reference semantics of an un-lowered
``regcopy.copy`` and the warp-collective ``regcopy.ldmatrix``/``stmatrix`` (``gpu.shuffle``,
``vector.extract`` and local → local copies: ``convert_ops``'s, registered here). The module
docstring of ``driver`` says what each means."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from regcopy_backend.interpreter.buffers import (
    Buffer,
    run_reference_copy,
    src_offset_count,
    storage_size,
)
from regcopy_backend.interpreter.convert_ops import (
    run_extract,
    run_reference_conversion,
    run_shuffle,
)
from regcopy_backend.interpreter.launch import ThreadState
from regcopy_backend.interpreter.ldmatrix import MatrixLane, run_matrix
from regcopy_backend.interpreter.state import GpuState
from xdsl.dialects import gpu, memref, vector
from xdsl.dialects.builtin import MemRefType, VectorType
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    register_impls,
)
from xdsl.interpreters.shaped_array import ShapedArray
from xdsl.ir import Operation
from xdsl.utils.exceptions import InterpretationError

from regcopy_dialect.address import crd2idx
from regcopy_dialect.gpu_shuffle import ShuffleOp
from regcopy_dialect.index_math import INT_MATH
from regcopy_dialect.layout import WARP, replica_of
from regcopy_dialect.matrix_ops import LdMatrixOp, MatrixOpBase, StMatrixOp
from regcopy_dialect.regcopy import (
    CopyOp,
    MultipleOfOp,
    StorageOp,
    element_bits,
)

WARP_BARRIER = "regcopy.warp"
"""On a ``gpu.barrier``: only the executing warp's lanes meet (``__syncwarp()``); without it
the barrier is the CTA's (dropping the attribute is always safe)."""


# --------------------------------------------------------------------------------------------
# Interpreter-side state: the current thread and the allocations
# --------------------------------------------------------------------------------------------

def gpu_state(interp: Interpreter) -> GpuState:
    """The ``GpuState`` of ``interp`` (created on first use)."""
    return interp.get_data(RegcopyFunctions, "gpu", GpuState)


def set_thread(interp: Interpreter, thread: ThreadState) -> None:
    """Make ``thread`` the thread that the next ops execute as."""
    gpu_state(interp).thread = thread


# --------------------------------------------------------------------------------------------
# The implementations
# --------------------------------------------------------------------------------------------


_LOCAL_PLACES: dict[tuple[int, ...], tuple[Any, dict[str, int], bool, int]] = {}
"""``(id of the type, storage size, *index)`` of a local buffer -> the type (an entry counts
only for that very type object: hashing an xDSL type costs more than the lookup saves), the
element's owner (thread axes), whether the layout has replicas, its register slot: pure
functions of the type and index, computed once for every thread (``_local_offset``)."""


def _local_offset(interp: Interpreter, op: Operation, buf: Buffer, indices: Sequence[int]
                  ) -> int:
    """The register slot of ``indices`` in the local ``buf``, after the ownership check
    (``_check_owner``), with the errors of ``Buffer.owner``/``offset`` in the same order."""
    t = buf.type
    key = (id(t), len(buf.storage), *indices)
    hit = _LOCAL_PLACES.get(key)
    if hit is None or hit[0] is not t:
        axes = buf.owner(indices)
        replicas = bool(buf.layout.replicas)
        RegcopyFunctions._check_owner(interp, op, buf, indices, axes, replicas)
        offset = buf.offset(indices)
        if len(_LOCAL_PLACES) >= 1 << 17:
            _LOCAL_PLACES.clear()
        _LOCAL_PLACES[key] = (t, axes, replicas, offset)
        return offset
    RegcopyFunctions._check_owner(interp, op, buf, indices, hit[1], hit[2])
    return hit[3]


def _dim(op: Operation) -> int:
    return "xyz".index(cast(Any, op).dimension.data.value)



def _vector_offsets(interp: Interpreter, op: Operation, buf: Buffer, indices: Sequence[int],
                    n: int) -> int:
    """Physical offset of an ``n``-element vector access at ``indices`` (consecutive along the
    last dim); checks bounds, physical contiguity and alignment. Returns the first offset."""
    if not isinstance(buf, Buffer):
        raise InterpretationError(f"{op.name} on a {type(buf).__name__}; expected a Buffer")
    places = buf.places
    if places is not None:  # row-major: the n elements run along the last dim
        shape = buf.shape
        if len(indices) != len(shape) or not (
                all(0 <= i < d for i, d in zip(indices, shape))
                and indices[-1] + n <= shape[-1]):
            raise InterpretationError(f"{op.name} of {n} elements at {list(indices)} is out of "
                                      f"bounds of shape {list(shape)}")
        first = cast(int, crd2idx(INT_MATH, indices, places))
    else:
        *outer, last = indices
        offsets = [buf.offset([*outer, last + k]) for k in range(n)]
        first = offsets[0]
        if offsets != list(range(first, first + n)):
            raise InterpretationError(f"{op.name} of {n} elements at {list(indices)} is not "
                                      f"physically contiguous in {buf.type}: offsets {offsets}")
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

    def __init__(self) -> None:
        self._view_sizes: dict[Operation, int] = {}
        # (id of a regcopy.storage op, id of a storage list) -> the op, the list and the
        # view (a storage list never changes length; the entry keeps both ids from reuse)
        self._views: dict[tuple[int, int], tuple[Operation, list[Any], Buffer]] = {}

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
        if WARP_BARRIER in op.attributes:  # __syncwarp(): the warp's 32 lanes meet
            if state.warp is not None:
                state.warp.meet(state.thread.linear_tid % WARP, op, None,
                                lambda lanes: [None] * len(lanes))
            return ()
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
        if buf.local:
            return (buf.storage[_local_offset(interp, op, buf, indices)],)
        return (buf.read(indices),)

    @impl(memref.StoreOp)
    def run_store(self, interp: Interpreter, op: memref.StoreOp, args: PythonValues):
        value, buf, *indices = args
        if isinstance(buf, ShapedArray):
            cast(ShapedArray[Any], buf).store(tuple(indices), value)
            return ()
        if buf.local:
            buf.storage[_local_offset(interp, op, buf, indices)] = value
            return ()
        buf.write(indices, value)
        return ()

    @staticmethod
    def _check_owner(interp: Interpreter, op: Operation, buf: Buffer,
                     indices: Sequence[int], axes: dict[str, int] | None = None,
                     replicas: bool | None = None) -> None:
        """Refuse a ``memref.load/store`` of a local element that the executing thread does
        not own (nor a replica of); ``axes``/``replicas``: the element's owner and whether
        the layout has replicas, when known."""
        state = gpu_state(interp)
        if not (buf.local and state.check_ownership):
            return
        if axes is None:
            axes = buf.owner(indices)
        if buf.layout.replicas if replicas is None else replicas:
            if replica_of(buf.layout, axes, state.thread.axis) is None:
                raise InterpretationError(
                    f"{op.name} of {list(indices)} in {buf.type} by thread "
                    f"{state.thread.linear_tid}, which owns no replica of it (owner has "
                    f"{', '.join(f'{a} = {v}' for a, v in axes.items())})")
            return
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
        storage = buf.storage
        hit = self._views.get((id(op), id(storage)))
        if hit is not None and hit[0] is op and hit[1] is storage:
            return (hit[2],)  # this op's view of this very storage: made (and checked) once
        t = cast(MemRefType, op.result.type)
        if (size := self._view_sizes.get(op)) is None:
            size = self._view_sizes[op] = storage_size(t)
        if len(storage) != size:
            raise InterpretationError(f"storage of {buf.type} has {len(storage)} "
                                      f"elements, its view {t} expects {size}")
        view = Buffer(t, storage)
        if len(self._views) >= 4096:
            self._views.clear()
        self._views[id(op), id(storage)] = (op, storage, view)
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
        if src.local and dst.local:  # a conversion: the CTA's threads together
            run_reference_conversion(gpu_state(interp), op, src, dst, dyn)
            return ()
        n_src = src_offset_count(op)
        state = gpu_state(interp)
        run_reference_copy(state.thread.axis, op, src, dst, dyn[:n_src], dyn[n_src:])
        return ()

    @impl(ShuffleOp)
    def run_gpu_shuffle(self, interp: Interpreter, op: ShuffleOp, args: PythonValues):
        return run_shuffle(gpu_state(interp), op, args)

    @impl(vector.ExtractOp)
    def run_vector_extract(self, interp: Interpreter, op: vector.ExtractOp,
                           args: PythonValues):
        return run_extract(op, args)

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
