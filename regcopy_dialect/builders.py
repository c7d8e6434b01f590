"""A small Python API over the dialect: layouts from strings, buffer types, kernels, copies.

    layout = parse_layout("(32,8):(1@laneid,1)")            # a regcopy_dialect.layout.Layout
    R = local_buffer_type([32, 8], "f32", layout)            # memref<32x8xf32, #regcopy.layout<...>, #regcopy.mem<local>>
    with kernel("demo", {"A": global_buffer_type([32, 8], "f32")}, block=32) as k:
        r = k.alloca(R)
        copy("warp", k.arg("A"), r)
    module = k.module()

Everything here only builds IR; ``regcopy_passes.lower`` lowers it and
``regcopy_backend.to_cuda`` prints it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import cast

from xdsl.builder import ImplicitBuilder
from xdsl.context import Context
from xdsl.dialects import arith, func, gpu, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StridedLayoutAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException

from regcopy_dialect.element_types import ELEMENT_NAMES, ELEMENT_TABLE
from regcopy_dialect.layout import Layout, LayoutError
from regcopy_dialect.regcopy import (
    DIVISIBILITY,
    CopyOp,
    ExecScope,
    LaunchAttr,
    LayoutAttr,
    MemSpace,
    MemSpaceAttr,
    parse_layout_body,
)

ELEMENT_TYPES: dict[str, Attribute] = {e.name: e.ir for e in ELEMENT_TABLE}
"""The xDSL type of each supported element type, by IR spelling (``element_types``)."""

Region = tuple[Sequence[int | SSAValue], Sequence[int]]
"""A copy region: ``(offsets, sizes)``; an offset is an int or an ``index`` SSA value."""


class LayoutSyntaxError(LayoutError):
    """A layout string that does not parse; ``column`` is 1-based, ``str()`` shows a caret."""

    def __init__(self, message: str, column: int):
        super().__init__(message)
        self.column = column


def parse_layout(text: str) -> Layout:
    """The layout written ``text`` in ``#regcopy.layout<...>`` notation (without the
    ``#regcopy.layout<`` and ``>``), e.g. ``"(32,8):(1@laneid,1)"`` or
    ``"(64,64):(64,1), swizzle<3,3,3>"`` or ``"(16,8):(1@laneid,1), replicate<2:16@laneid>"``.
    The same rules as in IR apply (thread axis names,
    extents >= 1, injectivity); a violation raises ``LayoutSyntaxError`` (a ``ValueError``)
    whose message gives the column and a caret."""
    from regcopy_dialect.context import regcopy_context

    parser = Parser(regcopy_context(), text, "<layout>")
    try:
        layout = parse_layout_body(parser)
        if parser.pos < len(text):
            parser.raise_error("unexpected text after the layout", parser.pos, len(text))
    except ParseError as e:
        column = e.span.start + 1
        raise LayoutSyntaxError(f"bad layout at column {column}:\n{e}".rstrip(), column
                                ) from None
    return layout


def element_type(dtype: str | Attribute) -> Attribute:
    """An element type from its IR spelling (``"f32"``, ``"bf16"``, ``"ui8"``...) or as is."""
    if not isinstance(dtype, str):
        return dtype
    if dtype not in ELEMENT_TYPES:
        raise ValueError(f"unknown element type {dtype!r}; expected one of {ELEMENT_NAMES}")
    return ELEMENT_TYPES[dtype]


Extent = int | None
"""A buffer size: an int, or ``None`` for a runtime extent (``?``, global buffers only)."""


def buffer_type(shape: Sequence[Extent], dtype: str | Attribute, space: MemSpace | str,
                layout: Layout | str | None = None) -> MemRefType:
    """``memref<shape x dtype[, #regcopy.layout<layout>], #regcopy.mem<space>>``; without a
    layout the buffer is row-major; a ``None`` size is a runtime extent (``?``). The type is
    checked as the verifier would check it."""
    from regcopy_dialect.regcopy import verify_buffer

    lay = parse_layout(layout) if isinstance(layout, str) else layout
    sizes = [DYNAMIC_INDEX if d is None else d for d in shape]
    t = MemRefType(element_type(dtype), sizes,
                   LayoutAttr.from_layout(lay) if lay is not None else NoneAttr(),
                   MemSpaceAttr(MemSpace(space)))
    try:
        verify_buffer(t)
    except VerifyException as e:
        raise ValueError(str(e)) from None
    return t


def local_buffer_type(shape: Sequence[int], dtype: str | Attribute,
                      layout: Layout | str, replicate: Layout | str | None = None
                      ) -> MemRefType:
    """A register tile: ``layout``'s thread axes say who owns an element, its other iters
    give the register slot inside the owner. ``replicate`` (``"2:16@laneid"``, or a
    ``Layout`` whose iters are the replicas) adds ``replicate<...>``: thread ``t`` and
    ``t + r * stride`` own the same elements."""
    lay = parse_layout(layout) if isinstance(layout, str) else layout
    if replicate is not None:
        lay = with_replicas(lay, parse_layout(replicate) if isinstance(replicate, str)
                            else replicate)
    return buffer_type(shape, dtype, MemSpace.LOCAL, lay)


def with_replicas(layout: Layout, replicas: Layout) -> Layout:
    """``layout`` with ``replicas``'s iters as its replicas (``replicate<...>``); the rules
    of the attribute apply (thread axes only, in range, injective modulo replicas) and a
    violation is a ``ValueError``."""
    from regcopy_dialect.attrs import layout_problem

    out = Layout(layout.iters, layout.swizzle, replicas.iters)
    if (problem := layout_problem(out)) is not None:
        raise ValueError(problem)
    return out


def shared_buffer_type(shape: Sequence[int], dtype: str | Attribute,
                       layout: Layout | str | None = None, dynamic: bool = False) -> MemRefType:
    """A ``shared`` (or, with ``dynamic``, ``shared.dyn``) buffer; row-major by default."""
    return buffer_type(shape, dtype, MemSpace.SHARED_DYN if dynamic else MemSpace.SHARED, layout)


def global_buffer_type(shape: Sequence[Extent], dtype: str | Attribute,
                       layout: Layout | str | None = None,
                       strides: Sequence[Extent] | None = None) -> MemRefType:
    """A ``global`` buffer (kernel arguments); row-major by default. ``None`` sizes are
    runtime extents: ``global_buffer_type([None, None], "f32")`` is
    ``memref<?x?xf32, #regcopy.mem<global>>`` (``KernelBuilder.dim`` reads them).
    ``strides`` makes it a strided view (``None``: a runtime stride):
    ``global_buffer_type([None, None], "f32", strides=[None, 1])`` is
    ``memref<?x?xf32, strided<[?, 1]>, #regcopy.mem<global>>``."""
    if strides is None:
        return buffer_type(shape, dtype, MemSpace.GLOBAL, layout)
    if layout is not None:
        raise ValueError("a global buffer takes a layout or strides, not both")
    from regcopy_dialect.regcopy import verify_buffer

    t = MemRefType(element_type(dtype), [DYNAMIC_INDEX if d is None else d for d in shape],
                   StridedLayoutAttr(list(strides)), MemSpaceAttr(MemSpace.GLOBAL))
    try:
        verify_buffer(t)
    except VerifyException as e:
        raise ValueError(str(e)) from None
    return t


def copy(scope: ExecScope | str, src: SSAValue | Operation, dst: SSAValue | Operation,
         src_region: Region | None = None, dst_region: Region | None = None,
         padding: int | float | None = None, in_bounds: bool = False) -> CopyOp:
    """``regcopy.copy <scope> %src[offs] [sizes] -> %dst[offs] [sizes]``; a side without a
    region is the whole buffer. Inside a ``kernel`` block the op is appended to the kernel.
    On a buffer with runtime extents: ``padding`` is the ``{padding = V}`` the registers get
    outside them (of the element type; zero by default), ``in_bounds`` adds ``{in_bounds}``
    (the region is promised inside: no checks)."""
    op = CopyOp(ExecScope(scope), src, dst, src_region, dst_region)
    if padding is not None:
        elem = op.src_type.element_type
        op.attributes["padding"] = FloatAttr(float(padding), elem) \
            if isinstance(elem, AnyFloat) else IntegerAttr(int(padding), cast(IntegerType, elem))
    if in_bounds:
        op.attributes["in_bounds"] = UnitAttr()
    return op


class KernelBuilder:
    """Builds one kernel ``func.func`` with a ``regcopy.launch``; use it as a context manager:
    ops created inside the ``with`` block are appended to the kernel body, and leaving the block
    adds the ``func.return``."""

    def __init__(self, name: str, params: Mapping[str, Attribute] | Sequence[Attribute],
                 block: int, grid: Sequence[int] = (1,),
                 divisibility: Mapping[str, int | Sequence[int]] | None = None):
        names = list(params) if isinstance(params, Mapping) else [f"arg{i}"
                                                                   for i in range(len(params))]
        types = list(params.values()) if isinstance(params, Mapping) else list(params)
        launch = LaunchAttr(IntAttr(block), ArrayAttr(IntAttr(g) for g in grid))
        launch.verify()
        arg_attrs = None
        if divisibility:
            unknown = set(divisibility) - set(names)
            if unknown:
                raise ValueError(f"divisibility names unknown parameters {sorted(unknown)}")
            arg_attrs = ArrayAttr([DictionaryAttr({DIVISIBILITY: _promise(divisibility[n])}
                                                  if n in divisibility else {})
                                   for n in names])
        self.func = func.FuncOp(name, (types, []), arg_attrs=arg_attrs)
        self.func.attributes["regcopy.launch"] = launch
        for arg, n in zip(self.func.body.block.args, names, strict=True):
            arg.name_hint = n
        self._names = names
        self._scope: object | None = None

    # ---- values ----
    @property
    def args(self) -> tuple[SSAValue, ...]:
        """The kernel's parameters, in order."""
        return tuple(self.func.body.block.args)

    def arg(self, name: str) -> SSAValue:
        """The parameter called ``name``."""
        return self.func.body.block.args[self._names.index(name)]

    def alloca(self, t: MemRefType, name: str | None = None) -> SSAValue:
        """``memref.alloca() : t`` (a register tile or a shared buffer)."""
        op = memref.AllocaOp.get(t.element_type, shape=t.get_shape(), layout=t.layout,
                                 memory_space=t.memory_space)
        op.memref.name_hint = name
        return op.memref

    def constant(self, value: int) -> SSAValue:
        """An ``index`` constant."""
        return arith.ConstantOp(IntegerAttr(value, IndexType())).result

    def dim(self, buffer: SSAValue, index: int) -> SSAValue:
        """``memref.dim %buffer, %c<index>``: extent ``index`` of ``buffer`` (``index``)."""
        return memref.DimOp(buffer, self.constant(index)).result

    def block_id(self, dim: str = "x") -> SSAValue:
        """``gpu.block_id`` along ``dim``."""
        return gpu.BlockIdOp(gpu.DimensionAttr(gpu.DimensionEnum(dim))).result

    def thread_id(self) -> SSAValue:
        """``gpu.thread_id x`` (the block is 1-D)."""
        return gpu.ThreadIdOp(gpu.DimensionAttr(gpu.DimensionEnum.X)).result

    def lane_id(self) -> SSAValue:
        return gpu.LaneIdOp().result

    def barrier(self) -> None:
        """``gpu.barrier`` (``__syncthreads()``)."""
        gpu.BarrierOp()

    # ---- context manager ----
    def __enter__(self) -> KernelBuilder:
        self._scope = ImplicitBuilder(self.func.body.block)
        self._scope.__enter__()  # type: ignore[attr-defined]
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        if kind is None:
            func.ReturnOp()
        scope, self._scope = self._scope, None
        scope.__exit__(kind, value, tb)  # type: ignore[union-attr]

    def module(self) -> ModuleOp:
        """A module holding this kernel, verified."""
        return module(self)


def _promise(value: int | Sequence[int]) -> Attribute:
    """``N : i64`` for a scalar's promise, ``array<i64: d0, ...>`` for a buffer's extents."""
    if isinstance(value, int):
        return IntegerAttr(value, i64)
    return DenseArrayBase.from_list(i64, [int(d) for d in value])


def kernel(name: str, params: Mapping[str, Attribute] | Sequence[Attribute], block: int,
           grid: Sequence[int] = (1,), divisibility: Mapping[str, int | Sequence[int]] | None = None
           ) -> KernelBuilder:
    """A kernel ``func.func @name`` with ``regcopy.launch<block = block, grid = grid>``;
    ``params`` maps parameter names to types (or is a list of types); ``divisibility`` maps
    integer/index parameter names to the ``regcopy.divisibility`` they promise (an int), and
    dynamic buffer names to their extents' divisors (one int per dimension, 1: no promise)."""
    return KernelBuilder(name, params, block, grid, divisibility)


def module(*kernels: KernelBuilder | Operation) -> ModuleOp:
    """A ``builtin.module`` of the given kernels (builders or ops), verified."""
    ops = [k.func if isinstance(k, KernelBuilder) else k for k in kernels]
    for op in ops:
        if op.parent is not None:
            op.detach()
    m = ModuleOp(ops)
    m.verify()
    return m


def parse_module(text: str, ctx: Context | None = None, filename: str = "<string>") -> ModuleOp:
    """Parse and verify an MLIR module written in the regcopy dialects."""
    from regcopy_dialect.context import regcopy_context

    m = Parser(ctx or regcopy_context(), text, filename).parse_module()
    m.verify()
    return m

