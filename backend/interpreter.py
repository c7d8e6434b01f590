"""CPU reference execution of regcopy IR, one GPU thread at a time (xDSL interpreter).

xDSL's interpreter runs ``func``, ``arith``, ``scf`` and a little of ``memref``; this module
adds what regcopy kernels need beyond that (xdsl-notes.md §6):

* ``gpu.thread_id``/``block_id``/``block_dim``/``grid_dim``/``global_id``/``lane_id`` and
  ``gpu.barrier`` (a no-op: threads run one after another, so a kernel whose threads
  communicate through shared memory between barriers is *not* simulated faithfully; a single
  copy is, since it needs no barrier);
* ``memref.alloca`` of ``shared``/``shared.dyn`` (one buffer per CTA, shared by its threads)
  and ``local`` buffers (one register file per thread, ``buffer_layout(t).storage().span()``
  slots);
* ``memref.load``/``memref.store`` through a buffer's ``#regcopy.layout`` (logical index ->
  physical offset, swizzle included; on a ``local`` buffer the register slot, executed by the
  owner thread);
* ``regcopy.storage`` (a flat 1-D view sharing the buffer's storage), ``vector.load`` and
  ``vector.store`` (bounds- and alignment-checked), the unsigned/min/max ``arith`` ops xDSL
  lacks;
* the *reference semantics* of an un-lowered ``regcopy.copy``: the executing thread moves
  every element of the region it owns (by R's thread axes), so an original module and its
  lowering can be compared element by element.

A buffer is a ``Buffer``: its memref type and a flat Python list of its physical span. Copies
never reinterpret bits (a ``vector<n x T>`` moves ``n`` elements of ``T``), so holding the
elements as plain Python values is exact, and any value (ints, floats, tags) can be used to
trace where each element went.

Typical use (e.g. ``regcopy-run --check``)::

    interp = make_interpreter(module)                 # xDSL built-ins + RegcopyFunctions
    a = Buffer.from_logical(a_type, array.ravel().tolist())
    out = Buffer.new(out_type)
    launch(interp, "kernel", (a, out))                # every thread of every block, in order
    result = out.to_logical()

``gpu_state(interp).buffer_for(alloca_op, block_id, tid)`` presets or inspects a shared
buffer or one thread's registers; ``check_alignment``/``check_ownership`` turn the checks off.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import product
from math import prod
from typing import Any, cast

from xdsl.dialects import arith, func, gpu, memref, vector
from xdsl.dialects.builtin import (
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
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
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import InterpretationError

from regcopy_dialect.layout import Layout
from regcopy_dialect.regcopy import (
    CopyOp,
    LaunchAttr,
    LayoutAttr,
    MemSpace,
    StorageOp,
    buffer_layout,
    element_bits,
    memory_space,
)

Dim3 = tuple[int, int, int]

# --------------------------------------------------------------------------------------------
# Thread state
# --------------------------------------------------------------------------------------------

#: Value of each thread axis (SPEC §2.1) for the thread with linear CTA index ``t``.
AXIS_VALUE: dict[str, Callable[[int], int]] = {
    "laneid": lambda t: t % 32,
    "tid_in_wg": lambda t: t % 128,
    "wid_in_wg": lambda t: (t // 32) % 4,
    "tx": lambda t: t,
    "warpid": lambda t: t // 32,
    "wgid": lambda t: t // 128,
}


@dataclass(frozen=True)
class ThreadState:
    """The ids of the thread being executed (CUDA's threadIdx, blockIdx, blockDim, gridDim)."""

    tid: Dim3 = (0, 0, 0)
    block_id: Dim3 = (0, 0, 0)
    block_dim: Dim3 = (1, 1, 1)
    grid_dim: Dim3 = (1, 1, 1)

    @property
    def linear_tid(self) -> int:
        """The thread's index inside its CTA (``tx`` for the 1-D blocks of SPEC §2.1)."""
        x, y, z = self.tid
        bx, by, _ = self.block_dim
        return x + bx * (y + by * z)

    def axis(self, name: str) -> int:
        """The value of thread axis ``name`` (``laneid``, ``tx``, ...) for this thread."""
        return AXIS_VALUE[name](self.linear_tid)


# --------------------------------------------------------------------------------------------
# Buffers
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=None)
def layout_of(t: MemRefType) -> Layout:
    """The layout that maps a logical index of ``t`` to its element (row-major by default)."""
    if not isinstance(t.layout, LayoutAttr | NoneAttr):
        raise InterpretationError(f"memref layout {t.layout} is not supported by the regcopy "
                                  "interpreter (use a #regcopy.layout or none)")
    return buffer_layout(t)


def is_local(t: MemRefType) -> bool:
    return memory_space(t) == MemSpace.LOCAL


def storage_size(t: MemRefType) -> int:
    """Elements of physical storage: one thread's registers for ``local``, else the span."""
    lay = layout_of(t)
    return lay.storage().span() if is_local(t) else lay.span()


def ravel(index: Sequence[int], shape: Sequence[int]) -> int:
    """Row-major flat index of ``index`` in ``shape``; raises when out of bounds."""
    flat = 0
    for i, n in zip(index, shape, strict=True):
        if not 0 <= i < n:
            raise InterpretationError(f"index {list(index)} is out of bounds of shape "
                                      f"{list(shape)}")
        flat = flat * n + i
    return flat


def unravel(flat: int, shape: Sequence[int]) -> tuple[int, ...]:
    """Inverse of ``ravel``."""
    out: list[int] = []
    for n in reversed(shape):
        out.append(flat % n)
        flat //= n
    return tuple(reversed(out))


@dataclass(eq=False)
class Buffer:
    """A memref value: its type and a flat list of its physical storage.

    For a ``local`` buffer the storage is *one thread's* registers (thread axes dropped); the
    buffer a thread sees is its own register file. Views made by ``regcopy.storage`` share the
    list with the buffer they view."""

    type: MemRefType
    storage: list[Any]

    @staticmethod
    def new(t: MemRefType, fill: Any = 0) -> Buffer:
        """A buffer of type ``t`` whose every physical element is ``fill``."""
        return Buffer(t, [fill] * storage_size(t))

    @staticmethod
    def from_logical(t: MemRefType, values: Sequence[Any], fill: Any = 0) -> Buffer:
        """A non-local buffer holding ``values`` in logical row-major order."""
        buf = Buffer.new(t, fill)
        shape = t.get_shape()
        for flat, v in enumerate(values):
            buf.write(unravel(flat, shape), v)
        return buf

    def to_logical(self) -> list[Any]:
        """The elements in logical row-major order (non-local buffers)."""
        shape = self.type.get_shape()
        return [self.read(unravel(flat, shape)) for flat in range(prod(shape))]

    @property
    def layout(self) -> Layout:
        return layout_of(self.type)

    @property
    def local(self) -> bool:
        return is_local(self.type)

    def locate(self, index: Sequence[int]) -> tuple[dict[str, int], int]:
        """``logical index -> (owner thread-axis values, physical offset)``."""
        return self.layout.apply(ravel(index, self.type.get_shape()))

    def offset(self, index: Sequence[int]) -> int:
        _, off = self.locate(index)
        if not 0 <= off < len(self.storage):
            raise InterpretationError(f"physical offset {off} of index {list(index)} is outside "
                                      f"the {len(self.storage)}-element storage of {self.type}")
        return off

    def read(self, index: Sequence[int]) -> Any:
        return self.storage[self.offset(index)]

    def write(self, index: Sequence[int], value: Any) -> None:
        self.storage[self.offset(index)] = value


# --------------------------------------------------------------------------------------------
# Interpreter-side state: the current thread and the allocations
# --------------------------------------------------------------------------------------------

AllocKey = tuple[Operation, Dim3, int | None]


@dataclass(frozen=True)
class CopyTable:
    """Where each region element of a copy lives: per owner key (R's thread-axis values, in
    ``axes`` order) the ``(R offset, S offset)`` pairs. For a copy without a local side, R is
    the destination and every thread owns everything."""

    axes: tuple[str, ...]
    owned: dict[tuple[int, ...], list[tuple[int, int]]]


@dataclass
class GpuState:
    """Everything the regcopy functions keep between ops, stored as interpreter data.

    ``allocations`` maps ``(alloca op, block id, thread)`` to its buffer; ``thread`` is None
    for shared buffers (one per CTA). ``check_alignment`` makes a ``vector.load/store`` whose
    physical offset is not a multiple of its element count an error (buffers are 16-byte
    aligned on the GPU, so that is exactly a misaligned vector access). ``check_ownership``
    makes a ``memref.load/store`` of a local element the thread does not own an error (it is
    undefined behaviour in CUDA terms)."""

    thread: ThreadState = field(default_factory=ThreadState)
    allocations: dict[AllocKey, Buffer] = field(default_factory=dict[AllocKey, Buffer])
    fill: Any = 0
    check_alignment: bool = True
    check_ownership: bool = True
    copy_tables: dict[tuple[Any, ...], CopyTable] = field(
        default_factory=dict[tuple[Any, ...], CopyTable])

    def buffer_for(self, op: Operation, block_id: Dim3 = (0, 0, 0),
                   tid: int | None = None) -> Buffer:
        """The buffer of alloca ``op`` in CTA ``block_id`` (and thread ``tid`` for local
        buffers), created filled with ``fill`` on first use. Use it to preset or inspect."""
        t = cast(MemRefType, op.results[0].type)
        key = (op, block_id, tid if is_local(t) else None)
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
# Reference semantics of regcopy.copy
# --------------------------------------------------------------------------------------------


def region_indices(offsets: Sequence[int], sizes: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """The logical indices of a region, row-major over its sizes."""
    for rel in product(*(range(z) for z in sizes)):
        yield tuple(o + r for o, r in zip(offsets, rel, strict=True))


def copy_table(r_type: MemRefType, r_region: tuple[Sequence[int], Sequence[int]],
               s_type: MemRefType, s_region: tuple[Sequence[int], Sequence[int]]) -> CopyTable:
    """Map every logical element of the two regions (the l-th of each, row-major) to its
    owner key, R offset and S offset, straight from the unsliced layouts."""
    r_lay, s_lay = layout_of(r_type), layout_of(s_type)
    axes = tuple(dict.fromkeys(i.axis for i in r_lay.thread_iters if i.axis is not None))
    owned: dict[tuple[int, ...], list[tuple[int, int]]] = {}
    r_shape, s_shape = r_type.get_shape(), s_type.get_shape()
    for r_idx, s_idx in zip(region_indices(*r_region), region_indices(*s_region), strict=True):
        r_axes, r_off = r_lay.apply(ravel(r_idx, r_shape))
        _, s_off = s_lay.apply(ravel(s_idx, s_shape))
        key = tuple(r_axes.get(a, 0) for a in axes)
        owned.setdefault(key, []).append((r_off, s_off))
    return CopyTable(axes, owned)


def _runtime_region(op: CopyOp, side: str, dynamic: Sequence[int]
                    ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    offsets, sizes = op.region(side)
    dyn = iter(dynamic)
    return tuple(next(dyn) if isinstance(o, SSAValue) else o for o in offsets), tuple(sizes)


def run_reference_copy(state: GpuState, op: CopyOp, src: Buffer, dst: Buffer,
                       src_dyn: Sequence[int], dst_dyn: Sequence[int]) -> None:
    """The executing thread moves every region element it owns (see the module docstring)."""
    src_region = _runtime_region(op, "src", src_dyn)
    dst_region = _runtime_region(op, "dst", dst_dyn)
    if src.local and dst.local:
        raise InterpretationError("regcopy.copy between two local buffers is not supported")
    r_is_dst = dst.local or not src.local
    r, s = (dst, src) if r_is_dst else (src, dst)
    r_region, s_region = (dst_region, src_region) if r_is_dst else (src_region, dst_region)
    key = (op, r_region, s_region)
    if (table := state.copy_tables.get(key)) is None:
        table = copy_table(r.type, r_region, s.type, s_region)
        state.copy_tables[key] = table
    mine = tuple(state.thread.axis(a) for a in table.axes)
    for r_off, s_off in table.owned.get(mine, ()):
        if r_is_dst:
            r.storage[r_off] = s.storage[s_off]
        else:
            s.storage[s_off] = r.storage[r_off]


# --------------------------------------------------------------------------------------------
# The implementations
# --------------------------------------------------------------------------------------------


def _dim(op: Operation) -> int:
    return "xyz".index(cast(Any, op).dimension.data.value)


def _unsigned(v: int, bits: int) -> int:
    return v & ((1 << bits) - 1)


def _bits(interp: Interpreter, op: Operation) -> int:
    t = op.results[0].type
    if isinstance(t, IndexType):
        return interp.index_bitwidth
    assert isinstance(t, IntegerType)
    return t.width.data


def _signed(v: int, bits: int) -> int:
    v = _unsigned(v, bits)
    return v - (1 << bits) if v >> (bits - 1) else v


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
        axes, _ = buf.locate(indices)
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

    @impl(CopyOp)
    def run_copy(self, interp: Interpreter, op: CopyOp, args: PythonValues):
        src, dst, *dyn = args
        n_src = len(op.src_offsets)
        run_reference_copy(gpu_state(interp), op, src, dst, dyn[:n_src], dyn[n_src:])
        return ()

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

    # ---- arith ops the built-in interpreter lacks ----
    @impl(arith.DivUIOp)
    def run_divui(self, interp: Interpreter, op: arith.DivUIOp, args: PythonValues):
        b = _bits(interp, op)
        return (_signed(_unsigned(args[0], b) // _unsigned(args[1], b), b),)

    @impl(arith.RemUIOp)
    def run_remui(self, interp: Interpreter, op: arith.RemUIOp, args: PythonValues):
        b = _bits(interp, op)
        return (_signed(_unsigned(args[0], b) % _unsigned(args[1], b), b),)

    @impl(arith.CeilDivUIOp)
    def run_ceildivui(self, interp: Interpreter, op: arith.CeilDivUIOp, args: PythonValues):
        b = _bits(interp, op)
        return (_signed(-(-_unsigned(args[0], b) // _unsigned(args[1], b)), b),)

    @impl(arith.CeilDivSIOp)
    def run_ceildivsi(self, interp: Interpreter, op: arith.CeilDivSIOp, args: PythonValues):
        b = _bits(interp, op)
        return (_signed(-(-_signed(args[0], b) // _signed(args[1], b)), b),)

    @impl(arith.ShRUIOp)
    def run_shrui(self, interp: Interpreter, op: arith.ShRUIOp, args: PythonValues):
        b = _bits(interp, op)
        return (_signed(_unsigned(args[0], b) >> args[1], b),)

    @impl(arith.MinUIOp)
    def run_minui(self, interp: Interpreter, op: arith.MinUIOp, args: PythonValues):
        b = _bits(interp, op)
        return (_signed(min(_unsigned(args[0], b), _unsigned(args[1], b)), b),)

    @impl(arith.MaxUIOp)
    def run_maxui(self, interp: Interpreter, op: arith.MaxUIOp, args: PythonValues):
        b = _bits(interp, op)
        return (_signed(max(_unsigned(args[0], b), _unsigned(args[1], b)), b),)

    @impl(arith.MinSIOp)
    def run_minsi(self, interp: Interpreter, op: arith.MinSIOp, args: PythonValues):
        b = _bits(interp, op)
        return (min(_signed(args[0], b), _signed(args[1], b)),)

    @impl(arith.MaxSIOp)
    def run_maxsi(self, interp: Interpreter, op: arith.MaxSIOp, args: PythonValues):
        b = _bits(interp, op)
        return (max(_signed(args[0], b), _signed(args[1], b)),)


# --------------------------------------------------------------------------------------------
# Driving a kernel
# --------------------------------------------------------------------------------------------


def make_interpreter(module: ModuleOp) -> Interpreter:
    """An interpreter for ``module`` with xDSL's func/arith/scf/memref/builtin functions and
    ``RegcopyFunctions`` (which overrides ``memref.load/store`` to honour layouts)."""
    interp = Interpreter(module, index_bitwidth=64)
    for fns in (BuiltinFunctions(), ArithFunctions(), FuncFunctions(), ScfFunctions(),
                MemRefFunctions()):
        interp.register_implementations(fns)
    interp.register_implementations(RegcopyFunctions(), override=True)
    return interp


def launch_config(interp: Interpreter, kernel: str) -> tuple[int, Dim3]:
    """``(block, grid)`` from the kernel's ``regcopy.launch``."""
    fn = interp.get_op_for_symbol(kernel)
    assert isinstance(fn, func.FuncOp)
    launch = fn.attributes.get("regcopy.launch")
    if not isinstance(launch, LaunchAttr):
        raise InterpretationError(f"kernel @{kernel} has no regcopy.launch attribute")
    grid = [g.data for g in launch.grid] + [1, 1]
    return launch.block.data, (grid[0], grid[1], grid[2])


def threads_of(block: int, grid: Dim3) -> Iterator[ThreadState]:
    """Every thread of a launch, block by block, threads in order."""
    for bz, by, bx in product(range(grid[2]), range(grid[1]), range(grid[0])):
        for t in range(block):
            yield ThreadState((t, 0, 0), (bx, by, bz), (block, 1, 1), grid)


def launch(interp: Interpreter, kernel: str, args: Sequence[Any],
           threads: Sequence[int] | None = None) -> None:
    """Run ``kernel`` once per thread of its ``regcopy.launch`` (or only the CTA-local
    ``threads`` given), one thread after another. Barriers are no-ops."""
    block, grid = launch_config(interp, kernel)
    wanted = None if threads is None else set(threads)
    for th in threads_of(block, grid):
        if wanted is not None and th.linear_tid not in wanted:
            continue
        set_thread(interp, th)
        interp.call_op(kernel, tuple(args))
