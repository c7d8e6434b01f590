"""Facts about a kernel ``func.func`` that both the printer and the runner need: launch
configuration, C name, parameters (global buffers with the alignment each pointer must have;
scalars with their C type and divisibility promise), index width and shared memory."""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import TYPE_CHECKING, cast

from regcopy_backend.cuda.names import function_c_name
from regcopy_backend.cuda.shared_memory import check_shared_limits, shared_usage
from regcopy_backend.cuda.types import (
    INDEX_32,
    INDEX_64,
    ctype,
    element_bytes,
    vector_bytes,
)
from xdsl.dialects import func, memref, vector
from xdsl.dialects.builtin import (
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
    DenseArrayBase,
    VectorType,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue

from regcopy_dialect.buffers import is_dynamic
from regcopy_dialect.promises import argument_promise, divisibility_problem
from regcopy_dialect.regcopy import DIVISIBILITY, LaunchAttr, StorageOp, buffer_layout
from regcopy_dialect.strided import argument_stride_divisors, dynamic_stride_dims, is_strided
from regcopy_dialect.tma_ops import TensorMapOp

if TYPE_CHECKING:  # numpy is imported where a scalar parameter needs it (fast CLI start-up)
    import numpy as np

LAUNCH = "regcopy.launch"
INDEX64_THRESHOLD = 2**31
"""A buffer of this many elements or more makes a kernel's index math 64-bit."""


@dataclass(frozen=True)
class KernelParam:
    """A global-buffer parameter of a kernel (``T* __restrict__``).

    A dynamic buffer (some size ``?``) is followed in the printed signature by one
    ``index``-typed extent parameter per ``?`` dimension, in dimension order
    (``dynamic_dims``), then, when ``strided<[...]>``, one per ``?`` stride
    (``stride_dims``); ``divisors`` is its ``regcopy.divisibility`` array (one divisor per
    dimension, 1: no promise), which the runner checks at launch."""

    name: str
    type: MemRefType
    alignment: int  # bytes: element size, or the widest vector access through it
    divisors: tuple[int, ...] | None = None
    stride_divisors: tuple[int, ...] | None = None
    """A strided buffer's ``regcopy.stride_divisibility`` array (checked at launch)."""

    @property
    def strided(self) -> bool:
        """Whether the buffer is ``strided<[...]>`` (a view; its ``?`` strides are extra
        parameters after its extents: ``stride_dims``)."""
        return is_strided(self.type)

    @property
    def stride_dims(self) -> tuple[int, ...]:
        """The dimensions whose stride is a runtime value (an extra kernel parameter)."""
        return dynamic_stride_dims(self.type)

    @property
    def shape(self) -> tuple[int, ...]:
        """The static shape; ``-1`` (``DYNAMIC_INDEX``) for each ``?`` dimension."""
        return tuple(self.type.get_shape())

    @property
    def dynamic(self) -> bool:
        return is_dynamic(self.type)

    @property
    def dynamic_dims(self) -> tuple[int, ...]:
        """The dimensions whose extent is a runtime value (an extra kernel parameter)."""
        return tuple(i for i, d in enumerate(self.shape) if d < 0)

    @property
    def elements(self) -> int:
        """Elements the host array holds: the span of the buffer's layout (a dynamic buffer's
        depends on its extents: ``extents_elements``)."""
        if self.dynamic:
            raise ValueError(f"buffer '{self.name}' of type {self.type} has runtime extents; "
                             "its size comes from the array's shape")
        return buffer_layout(self.type).span()


@dataclass(frozen=True)
class ScalarParam:
    """An integer/``index`` (or f32/f64) parameter passed by value.

    ``ctype`` is its printed C type (``index`` follows the kernel's index width), ``dtype`` the
    numpy type the runner passes, ``divisibility`` the ``regcopy.divisibility`` promise (the
    value is a multiple of it), if any."""

    name: str
    type: Attribute
    ctype: str
    dtype: np.dtype
    divisibility: int | None = None

    def check(self, value: int) -> str | None:
        """Why ``value`` cannot be passed (out of range, breaks the promise), else None."""
        if self.dtype.kind == "f":
            return None
        import numpy as np

        limits = np.iinfo(self.dtype)
        if not limits.min <= value <= limits.max:
            return (f"= {value} does not fit its type {self.type} ({self.ctype}, "
                    f"{limits.min}..{limits.max})")
        if self.divisibility is not None and value % self.divisibility:
            return (f"= {value} breaks its promise {DIVISIBILITY} = {self.divisibility}")
        return None


Param = KernelParam | ScalarParam


@dataclass(frozen=True)
class TensorMapParam:
    """A ``regcopy.tensor_map``: an extra ``__grid_constant__ CUtensorMap`` parameter after the
    kernel's own, which the runner encodes from buffer parameter ``source`` (an index into
    ``params``). ``box`` is outermost first; ``swizzle`` in bytes (0: none)."""

    source: int
    box: tuple[int, ...]
    swizzle: int
    element_bytes: int


def tensor_map_ops(f: func.FuncOp) -> list[TensorMapOp]:
    """The ``regcopy.tensor_map`` ops of ``f``, in program order."""
    return [op for op in f.walk() if isinstance(op, TensorMapOp)]


def tensor_map_params(f: func.FuncOp) -> tuple[TensorMapParam, ...]:
    out = []
    for op in tensor_map_ops(f):
        t = cast(MemRefType, op.source.type)
        out.append(TensorMapParam(cast(BlockArgument, op.source).index, op.box_sizes,
                                  op.swizzle_bytes, element_bytes(t.element_type)))
    return tuple(out)


@dataclass(frozen=True)
class KernelInfo:
    """What it takes to launch one kernel. ``name`` is the MLIR symbol, ``c_name`` the name of
    the printed ``extern "C"`` function (they differ when the symbol is not a plain C name);
    ``params`` are all parameters in order, buffers and scalars."""

    name: str
    block: int
    grid: tuple[int, ...]
    params: tuple[Param, ...]
    index64: bool
    widest_vector: int  # bytes; 0 when the kernel has no vector access
    c_name: str = ""
    static_shared_bytes: int = 0
    dynamic_shared_bytes: int = 0  # the launch's shmem_size (shared.dyn buffers)
    min_blocks: int | None = None  # the launch's min_blocks (CTAs per SM), if given
    tensor_maps: tuple[TensorMapParam, ...] = ()  # extra parameters after ``params``
    index_switch: bool = False
    """Whether the printed source indexes in ``rc_index`` (a kernel with runtime-shaped
    buffers): 64-bit as printed (``index64``), 32-bit when compiled with
    ``-DREGCOPY_INDEX32``; its parameters are the same in both (extents, strides and
    ``index`` scalars are ``long long``), so either compile takes the same arguments."""
    index_overhang: int = 0
    """How far past a buffer's extents, per dimension, the kernel may form offsets (for
    masked-off elements of its edge tiles): twice its largest tile dimension
    (``index_overhang``). The runner's choice of the index width counts it."""

    @property
    def grid3(self) -> tuple[int, int, int]:
        g = tuple(self.grid) + (1, 1, 1)
        return cast(tuple[int, int, int], g[:3])

    @property
    def buffers(self) -> tuple[KernelParam, ...]:
        """The buffer parameters, in order (what ``RunResult.arrays`` holds)."""
        return tuple(p for p in self.params if isinstance(p, KernelParam))

    @property
    def scalars(self) -> tuple[ScalarParam, ...]:
        return tuple(p for p in self.params if isinstance(p, ScalarParam))

    @property
    def symbol(self) -> str:
        """The name to look the compiled kernel up by."""
        return self.c_name or self.name


def is_kernel(op: Operation) -> bool:
    """A kernel is a ``func.func`` carrying ``regcopy.launch``."""
    return isinstance(op, func.FuncOp) and isinstance(op.attributes.get(LAUNCH), LaunchAttr)


def kernels(module: ModuleOp) -> list[func.FuncOp]:
    """The kernel funcs of a module, in order."""
    return [op for op in module.ops if is_kernel(op) and isinstance(op, func.FuncOp)]


def buffer_elements(t: MemRefType) -> int:
    """Elements a buffer spans: its logical size or its layout's span, whichever is larger;
    ``INDEX64_THRESHOLD`` for a dynamic buffer (its runtime size may reach 2^31)."""
    if is_dynamic(t):
        return INDEX64_THRESHOLD
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
    """Whether ``f`` touches a buffer of 2^31 elements or more, or a dynamic buffer, whose
    runtime size may be (then index math is 64-bit)."""
    return any(buffer_elements(cast(MemRefType, v.type)) >= INDEX64_THRESHOLD
               for v in _memref_values(f))


def switchable_index(f: func.FuncOp) -> bool:
    """Whether ``f``'s index width is chosen at compile time of its source (``rc_index``):
    it touches runtime-shaped buffers, each of them an argument of ``f`` or an alias of one
    (``regcopy.storage``), so that a launch knows their sizes, and no static buffer of 2^31
    elements or more (that one needs 64-bit whatever the launch)."""
    values = _memref_values(f)
    dynamic = [v for v in values if is_dynamic(cast(MemRefType, v.type))]
    if not dynamic:
        return False
    if any(buffer_elements(cast(MemRefType, v.type)) >= INDEX64_THRESHOLD
           for v in values if v not in dynamic):
        return False
    return all(isinstance(r := root_buffer(v), BlockArgument) and r.owner is f.body.block
               for v in dynamic)


MIN_OVERHANG = 64
"""The least overhang (elements per dimension) counted for a kernel."""


def index_overhang(f: func.FuncOp) -> int:
    """How far past a buffer's extents (elements, in any dimension) ``f`` may form offsets:
    twice the largest dimension of its tiles (``memref.alloca`` buffers, registers and
    shared memory), at least ``MIN_OVERHANG``. An edge tile starts inside the buffer and
    reaches at most one tile past its extent; a prefetch of the next tiles (the GEMM's ring
    of stages) a tile or two more, which the factor 2 and the ring's own dimension cover."""
    dims = [d for op in f.walk() if isinstance(op, memref.AllocaOp)
            for d in cast(MemRefType, op.memref.type).get_shape() if d > 0]
    return 2 * max([MIN_OVERHANG, *dims])


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


def divisibility(f: func.FuncOp, k: int) -> int | None:
    """The ``regcopy.divisibility`` promise on argument ``k`` of ``f``, if any; ``ValueError``
    with the dialect's reason for an invalid one (``regcopy-opt``'s verifier refuses it
    earlier; a module built in Python may reach the printer unverified)."""
    attrs = f.arg_attrs.data[k].data if f.arg_attrs is not None else {}
    if (attr := attrs.get(DIVISIBILITY)) is None:
        return None
    arg = f.args[k]
    name = f"%{arg.name_hint or f'arg{k}'}"
    if (problem := divisibility_problem(attr, arg, name)) is not None:
        raise ValueError(f"kernel @{f.sym_name.data}: {problem}")
    return argument_promise(f, k)


def extent_divisors(f: func.FuncOp, k: int) -> tuple[int, ...] | None:
    """The ``regcopy.divisibility = array<i64: ...>`` of the memref argument ``k`` of ``f``
    (one divisor per dimension), None without one; ``ValueError`` with the dialect's reason
    for an invalid one."""
    attrs = f.arg_attrs.data[k].data if f.arg_attrs is not None else {}
    if (attr := attrs.get(DIVISIBILITY)) is None:
        return None
    arg = f.args[k]
    if (problem := divisibility_problem(attr, arg, f"%{arg.name_hint or f'arg{k}'}")):
        raise ValueError(f"kernel @{f.sym_name.data}: {problem}")
    return tuple(int(d) for d in cast(DenseArrayBase[IntegerType], attr).get_values())


def scalar_param(f: func.FuncOp, k: int, index_type: str) -> ScalarParam:
    """The scalar parameter ``k`` of kernel ``f`` (integer, ``index``, f32 or f64)."""
    arg = f.args[k]
    t = arg.type
    name = arg.name_hint or f"arg{k}"
    where = f"kernel @{f.sym_name.data} parameter %{name}"
    import numpy as np
    from regcopy_backend.host_data import numpy_dtype

    if isinstance(t, IndexType):
        dtype = np.dtype(np.int64 if index_type == INDEX_64 else np.int32)
    elif isinstance(t, Float32Type | Float64Type) or (
            isinstance(t, IntegerType) and t.width.data in (8, 16, 32, 64)):
        dtype = numpy_dtype(t)
    else:
        raise ValueError(f"{where} is {t}; kernel parameters are global memrefs, integers "
                         "(i8..i64), index, f32 or f64")
    return ScalarParam(name, t, ctype(t, index_type), dtype, divisibility(f, k))


def kernel_info(f: func.FuncOp) -> KernelInfo:
    """Launch facts of the kernel ``f`` (which must carry ``regcopy.launch``); ``ValueError``
    (``SharedMemoryError`` for shared memory over a limit) for a kernel that cannot run."""
    launch = f.attributes.get(LAUNCH)
    if not isinstance(launch, LaunchAttr):
        raise ValueError(f"func.func @{f.sym_name.data} has no {LAUNCH} attribute")
    widest: dict[SSAValue, int] = {}
    for buf, size in vector_accesses(f):
        widest[buf] = max(widest.get(buf, 0), size)
    index64 = needs_index64(f)
    params: list[Param] = []
    for k, arg in enumerate(f.args):
        if not isinstance(arg.type, MemRefType):
            params.append(scalar_param(f, k, INDEX_64 if index64 else INDEX_32))
            continue
        t = cast(MemRefType, arg.type)
        align = max(element_bytes(t.element_type), widest.get(arg, 0))
        params.append(KernelParam(arg.name_hint or f"arg{k}", t, align,
                                  extent_divisors(f, k), argument_stride_divisors(f, k)))
    usage = shared_usage(f)
    check_shared_limits(f.sym_name.data, usage)
    return KernelInfo(
        name=f.sym_name.data,
        block=launch.block.data,
        grid=tuple(g.data for g in launch.grid),
        params=tuple(params),
        index64=index64,
        widest_vector=max(widest.values(), default=0),
        c_name=function_c_name(f),
        static_shared_bytes=usage.static_bytes,
        dynamic_shared_bytes=usage.dynamic_bytes,
        min_blocks=launch.min_blocks_per_sm,
        tensor_maps=tensor_map_params(f),
        index_switch=switchable_index(f),
        index_overhang=index_overhang(f),
    )
