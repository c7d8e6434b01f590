"""The CUDA printer's frame: module, functions, parameters, C names and liveness.

``CudaFunctionPrinter`` holds what printing one function needs besides the ops themselves,
which ``cuda.CudaPrinter`` (its subclass) prints through ``print_op``:

* the module: the ``cuda_types.PRELUDE`` (and the f32 <-> f16/bf16 helpers
  of ``lanes.CONVERSIONS`` and the ``maximumf``/``minimumf`` helpers of ``compute.HELPERS``
  that the module calls), then each ``func.func`` (anything else at module
  level is an ``UnsupportedOpError``);
* a function: a kernel (``func.func`` carrying ``regcopy.launch``) is
  ``extern "C" __global__ void __launch_bounds__(block)`` (``(block, min_blocks)`` when the
  launch gives ``min_blocks``), any other function
  ``extern "C" __device__ void``; one block, no results; its global memref arguments are
  ``T* __restrict__`` parameters (a dynamic one followed by one ``index`` parameter per
  ``?`` dimension, ``<name>_dim<i>``, then, for a ``strided<[...]>`` one, per ``?`` stride,
  ``<name>_stride<i>``: ``extent_params``) and its scalar arguments scalar
  parameters, in order;
* shared memory: the limits are checked and ``shared.dyn`` buffers placed at 128-byte aligned
  offsets into the module's one ``extern __shared__ unsigned char rc_smem[]``, declared at file
  scope with the largest alignment any kernel's buffers need (``shared_memory``);
* ``index`` is ``int``, or ``long long`` in a function touching a buffer of 2^31 elements or
  more, or ``rc_index`` in a function touching runtime-shaped buffers (``literals.index_ctype``:
  a typedef printed once after the prelude, ``long long`` unless the source is compiled with
  ``-DREGCOPY_INDEX32``); there the extent, stride and ``index`` parameters stay ``long long``
  (one signature for both widths) and are read as ``(rc_index)X_dim0``;
* names: values keep their MLIR names when those are plain, unreserved C identifiers and are
  mangled otherwise (``cuda_names``); constants print as literals at their uses;
* liveness: a pure op (``PURE_OPS``) prints only when a printed op uses its result (NVRTC
  warns about unused variables).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

from regcopy_backend.cuda.arith import SUPPORTED as ARITH_OPS
from regcopy_backend.cuda.arith import ArithError, constant_literal
from regcopy_backend.cuda.compute import COMPUTE_OPS, module_helpers
from regcopy_backend.cuda.kernel_info import (
    LAUNCH,
    is_kernel,
    scalar_param,
    switchable_index,
    tensor_map_ops,
)
from regcopy_backend.cuda.literals import index_ctype
from regcopy_backend.cuda.names import c_identifier, function_c_names, unique_name
from regcopy_backend.cuda.shared_memory import (
    SharedMemoryError,
    dynamic_shared_alignment,
    check_shared_limits,
    shared_allocas,
    shared_usage,
)
from regcopy_backend.cuda.tma import TENSOR_MAP_DECL, tensor_map_param
from regcopy_backend.cuda.types import (
    INDEX_32,
    INDEX_64,
    INDEX_SWITCH,
    INDEX_TYPEDEFS,
    PRELUDE,
    CudaTypeError,
    ctype,
)
from xdsl.dialects import arith, func, gpu, memref, vector
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp, VectorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.utils.base_printer import BasePrinter
from xdsl.utils.exceptions import DiagnosticException

from regcopy_dialect.diagnostics import op_error
from regcopy_dialect.gpu_shuffle import ShuffleOp
from regcopy_dialect.regcopy import LaunchAttr, MemSpace, MultipleOfOp, StorageOp, memory_space
from regcopy_dialect.strided import dynamic_stride_dims
from regcopy_dialect.tma_ops import TensorMapOp

MATRIX_OP_NAMES = frozenset({"regcopy.ldmatrix", "regcopy.stmatrix"})
"""Ops whose functions keep C++ vector stores into dynamic buffers (``ptx_stores``)."""

DYN_SMEM = "rc_smem"
"""The ``extern __shared__`` byte array holding a kernel's ``shared.dyn`` buffers."""


class CudaEmitError(DiagnosticException):
    """The module cannot be printed as CUDA; the message names the op."""


class UnsupportedOpError(CudaEmitError, NotImplementedError):
    """An op the CUDA target has no translation for."""


PURE_OPS: tuple[type[Operation], ...] = (
    arith.ConstantOp, *ARITH_OPS, StorageOp, MultipleOfOp, memref.AllocaOp, memref.LoadOp,
    memref.DimOp, memref.ExtractStridedMetaDataOp,
    vector.LoadOp, vector.BitcastOp, vector.BroadcastOp,
    gpu.ThreadIdOp, gpu.BlockIdOp, gpu.BlockDimOp, gpu.GridDimOp, gpu.LaneIdOp,
    gpu.GlobalIdOp, gpu.SubgroupIdOp, *COMPUTE_OPS, ShuffleOp,
)
"""Ops printed only when a printed op uses their result."""


def vector_step(buf: SSAValue, indices: list[SSAValue], op: Operation
                ) -> tuple[SSAValue, SSAValue] | None:
    """``(a, q)`` when a vector access ``op`` to shared memory is at ``arith.addi a,
    (arith.shli q, log2 n)`` with ``n`` the vector's lanes (the form of a lane-rotated round's
    offset, ``emit_rotated.rotated_s_offsets``; nothing else in the lowering shifts left):
    printed as the ``q``-th vector from ``&buf[a]`` (``reinterpret_cast<uint4*>(&S[a])[q]``),
    so that ptxas adds ``q``'s bytes (loop-invariant) to the slice's address once an access,
    not ``a + q * n`` and then its bytes."""
    index = indices[0] if len(indices) == 1 else None
    add = index.owner if index is not None else None
    if not isinstance(add, arith.AddiOp) or not isinstance(buf.type, MemRefType) or \
            memory_space(buf.type) not in (MemSpace.SHARED, MemSpace.SHARED_DYN):
        return None
    shift = add.rhs.owner
    vtype = (op.results[0] if op.results else op.operands[0]).type
    if not isinstance(shift, arith.ShLIOp) or not isinstance(vtype, VectorType):
        return None
    k = shift.rhs.owner
    if not isinstance(k, arith.ConstantOp) or not isinstance(k.value, IntegerAttr) or \
            1 << k.value.value.data != vtype.get_shape()[0]:
        return None
    return add.lhs, shift.lhs


def printed_operands(op: Operation) -> list[SSAValue]:
    """The values the printed C of ``op`` reads: its operands, except that a vector access
    printed through ``vector_step`` reads ``a`` and ``q`` instead of its index."""
    if isinstance(op, vector.LoadOp | vector.StoreOp):
        split = vector_step(op.base, list(op.indices), op)
        if split is not None:
            return [v for v in op.operands if v not in op.indices] + list(split)
    return list(op.operands)


def live_ops(f: func.FuncOp) -> set[Operation]:
    """Ops of ``f`` to print: every op with an effect (or unknown to us), and every pure op
    whose result a printed op reads (``printed_operands``). One reverse pre-order sweep
    suffices: uses follow defs."""
    live: set[Operation] = set()
    read: set[SSAValue] = set()
    for op in reversed(list(f.walk())):
        if not isinstance(op, PURE_OPS) or any(r in read for r in op.results):
            live.add(op)
            read.update(printed_operands(op))
    return live


def _values(f: func.FuncOp) -> list[SSAValue]:
    """Every value defined in ``f``: op results and block arguments."""
    out: list[SSAValue] = []
    for op in f.walk():
        out.extend(op.results)
        out.extend(a for r in op.regions for b in r.blocks for a in b.args)
    return out


@dataclass(eq=False, repr=False)
class CudaFunctionPrinter(BasePrinter):
    """Prints the module and function frames of a lowered module as CUDA C++; the ops of a
    function body go to ``print_op``, which a subclass (``cuda.CudaPrinter``) provides."""

    index_type: str = field(default=INDEX_32, init=False)
    names: dict[SSAValue, str] = field(default_factory=dict[SSAValue, str], init=False)
    taken: set[str] = field(default_factory=set[str], init=False)
    unnamed: int = field(default=0, init=False)
    hinted: set[str] = field(default_factory=set[str], init=False)
    live: set[Operation] = field(default_factory=set[Operation], init=False)
    function_names: dict[str, str] = field(default_factory=dict[str, str], init=False)
    dyn_offsets: dict[Operation, int] = field(default_factory=dict[Operation, int], init=False)
    extents: dict[tuple[SSAValue, int], str] = field(
        default_factory=dict[tuple[SSAValue, int], str], init=False)
    strides: dict[tuple[SSAValue, int], str] = field(
        default_factory=dict[tuple[SSAValue, int], str], init=False)
    ptx_stores: bool = field(default=True, init=False)
    """Whether 16/8-byte stores into dynamic global buffers print as inline PTX
    (``CudaPrinter.ptx_store``): in every function without ldmatrix/stmatrix."""

    # ---- output helpers -----------------------------------------------------------------
    def line(self, text: str) -> None:
        print(" " * (self._indent * self.indent_num_spaces) + text, file=self.stream)

    def fail(self, op: Operation, message: str) -> CudaEmitError:
        return CudaEmitError(op_error(op, message))

    def ctype(self, t: Attribute, op: Operation) -> str:
        try:
            return ctype(t, self.index_type)
        except CudaTypeError as e:
            raise self.fail(op, str(e)) from None

    # ---- names --------------------------------------------------------------------------
    def define(self, v: SSAValue, prefix: str = "v") -> str:
        """Give ``v`` a fresh C name, from its name hint when it has one (made a valid,
        unreserved identifier by ``cuda_names.c_identifier``). A value without a hint gets
        ``<prefix><n>``, never a name that a hinted value of the function asks for (so that
        the source's own names print unchanged)."""
        if v.name_hint is None:
            name = self.fresh(prefix)
        else:
            name = unique_name(c_identifier(v.name_hint, prefix), self.taken)
        self.names[v] = name
        return name

    def fresh(self, prefix: str) -> str:
        """``<prefix><n>``: a C name no value of the function has or asks for by its hint."""
        name = f"{prefix}{self.unnamed}"
        while name in self.taken or name in self.hinted:
            self.unnamed += 1
            name = f"{prefix}{self.unnamed}"
        self.unnamed += 1
        self.taken.add(name)
        return name

    def val(self, v: SSAValue) -> str:
        """The C text of a value: a literal for a constant, otherwise its name."""
        owner = v.owner
        if isinstance(owner, arith.ConstantOp):
            try:
                return constant_literal(owner, self.index_type)
            except ArithError as e:
                raise self.fail(owner, str(e)) from None
        if v not in self.names:
            raise CudaEmitError(f"value {v.name_hint or ''} of type {v.type} is used before "
                                "it is printed")
        return self.names[v]

    # ---- module and functions -----------------------------------------------------------
    def print_module(self, module: ModuleOp) -> None:
        self.print_string(PRELUDE)
        self.print_string(module_helpers(module.walk()))
        if any(isinstance(op, func.FuncOp) and switchable_index(op) for op in module.ops):
            self.print_string(INDEX_TYPEDEFS)
        if any(isinstance(op, TensorMapOp) for op in module.walk()):
            self.print_string(TENSOR_MAP_DECL)
        self.function_names = function_c_names(module)
        if (align := dynamic_shared_alignment(module)) is not None:
            # one declaration for every kernel: NVRTC keeps a single rc_smem, so kernels
            # declaring it with their own alignments would all get one of them
            self.print_string(f"extern __shared__ __align__({align}) unsigned char "
                              f"{DYN_SMEM}[];\n")
        for op in module.ops:
            if not isinstance(op, func.FuncOp):
                raise UnsupportedOpError(op_error(op, "at module level is not supported by "
                                                  "the CUDA target (only func.func)"))
            self.print_func(op)

    def print_func(self, f: func.FuncOp) -> None:
        if not f.body.blocks:
            raise self.fail(f, "is a declaration; the CUDA target prints function bodies only")
        if len(f.body.blocks) > 1:
            raise self.fail(f, "has several blocks; the CUDA target prints structured control "
                            "flow (scf) only")
        if f.function_type.outputs.data:
            raise self.fail(f, "returns values; CUDA kernels and the printed device functions "
                            "return void")
        self.names, self.taken, self.unnamed, self.extents = {}, set(), 0, {}
        self.strides = {}
        self.hinted = {c_identifier(v.name_hint, "v") for v in _values(f)
                       if v.name_hint is not None}
        self.index_type = index_ctype(f)
        self.live = live_ops(f)
        self.ptx_stores = not any(op.name in MATRIX_OP_NAMES for op in f.walk())
        kernel = is_kernel(f)
        self.plan_shared(f, kernel)
        params = ", ".join([self.param(k, f, kernel) for k in range(len(f.args))]
                           + self.tensor_map_params(f, kernel))
        self.print_string("\n")
        if kernel:
            launch = cast(LaunchAttr, f.attributes[LAUNCH])
            bounds = ", ".join(str(n) for n in (launch.block.data, launch.min_blocks_per_sm)
                               if n is not None)
            head = f'extern "C" __global__ void __launch_bounds__({bounds})'
        else:
            head = 'extern "C" __device__ void'
        name = self.function_names.get(f.sym_name.data) or c_identifier(f.sym_name.data, "k")
        self.line(f"{head} {name}({params}) {{")
        with self.indented():
            self.print_block(f.body.block)
        self.line("}")

    def tensor_map_params(self, f: func.FuncOp, kernel: bool) -> list[str]:
        """The extra ``__grid_constant__ CUtensorMap`` parameters of the kernel's
        ``regcopy.tensor_map`` ops (``cuda.tma``), in program order."""
        maps = tensor_map_ops(f)
        if maps and not kernel:
            raise self.fail(maps[0], "outside a kernel; tensor maps are kernel parameters")
        return [tensor_map_param(self.define(op.map, "tmap")) for op in maps]

    def plan_shared(self, f: func.FuncOp, kernel: bool) -> None:
        """Check the kernel's shared memory against the limits and place its ``shared.dyn``
        buffers (``shared_memory``: 128-byte aligned offsets into ``rc_smem``)."""
        try:
            usage = shared_usage(f)
        except CudaTypeError as e:
            raise self.fail(f, str(e)) from None
        self.dyn_offsets = {op: b.offset for op, b in zip(shared_allocas(f), usage.buffers,
                                                          strict=True)
                            if b.offset is not None}
        if self.dyn_offsets and not kernel:
            op = next(iter(self.dyn_offsets))
            raise self.fail(op, "allocates shared.dyn memory outside a kernel; allocate "
                            "dynamic shared buffers in the kernel (the func.func with "
                            "regcopy.launch)")
        try:
            check_shared_limits(f.sym_name.data, usage)
        except SharedMemoryError as e:
            raise self.fail(f, str(e)) from None

    def param(self, k: int, f: func.FuncOp, kernel: bool) -> str:
        arg = f.args[k]
        t = arg.type
        if isinstance(t, MemRefType):
            space = memory_space(cast(MemRefType, t))
            if kernel and space != MemSpace.GLOBAL:
                raise self.fail(f, f"kernel parameter {arg.name_hint or arg.index} is a "
                                f"{space} buffer; kernel parameters must be global buffers")
            pointer = f"{self.ctype(t, f)} __restrict__ {self.define(arg, 'arg')}"
            return ", ".join([pointer, *self.extent_params(arg)])
        if kernel:
            try:
                scalar = scalar_param(f, k, self.param_index_type)
            except ValueError as e:
                raise self.fail(f, str(e)) from None
            name = self.define(arg, "arg")
            if isinstance(t, IndexType):
                self.names[arg] = self.index_read(name)
            return f"{scalar.ctype} {name}"
        return f"{self.ctype(t, f)} {self.define(arg, 'arg')}"

    @property
    def param_index_type(self) -> str:
        """The C type of a kernel's ``index`` parameters (scalars, extents, strides): the
        function's index type, but ``long long`` for ``rc_index`` (one signature for both
        widths of the source)."""
        return INDEX_64 if self.index_type == INDEX_SWITCH else self.index_type

    def index_read(self, name: str) -> str:
        """How the body reads the ``index`` parameter ``name``: ``(rc_index)name`` in an
        ``rc_index`` function, else the name."""
        return f"({INDEX_SWITCH}){name}" if self.index_type == INDEX_SWITCH else name

    def extent_params(self, arg: SSAValue) -> list[str]:
        """``index X_dim0, index X_dim1, ...``: one parameter per ``?`` dimension of the
        memref argument ``arg`` (named ``<arg>_dim<i>``, in dimension order), which
        ``memref.dim`` reads (``extents``); then, for a ``strided<[...]>`` buffer, one per
        ``?`` stride (``<arg>_stride<i>``, in dimension order), which
        ``memref.extract_strided_metadata`` reads (``strides``)."""
        out: list[str] = []
        t = cast(MemRefType, arg.type)
        for i in (i for i, d in enumerate(t.get_shape()) if d < 0):
            name = unique_name(f"{self.names[arg]}_dim{i}", self.taken)
            self.extents[(arg, i)] = self.index_read(name)
            out.append(f"{self.param_index_type} {name}")
        for i in dynamic_stride_dims(t):
            name = unique_name(f"{self.names[arg]}_stride{i}", self.taken)
            self.strides[(arg, i)] = self.index_read(name)
            out.append(f"{self.param_index_type} {name}")
        return out

    def print_block(self, block: Block) -> None:
        for op in block.ops:
            if op in self.live:
                self.print_op(op)

    def print_op(self, op: Operation) -> None:
        """Print one live op of a function body (``cuda.CudaPrinter`` dispatches on its
        class)."""
        raise NotImplementedError

    def assign(self, op: Operation, rhs: str) -> None:
        """``const T name = rhs;`` for the op's single result."""
        result = op.results[0]
        t = self.ctype(result.type, op)
        self.line(f"const {t} {self.define(result)} = {rhs};")
