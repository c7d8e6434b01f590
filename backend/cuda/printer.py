"""The CUDA target (``-t cuda``): prints the kernels of a *lowered* module as CUDA C++.

Design: one ``print_op`` singledispatch method per op class (here, in
``CudaPrinter``), one type mapping (``cuda_types.ctype``), unique C names per function (from
the SSA name hints), constants inlined as literals, and values nobody uses left out (NVRTC
warns about unused variables). The module and function frames (parameters, names, liveness,
shared-memory planning) are ``cuda_function.CudaFunctionPrinter``'s, its base class; the
names other modules import from here (``CudaEmitError``, ``UnsupportedOpError``, ``DYN_SMEM``,
``PURE_OPS``, ``live_ops``) are re-exported.

* a kernel is a ``func.func`` carrying ``regcopy.launch``: ``extern "C" __global__``, its
  global memref arguments become ``T* __restrict__`` parameters and its integer/``index``/f32/
  f64 arguments scalar parameters, in order; other funcs become
  ``extern "C" __device__`` functions;
* ``index`` is ``int``, or ``long long`` in a function touching a buffer of 2^31 elements or
  more, or ``rc_index`` (a typedef: ``long long``, ``int`` under ``-DREGCOPY_INDEX32``) in a
  function touching runtime-shaped buffers (``literals``);
* ``memref.alloca`` in ``shared``: ``__shared__ alignas(128) T name[span]``; in ``shared.dyn``:
  ``T* const name`` into the kernel's ``extern __shared__ unsigned char rc_smem[]`` at its
  128-byte aligned offset (``shared_memory``); in ``local``: ``alignas(16) T name[registers]``
  (one thread's register slots); static shared over 48 KiB, or static + dynamic over sm_90's
  227 KiB per block, is an error naming the buffers;
* ``regcopy.multiple_of`` prints as its operand;
* names: kernels and values keep their MLIR names when those are plain, unreserved C
  identifiers, and are mangled otherwise (``cuda_names``); ``KernelInfo.c_name`` records a
  kernel's C name;
* the printer never addresses a layout: ``print_cuda`` first runs ``lower-layout-access`` on a
  copy of the module, which rewrites every access by logical indices to a buffer that is not
  its own flat storage into index math + an access to its ``regcopy.storage``; so
  ``memref.load/store`` and ``vector.load/store`` print as ``name[offset]`` on 1-D storage,
  ``regcopy.storage`` aliases its buffer, and a ``vector.load/store`` of 16/8/4/2/1 bytes is
  one ``uint4/uint2/uint32_t/uint16_t/uint8_t`` access; ``vector.bitcast`` between vectors
  of one size is a plain copy, ``vector.extract`` of one 32-bit lane of a 4-, 8- or 16-byte
  vector (a register ↔ register conversion's) is that lane reinterpreted as its type, and
  arith on vectors is ``cuda_arith``'s (bitwise, select, add/sub/mul on i32 and f32 lanes);
* ``scf.for`` with constant bounds gets ``#pragma unroll`` (register arrays stay in registers);
  its loop-carried values are variables declared before it (``yield_carried``);
* ``math`` ops, ``arith.maximumf``/``minimumf``, ``vector.broadcast`` of any lanes and
  ``gpu.shuffle`` are ``cuda.compute``'s;
* runtime extents: a dynamic global buffer parameter is its pointer followed by one ``index``
  parameter per ``?`` dimension (``<name>_dim<i>``, in dimension order; ``function``);
  ``memref.dim`` is that parameter (a static size: a literal; the flat storage of a dynamic
  buffer: the product of its extents); a 16/8-byte ``vector.store`` into a dynamic buffer,
  in a function without ldmatrix/stmatrix, is one inline-PTX ``st.global.v4``/``v2``
  (``ptx_store``);
* ``scf.if`` with results: each used result is a variable declared before the ``if`` and
  assigned by the ``scf.yield`` of each branch;
* a guarded global load (``guarded_accesses``: one in a branch of an ``scf.if`` whose
  buffer and index are computed before the ``if``) takes its address before the ``if``,
  ``T* const p<n> = &X[i];``, and the branch loads ``*p<n>``: inside the branch, NVVM
  forms each predicated load's 64-bit address anew (a parameter load, a ``LEA`` pair, an
  add), where outside it ptxas folds the neighbours' addresses into one base and immediate
  offsets (the versioned ``bench_ragged`` 32 x 256 kernel: 976 to 792 SASS instructions on
  NVRTC 13.0). Stores keep their address in the branch (hoisting them cost registers).

Anything else raises ``CudaEmitError`` naming the op.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import singledispatchmethod
from io import StringIO
from typing import IO, cast

from regcopy_backend.cuda import tma
from regcopy_backend.cuda.arith import SUPPORTED as ARITH_OPS
from regcopy_backend.cuda.arith import (
    ArithError,
    bitcast_expression,
    broadcast_expression,
    expression,
)
from regcopy_backend.cuda.async_copy import commit_group, cp_async, wait_group
from regcopy_backend.cuda.function import (
    DYN_SMEM,
    PURE_OPS,
    CudaEmitError,
    CudaFunctionPrinter,
    UnsupportedOpError,
    live_ops,
    vector_step,
)
from regcopy_backend.cuda.compute import (
    COMPUTE_OPS,
    ComputeError,
    broadcast_lanes,
    math_expression,
    shuffle_expression,
    shuffle_offset,
    shuffle_valid,
)
from regcopy_backend.cuda.kernel_info import root_buffer
from regcopy_backend.cuda.literals import int_literal
from regcopy_backend.cuda.matrix import print_matrix
from regcopy_backend.cuda.mma import mma_statements
from regcopy_backend.cuda.shared_memory import alloca_alignment
from regcopy_backend.cuda.types import (
    INDEX_64,
    INDEX_SWITCH,
    UINDEX_SWITCH,
    CudaTypeError,
    ctype,
    vector_bytes,
)
from regcopy_backend.cuda.wgmma import wait_statements, wgmma_statements
from regcopy_backend.cuda.nvrtc import SM90A_MARKER
from regcopy_passes.lower_layout_access import (
    access_operands,
    layout_access_refusal,
    lower_layout_access,
    needs_flat_storage,
)
from xdsl.context import Context
from xdsl.dialects import arith, func, gpu, memref, scf, vector
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    VectorType,
)
from xdsl.ir import Block, Operation, SSAValue
from xdsl.utils.target import Target

from regcopy_dialect.async_ops import (
    AsyncGroupOp,
    AsyncWaitOp,
    CopyAsyncOp,
    CpAsyncCommitOp,
    CpAsyncOp,
    CpAsyncWaitOp,
)
from regcopy_dialect.buffers import is_dynamic
from regcopy_dialect.diagnostics import op_error, op_location
from regcopy_dialect.gpu_shuffle import ShuffleOp, shuffle_width_error
from regcopy_dialect.strided import layout_strides
from regcopy_dialect.matrix_ops import LdMatrixOp, StMatrixOp
from regcopy_dialect.mma_ops import MmaOp, MmaSyncOp
from regcopy_dialect.regcopy import (
    CopyOp,
    LayoutAttr,
    MemSpace,
    MultipleOfOp,
    StorageOp,
    buffer_layout,
    memory_space,
)
from regcopy_dialect.tma_ops import (
    FenceBarrierInitOp,
    MBarrierArriveExpectTxOp,
    MBarrierInitOp,
    MBarrierTryWaitParityOp,
    TensorMapOp,
    TmaLoadOp,
)
from regcopy_dialect.setmaxnreg_op import SetMaxNRegOp, setmaxnreg_ptx
from regcopy_dialect.wgmma_ops import WgmmaAsyncOp, WgmmaOp, WgmmaWaitOp

__all__ = ["DYN_SMEM", "PURE_OPS", "CudaEmitError", "CudaPrinter", "CudaTarget",
           "UnsupportedOpError", "live_ops", "print_cuda"]

PTX_STORES: dict[str, tuple[str, ...]] = {"uint4": (".x", ".y", ".z", ".w"), "uint2": (".x", ".y")}
"""The vector stores into dynamic global buffers printed as inline PTX (``ptx_store``)."""
EXTRACT_LANES = {8: ".x .y", 16: ".x .y .z .w"}
"""The lanes of an 8- and 16-byte vector (``uint2``, ``uint4``) that ``vector.extract`` reads."""

GPU_SPECIAL = {gpu.ThreadIdOp: "threadIdx", gpu.BlockIdOp: "blockIdx",
               gpu.BlockDimOp: "blockDim", gpu.GridDimOp: "gridDim"}


@dataclass(eq=False, repr=False)
class CudaPrinter(CudaFunctionPrinter):
    """Prints the funcs of a lowered module as CUDA C++: the module and function frames are
    ``CudaFunctionPrinter``'s, the ops of the bodies are printed here."""

    pointers: dict[Operation, str] = field(default_factory=dict[Operation, str], init=False)
    """The guarded global loads whose address was taken before their ``if``."""
    checked_promises: bool = False
    """Checked mode: every ``regcopy.multiple_of`` tests its promise at run time and traps
    (``printf`` of the op's ``file:line:col``, then ``__trap()``) when it is broken."""
    wgmma_c: dict[WgmmaAsyncOp, str] = field(default_factory=dict[WgmmaAsyncOp, str],
                                              init=False)
    """The accumulator array of each lowered wgmma printed so far (for its waits)."""

    # ---- ops ----------------------------------------------------------------------------
    @singledispatchmethod
    def print_op(self, op: Operation) -> None:
        if isinstance(op, ARITH_OPS):
            return self.print_arith(op)
        if isinstance(op, COMPUTE_OPS):
            return self.print_compute(op)
        raise UnsupportedOpError(op_error(op, "is not supported by the CUDA target"))

    def print_arith(self, op: Operation) -> None:
        args = [self.val(v) for v in op.operands]
        if self.index_type == INDEX_SWITCH and len(args) > 1 and all(
                isinstance(v.owner, arith.ConstantOp) and isinstance(v.type, IndexType)
                for v in op.operands):
            # plain literals are int: computed in rc_index as the long long form would
            args[0] = f"({INDEX_SWITCH}){args[0]}"
        try:
            rhs = expression(op, args, lambda t: ctype(t, self.index_type), self.val)
        except (ArithError, CudaTypeError) as e:
            raise UnsupportedOpError(op_error(op, str(e))) from None
        self.assign(op, rhs)

    def print_compute(self, op: Operation) -> None:
        """``math`` ops and ``arith.maximumf``/``minimumf`` (``cuda.compute``)."""
        rt = self.ctype(op.results[0].type, op)
        try:
            rhs = math_expression(op, [self.val(v) for v in op.operands], rt)
        except ComputeError as e:
            raise UnsupportedOpError(op_error(op, str(e))) from None
        self.assign(op, rhs)

    @print_op.register
    def _(self, op: ShuffleOp) -> None:
        """``__shfl_*_sync`` of the whole warp (``cuda.compute``); each result is printed
        only when used."""
        if (problem := shuffle_width_error(op)) is not None:
            raise self.fail(op, problem)
        ct = self.ctype(op.value.type, op)
        offset = shuffle_offset(op.offset, self.val(op.offset))
        if op.shuffle_result.uses:
            self.assign(op, shuffle_expression(op, self.val(op.value), offset, ct))
        if op.valid.uses:
            self.line(f"const bool {self.define(op.valid)} = {shuffle_valid(op, offset)};")

    @print_op.register
    def _(self, op: CopyOp) -> None:
        raise UnsupportedOpError(op_error(
            op, "is not lowered; run lower-reg-copy before -t cuda, ptx or sass (a copy that "
            "the register dispatch rejects stays in the IR: lower-reg-copy{strict=true} says "
            "why)"))

    @print_op.register(CopyAsyncOp)
    @print_op.register(AsyncGroupOp)
    @print_op.register(AsyncWaitOp)
    def _(self, op: Operation) -> None:
        raise UnsupportedOpError(op_error(
            op, "is not lowered; run lower-reg-copy before -t cuda, ptx or sass (a refused "
            "copy_async keeps its function's async ops: lower-reg-copy{strict=true} says why)"))

    @print_op.register
    def _(self, op: arith.ConstantOp) -> None:
        """Constants are inlined at their uses."""

    @print_op.register
    def _(self, op: func.ReturnOp) -> None:
        if op.arguments:
            raise self.fail(op, "returns values; printed functions return void")

    @print_op.register
    def _(self, op: scf.YieldOp) -> None:
        """The end of an ``scf.if`` branch assigns the yielded values to the if's result
        variables (those that are used); the end of an ``scf.for`` body assigns them to its
        loop-carried variables, through temporaries when several are carried (the next
        iteration sees all of them updated at once, as MLIR's block arguments)."""
        if not op.arguments:
            return
        parent = op.parent_op()
        if isinstance(parent, scf.ForOp):
            return self.yield_carried(op, parent)
        if not isinstance(parent, scf.IfOp):
            raise self.fail(op, f"yields values to {parent.name if parent else 'nothing'}; "
                            "the CUDA target prints scf.yield of scf.if and scf.for")
        for result, value in zip(parent.results, op.arguments, strict=True):
            if result.uses:
                self.line(f"{self.names[result]} = {self.val(value)};")

    def yield_carried(self, op: scf.YieldOp, loop: scf.ForOp) -> None:
        carried = loop.body.block.args[1:]
        moves = [(a, self.val(v)) for a, v in zip(carried, op.arguments, strict=True)
                 if self.names[a] != self.val(v)]
        if len(moves) == 1:
            self.line(f"{self.names[moves[0][0]]} = {moves[0][1]};")
            return
        temps: list[tuple[str, str]] = []
        for arg, value in moves:
            temp = self.fresh("t")
            self.line(f"const {self.ctype(arg.type, op)} {temp} = {value};")
            temps.append((self.names[arg], temp))
        for name, temp in temps:
            self.line(f"{name} = {temp};")

    @print_op.register
    def _(self, op: scf.ForOp) -> None:
        """A C ``for``; ``#pragma unroll`` with constant bounds. Each loop-carried value is a
        variable declared before the loop (initialised to its init value), read by the body
        through its block argument, assigned by the body's ``scf.yield`` and read after the
        loop through the loop's result."""
        bounds = (op.lb, op.ub, op.step)
        for arg, init, result in zip(op.body.block.args[1:], op.iter_args, op.results,
                                     strict=True):
            name = self.define(arg, "acc")
            self.line(f"{self.ctype(arg.type, op)} {name} = {self.val(init)};")
            self.names[result] = name
        if all(isinstance(v.owner, arith.ConstantOp) for v in bounds):
            self.line("#pragma unroll")
        lb, ub, step = (self.val(v) for v in bounds)
        var = self.define(op.body.block.args[0], "i")
        it = self.ctype(op.body.block.args[0].type, op)
        self.line(f"for ({it} {var} = {lb}; {var} < {ub}; {var} += {step}) {{")
        with self.indented():
            self.print_block(op.body.block)
        self.line("}")

    @print_op.register
    def _(self, op: scf.IfOp) -> None:
        """``if (c) { ... } else { ... }``; each used result is a variable declared before
        the ``if`` and assigned at the end of both branches (``scf.yield``); the addresses of
        its guarded global loads are taken before it (``guarded_accesses``)."""
        for access in guarded_accesses(op):
            if access in self.live:
                buf, indices = access_operands(access)
                elem = self.ctype(cast(MemRefType, buf.type).element_type, access)
                address = self.address(access, buf, indices)
                pointer = self.fresh("p")
                self.line(f"{elem}* const {pointer} = {address};")
                self.pointers[access] = pointer
        for result in op.results:
            if result.uses:
                self.line(f"{self.ctype(result.type, op)} {self.define(result)};")
        self.line(f"if ({self.val(op.cond)}) {{")
        with self.indented():
            self.print_block(op.true_region.block)
        else_ops = [o for b in op.false_region.blocks for o in b.ops
                    if not isinstance(o, scf.YieldOp) or o.arguments]
        if else_ops:
            self.line("} else {")
            with self.indented():
                self.print_block(op.false_region.block)
        self.line("}")

    # ---- gpu ----------------------------------------------------------------------------
    @print_op.register(gpu.ThreadIdOp)
    @print_op.register(gpu.BlockIdOp)
    @print_op.register(gpu.BlockDimOp)
    @print_op.register(gpu.GridDimOp)
    def _(self, op: gpu.ThreadIdOp | gpu.BlockIdOp | gpu.BlockDimOp | gpu.GridDimOp) -> None:
        special = GPU_SPECIAL[type(op)]
        self.assign(op, f"({self.index_type}){special}.{op.dimension.data.value}")

    @print_op.register
    def _(self, op: gpu.GlobalIdOp) -> None:
        d = op.dimension.data.value
        self.assign(op, f"({self.index_type})blockIdx.{d} * ({self.index_type})blockDim.{d} + "
                    f"({self.index_type})threadIdx.{d}")

    @print_op.register
    def _(self, op: gpu.LaneIdOp) -> None:
        self.assign(op, f"({self.index_type})(threadIdx.x % 32)")

    @print_op.register
    def _(self, op: gpu.SubgroupIdOp) -> None:
        self.assign(op, f"({self.index_type})(threadIdx.x / 32)")

    @print_op.register
    def _(self, op: gpu.BarrierOp) -> None:
        self.line("__syncwarp();" if "regcopy.warp" in op.attributes else "__syncthreads();")

    # ---- memory -------------------------------------------------------------------------
    @print_op.register
    def _(self, op: memref.AllocaOp) -> None:
        t = cast(MemRefType, op.memref.type)
        if op.dynamic_sizes or op.symbol_operands:
            raise self.fail(op, "has dynamic sizes; the CUDA target needs static buffers")
        elem = self.ctype(t.element_type, op)
        space = memory_space(t)
        name = self.define(op.memref, "buf")
        if space == MemSpace.SHARED_DYN:
            offset = self.dyn_offsets[op]
            self.line(f"{elem}* const {name} = reinterpret_cast<{elem}*>({DYN_SMEM} + "
                      f"{offset});  // shared.dyn, {buffer_layout(t).span()} elements")
        elif space == MemSpace.SHARED:
            align = alloca_alignment(op)
            self.line(f"__shared__ alignas({align}) {elem} {name}[{buffer_layout(t).span()}];")
        elif space == MemSpace.LOCAL:
            regs = buffer_layout(t).storage().span()
            self.line(f"alignas(16) {elem} {name}[{regs}];")
        else:
            raise self.fail(op, f"allocates {space} memory; memref.alloca supports shared, "
                            "shared.dyn and local buffers")

    @print_op.register
    def _(self, op: memref.DimOp) -> None:
        """A static size is a literal; a ``?`` extent of a kernel argument is its extent
        parameter (``extent_params``); the 1-D storage of a dynamic buffer spans the product
        of its extents."""
        self.names[op.result] = self.extent(op, op.source, op.index)

    def extent(self, op: Operation, buf: SSAValue, index: SSAValue) -> str:
        owner = index.owner
        if not (isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr)):
            raise self.fail(op, "reads a dimension given at run time; the CUDA target needs "
                            "a constant dimension index")
        dim = owner.value.value.data
        shape = cast(MemRefType, buf.type).get_shape()
        if not 0 <= dim < len(shape):
            raise self.fail(op, f"reads dimension {dim} of a rank-{len(shape)} memref")
        if shape[dim] >= 0:
            return self.index_literal(shape[dim])
        if (name := self.extents.get((buf, dim))) is not None:
            return name
        if isinstance(buf.owner, StorageOp) and len(shape) == 1:
            root = buf.owner.buffer
            sizes = cast(MemRefType, root.type).get_shape()
            terms = [self.extents.get((root, i)) or self.index_literal(d)
                     for i, d in enumerate(sizes)]
            if all(d >= 0 or (root, i) in self.extents for i, d in enumerate(sizes)):
                if (strides := layout_strides(cast(MemRefType, root.type))) is None:
                    return "(" + " * ".join(terms) + ")"
                # a strided buffer spans 1 + sum((E_i - 1) * s_i) elements
                spans = [f"({e} - 1) * {self.stride(op, root, i, s)}"
                         for i, (e, s) in enumerate(zip(terms, strides, strict=True))]
                return "(1 + " + " + ".join(spans) + ")"
        raise self.fail(op, "reads a runtime extent of a buffer that is not a kernel or "
                        "function argument; the CUDA target passes extents with arguments")

    def stride(self, op: Operation, buf: SSAValue, dim: int, static: int) -> str:
        """Stride ``dim`` of the strided buffer ``buf``: a literal when static, else its
        stride parameter (``extent_params``)."""
        if static != DYNAMIC_INDEX:
            return self.index_literal(static)
        if (name := self.strides.get((buf, dim))) is not None:
            return name
        raise self.fail(op, "reads a runtime stride of a buffer that is not a kernel or "
                        "function argument; the CUDA target passes strides with arguments")

    @print_op.register
    def _(self, op: memref.ExtractStridedMetaDataOp) -> None:
        """The metadata of a kernel argument: the base is the pointer, the offset 0, the
        sizes the extents (``memref.dim``), the strides literals or the stride parameters
        (row-major products of the extents for a buffer without ``strided<[...]>``)."""
        t = cast(MemRefType, op.source.type)
        shape = t.get_shape()
        self.names[op.base_buffer] = self.val(op.source)
        self.names[op.offset] = self.index_literal(0)
        terms: list[str] = []
        for i, size in enumerate(op.sizes):
            if shape[i] >= 0:
                terms.append(self.index_literal(shape[i]))
            elif (name := self.extents.get((op.source, i))) is not None:
                terms.append(name)
            else:
                raise self.fail(op, "reads a runtime extent of a buffer that is not a kernel "
                                "or function argument; the CUDA target passes extents with "
                                "arguments")
            self.names[size] = terms[-1]
        strides = layout_strides(t)
        for i, result in enumerate(op.strides):
            if strides is not None:
                self.names[result] = self.stride(op, op.source, i, strides[i])
            else:
                self.names[result] = "(" + " * ".join(terms[i + 1:]) + ")" \
                    if i + 1 < len(terms) else self.index_literal(1)

    def index_literal(self, value: int) -> str:
        return f"{value}LL" if self.index_type == INDEX_64 else int_literal(value)

    @print_op.register
    def _(self, op: StorageOp) -> None:
        self.names[op.result] = self.val(op.buffer)

    @print_op.register
    def _(self, op: MultipleOfOp) -> None:
        """A divisibility promise: the value itself (checked mode: after testing it)."""
        value = self.val(op.value)
        self.names[op.result] = value
        if self.checked_promises:
            self.line(promise_check(op, value))

    def element(self, op: Operation, buf: SSAValue, indices: list[SSAValue]) -> str:
        """``name[offset]`` of an access to 1-D flat storage. Accesses by logical indices to
        any other buffer were rewritten by ``lower-layout-access`` (``print_cuda`` runs it);
        one that is left is a buffer that pass refuses, reported here. A guarded access whose
        address was taken before its ``if`` is ``*p<n>``."""
        if (pointer := self.pointers.get(op)) is not None:
            return f"*{pointer}"
        t = cast(MemRefType, buf.type)
        if not isinstance(t.layout, NoneAttr | LayoutAttr):
            raise self.fail(op, f"accesses a buffer with layout {t.layout}; the CUDA target "
                            "supports row-major buffers and #regcopy.layout")
        if needs_flat_storage(t) or len(indices) != 1:
            reason = layout_access_refusal(t) or "internal error: lower-layout-access left it"
            raise self.fail(op, f"accesses {t} by logical indices, which the CUDA target "
                            f"addresses through its flat storage: {reason}")
        return f"{self.val(buf)}[{self.val(indices[0])}]"

    def async_source_index(self, buf: SSAValue, index: SSAValue) -> str:
        """The C text of a ``cp.async`` source offset into ``buf``: ``(rc_uindex)i`` for a
        global buffer of an ``rc_index`` function. The offset is never negative (it is that
        of an element read, or 0 when the chunk reads nothing), so zero-extending it gives the
        address the signed one does; in the 32-bit form ptxas then widens the selected offset
        ``inside ? v : 0`` in one step where a signed ``int`` is first sign-extended (an
        ``SHF`` and a second ``SEL`` per chunk): the GEMM's main loop goes from 397 to 344
        instructions (NVRTC 13). Plain loads and stores keep the signed offset, from which
        ptxas folds neighbouring accesses into one base and immediate offsets (cast, the
        ragged copies grow from 216 to 280 instructions)."""
        text = self.val(index)
        if self.index_type != INDEX_SWITCH or isinstance(index.owner, arith.ConstantOp) or \
                memory_space(cast(MemRefType, root_buffer(buf).type)) != MemSpace.GLOBAL:
            return text
        return f"({UINDEX_SWITCH}){text}"

    @print_op.register
    def _(self, op: memref.LoadOp) -> None:
        self.assign(op, self.element(op, op.memref, list(op.indices)))

    @print_op.register
    def _(self, op: memref.StoreOp) -> None:
        self.line(f"{self.element(op, op.memref, list(op.indices))} = {self.val(op.value)};")

    def address(self, op: Operation, buf: SSAValue, indices: list[SSAValue]) -> str:
        """``&name[offset]`` of an access to 1-D flat storage, or the pointer that a guarded
        access's address was taken into (``guarded_accesses``)."""
        return self.pointers.get(op) or f"&{self.element(op, buf, indices)}"

    def vector_address(self, op: Operation, buf: SSAValue, indices: list[SSAValue],
                       access: str) -> str:
        """``*reinterpret_cast<access*>(&buf[offset])``, on 1-D flat storage."""
        if isinstance(cast(MemRefType, buf.type).layout, LayoutAttr):
            raise self.fail(op, "accesses a buffer with a layout; vector accesses go through "
                            "its flat regcopy.storage")
        split = vector_step(buf, indices, op)
        if split is not None:
            base, q = split
            return f"reinterpret_cast<{access}*>(&{self.element(op, buf, [base])})[{self.val(q)}]"
        return f"*reinterpret_cast<{access}*>({self.address(op, buf, indices)})"

    @print_op.register
    def _(self, op: vector.LoadOp) -> None:
        access = self.ctype(op.result.type, op)
        self.assign(op, self.vector_address(op, op.base, list(op.indices), f"const {access}"))

    @print_op.register
    def _(self, op: vector.StoreOp) -> None:
        access = self.ctype(op.vector.type, op)
        if self.index_type in (INDEX_64, INDEX_SWITCH) and access in PTX_STORES and self.ptx_stores and \
                is_dynamic(cast(MemRefType, root_buffer(op.base).type)):
            return self.ptx_store(op, access)
        target = self.vector_address(op, op.base, list(op.indices), access)
        self.line(f"{target} = {self.val(op.vector)};")

    def ptx_store(self, op: vector.StoreOp, access: str) -> None:
        """A 16- or 8-byte store into a dynamic global buffer as one inline-PTX
        ``st.global.v4.b32``/``v2.b32``: with 64-bit index math, NVVM splits the ``uint4``/
        ``uint2`` store of a value that went through the register tile into 32-bit stores
        (``STG.E`` x 4 where ``STG.E.128`` is meant). ``volatile`` and the ``memory`` clobber
        keep it in order with the function's other memory accesses, as a C++ store is.

        In every function but those with ``ldmatrix``/``stmatrix``: in the GEMM example the
        inline PTX made ptxas (NVRTC 13.0) spill (3 ``LDL``/``STL``), while its C++ stores
        stay ``STG.E.128`` there. A kernel with shared memory but no ldmatrix (a row-wise
        kernel with a shared buffer, promised rows of 4) had one of its C++ 128-bit stores
        split into four ``STG.E`` when they were kept to functions without shared memory."""
        words = PTX_STORES[access]
        value = self.val(op.vector)
        address = self.address(op, op.base, list(op.indices))
        regs = ", ".join(f"%{k + 1}" for k in range(len(words)))
        operands = ", ".join(f'"r"({value}{w})' for w in words)
        self.line(f'asm volatile("st.global.v{len(words)}.b32 [%0], {{{regs}}};" :: '
                  f'"l"({address}), {operands} : "memory");')

    @print_op.register
    def _(self, op: vector.BroadcastOp) -> None:
        """A scalar in every lane: an ``i32`` in every word of a ``vector<w x i32>``
        (``cuda_arith.broadcast_expression``), any other lanes packed
        (``cuda.compute.broadcast_lanes``)."""
        source, result = op.source.type, cast(VectorType, op.vector.type)
        try:
            if source == result.element_type == IntegerType(32):
                rhs = broadcast_expression(source, result, self.val(op.source))
            else:
                rt = self.ctype(result, op)
                rhs = broadcast_lanes(source, result, self.val(op.source), rt)
        except (ArithError, CudaTypeError, ComputeError) as e:
            raise self.fail(op, str(e)) from None
        self.assign(op, rhs)

    @print_op.register
    def _(self, op: vector.BitcastOp) -> None:
        """Same byte size, same transfer type: a plain copy (``cuda_arith.bitcast_expression``)."""
        source, result = cast(VectorType, op.source.type), cast(VectorType, op.result.type)
        try:
            rhs = bitcast_expression(source, result, self.val(op.source))
        except (ArithError, CudaTypeError) as e:
            raise self.fail(op, str(e)) from None
        self.assign(op, rhs)

    @print_op.register
    def _(self, op: vector.ExtractOp) -> None:
        """One i32 or f32 lane of a 4-, 8- or 16-byte vector at a constant position, as its
        type: ``(int)v.y``, ``__int_as_float((int)v.y)`` (register ↔ register conversions)."""
        source = cast(VectorType, op.vector.type)
        positions = list(op.static_position.get_values())
        size = vector_bytes(source)
        lane_bits = source.element_type
        t = self.ctype(op.result.type, op)
        if op.dynamic_position or len(positions) != 1 or t not in ("int", "float") or \
                size not in (4, 8, 16) or lane_bits != op.result.type:
            raise self.fail(op, "is supported by the CUDA target for one i32 or f32 lane of a "
                            "4-, 8- or 16-byte vector, at a constant position")
        value = self.val(op.vector)
        lane = value if size == 4 else f"{value}{EXTRACT_LANES[size].split()[positions[0]]}"
        rhs = f"__int_as_float((int){lane})" if t == "float" else f"(int){lane}"
        self.assign(op, rhs)

    # ---- asynchronous copies (cuda_async_copy) -----------------------------------------
    @print_op.register
    def _(self, op: CpAsyncOp) -> None:
        self.line(cp_async(self.val(op.dst), self.val(op.dst_index), self.val(op.src),
                           self.async_source_index(op.src, op.src_index), op.bytes.data,
                           self.val(op.src_bytes)))

    @print_op.register
    def _(self, op: CpAsyncCommitOp) -> None:
        self.line(commit_group())

    @print_op.register
    def _(self, op: CpAsyncWaitOp) -> None:
        self.line(wait_group(op.pending.data))

    # ---- warp-collective matrix transfers --------------------------------------------
    @print_op.register
    def _(self, op: LdMatrixOp | StMatrixOp) -> None:
        """Inline PTX (``cuda_matrix``): flat storages, the lane's 1-D offset."""
        self.line(print_matrix(op, self.val(op.shared), self.val(op.offset),
                               self.val(op.registers)))

    # ---- tensor cores (cuda.mma) --------------------------------------------------------
    @print_op.register
    def _(self, op: MmaSyncOp) -> None:
        for text in mma_statements(op, self.val(op.a), self.val(op.b), self.val(op.c)):
            self.line(text)

    @print_op.register
    def _(self, op: WgmmaAsyncOp) -> None:
        a_base = self.val(op.a_base) if op.a_base is not None else None
        c = self.val(op.c)
        self.wgmma_c[op] = c
        for text in wgmma_statements(op, self.val(op.a), a_base, self.val(op.b),
                                     self.val(op.b_base), c):
            self.line(text)

    @print_op.register
    def _(self, op: WgmmaWaitOp) -> None:
        for text in wait_statements(op, self.wgmma_c):
            self.line(text)

    @print_op.register
    def _(self, op: SetMaxNRegOp) -> None:
        self.line(f'asm volatile("{setmaxnreg_ptx(op)}" ::: "memory");')

    @print_op.register
    def _(self, op: MmaOp | WgmmaOp) -> None:
        raise UnsupportedOpError(op_error(
            op, "is not lowered; run lower-reg-copy before -t cuda, ptx or sass"))

    # ---- the bulk tensor copy (TMA) and its mbarrier (cuda.tma) ------------------------
    def barrier(self, op: MBarrierInitOp | MBarrierArriveExpectTxOp | MBarrierTryWaitParityOp
                | TmaLoadOp) -> str:
        return f"&{self.val(op.barriers)}[{self.val(op.index)}]"

    @print_op.register
    def _(self, op: TensorMapOp) -> None:
        """A kernel parameter (``tensor_map_params``): nothing in the body."""

    @print_op.register
    def _(self, op: MBarrierInitOp) -> None:
        self.line(tma.mbarrier_init(self.barrier(op), op.count.value.data))

    @print_op.register
    def _(self, op: FenceBarrierInitOp) -> None:
        self.line(tma.fence_barrier_init())

    @print_op.register
    def _(self, op: MBarrierArriveExpectTxOp) -> None:
        self.line(tma.arrive_expect_tx(self.barrier(op), op.tx_bytes))

    @print_op.register
    def _(self, op: MBarrierTryWaitParityOp) -> None:
        done = f"rc_done{self.unnamed}"
        self.unnamed += 1
        for text in tma.try_wait_parity(self.barrier(op), self.val(op.parity), done):
            self.line(text)

    @print_op.register
    def _(self, op: TmaLoadOp) -> None:
        dst = f"&{self.val(op.dst)}[{self.val(op.offset)}]"
        self.line(tma.tma_load(self.val(op.map), [self.val(c) for c in op.coords], dst,
                               self.barrier(op)))


@dataclass(frozen=True)
class CudaTarget(Target):
    """``-t cuda``: the lowered module as CUDA C++ for NVRTC (sm_90)."""

    name = "cuda"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(print_cuda(module))


def guarded_accesses(op: scf.IfOp) -> list[memref.LoadOp | vector.LoadOp]:
    """The loads of global memory directly in ``op``'s branches (not in a nested region)
    whose buffer and indices are all computed before ``op``. Stores are left in place: on
    the ragged benchmark kernels hoisting them saved 8 instructions and cost registers."""
    out: list[memref.LoadOp | vector.LoadOp] = []
    for region in op.regions:
        for access in (o for b in region.blocks for o in b.ops):
            if not isinstance(access, memref.LoadOp | vector.LoadOp):
                continue
            buf, indices = access_operands(access)
            if memory_space(cast(MemRefType, buf.type)) == MemSpace.GLOBAL and not any(
                    _inside(v, op) for v in (buf, *indices)):
                out.append(access)
    return out


def _inside(v: SSAValue, op: Operation) -> bool:
    """Whether ``v`` is computed in one of ``op``'s regions."""
    owner = v.owner
    at = owner.parent_op() if isinstance(owner, Block) else owner
    return at is not None and op.is_ancestor(at)


def promise_check(op: MultipleOfOp, value: str) -> str:
    """The checked mode's test of a ``regcopy.multiple_of`` promise on ``value``: when it is
    broken, one line on the device's ``printf`` (the op's ``file:line:col``, the value, the
    block and thread) and ``__trap()``, which ends the launch with an error."""
    n = op.divisor_value
    where = (op_location(op) or "regcopy.multiple_of").replace("\\", "/").replace(
        '"', "'").replace("%", "%%")
    return (f"if (({value}) % {n} != 0) {{ printf(\"{where}: error: regcopy.multiple_of: "
            f"%lld is not a multiple of {n} (block %u, thread %u): the promise is broken\\n\", "
            f"(long long)({value}), blockIdx.x, threadIdx.x); __trap(); }}")


def print_cuda(module: ModuleOp, checked_promises: bool = False) -> str:
    """The CUDA C++ source of a lowered module (raises ``CudaEmitError`` on anything else);
    ``checked_promises``: the checked mode (``promise_check`` at every
    ``regcopy.multiple_of``).

    ``module`` is left as it is: ``lower-layout-access`` runs on a clone (op locations are
    kept, so diagnostics still point into the source)."""
    out = StringIO()
    if any(isinstance(o, WgmmaAsyncOp | SetMaxNRegOp) for o in module.walk()):
        out.write(SM90A_MARKER + "\n")
    CudaPrinter(stream=out, checked_promises=checked_promises).print_module(
        lower_layout_access(module.clone()))
    return out.getvalue()

