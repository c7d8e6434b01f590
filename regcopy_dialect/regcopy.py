"""The `regcopy` dialect: layout, memory-space, exec-scope and launch attributes, and the
`regcopy.copy` and `regcopy.storage` ops (SPEC.md §2)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    DenseArrayBase,
    DictionaryAttr,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    I64,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefLayoutAttr,
    MemRefType,
    NoneAttr,
    Signedness,
    StringAttr,
    i64,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from regcopy_dialect.layout import (
    THREAD_AXES,
    Iter,
    Layout,
    LayoutError,
    Scope,
    Swizzle,
    axis_overflow,
    group,
    is_injective,
    slice_region,
    thread_map_injective,
)

DYNAMIC = -(2**63)  # marker of a dynamic entry in a static offset list (as memref.subview)

# --------------------------------------------------------------------------------------------
# Enum attributes: #regcopy.mem<shared>, #regcopy.exec<warp>
# --------------------------------------------------------------------------------------------


class MemSpace(StrEnum):
    GLOBAL = "global"
    SHARED = "shared"
    SHARED_DYN = "shared.dyn"
    LOCAL = "local"


class ExecScope(StrEnum):
    THREAD = "thread"
    WARP = "warp"
    WARPGROUP = "warpgroup"
    CTA = "cta"

    @property
    def scope(self) -> Scope:
        return Scope[self.name]


class _AngleEnum:
    """Print/parse an enum attribute as ``#regcopy.name<value>``."""

    @classmethod
    def parse_parameter(cls, parser: AttrParser):  # type: ignore[no-untyped-def]
        with parser.in_angle_brackets():
            return super().parse_parameter(parser)  # type: ignore[misc]

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            super().print_parameter(printer)  # type: ignore[misc]


@irdl_attr_definition
class MemSpaceAttr(_AngleEnum, EnumAttribute[MemSpace]):
    """`#regcopy.mem<global|shared|shared.dyn|local>`: a buffer's memory space."""

    name = "regcopy.mem"


@irdl_attr_definition
class ExecScopeAttr(_AngleEnum, EnumAttribute[ExecScope]):
    """`#regcopy.exec<thread|warp|warpgroup|cta>`: the threads that run a copy together."""

    name = "regcopy.exec"


# --------------------------------------------------------------------------------------------
# #regcopy.layout<(32,8):(1@laneid,1), swizzle<3,3,3>>
# --------------------------------------------------------------------------------------------

AXIS_NAMES = ", ".join(THREAD_AXES)


def _parse_int_list(parser: AttrParser, parse_elem):  # type: ignore[no-untyped-def]
    if parser.parse_optional_punctuation("(") is None:
        return [parse_elem()]
    elems = parser.parse_comma_separated_list(parser.Delimiter.NONE, parse_elem)
    parser.parse_punctuation(")")
    return elems


def parse_layout_body(parser: AttrParser) -> Layout:
    """Parse ``extents:strides[, swizzle<M,B,S>]``; every rule is checked here so that a bad
    layout is a parse error with ``file:line:col``."""

    def extent() -> int:
        start = parser.pos
        value = parser.parse_integer(allow_boolean=False)
        if value < 1:
            parser.raise_error(f"layout extent must be >= 1, got {value}", start, parser.pos)
        return value

    def stride() -> tuple[int, str | None]:
        start = parser.pos
        value = parser.parse_integer(allow_boolean=False)
        if value < 0:
            parser.raise_error(f"layout stride must be >= 0, got {value}", start, parser.pos)
        axis_start = parser.pos
        axis = parser.parse_optional_symbol_name()
        if axis is not None and axis.data not in THREAD_AXES:
            parser.raise_error(f"unknown thread axis '@{axis.data}'; expected one of "
                               f"{AXIS_NAMES}", axis_start, parser.pos)
        return value, None if axis is None else axis.data

    start = parser.pos
    extents = _parse_int_list(parser, extent)
    parser.parse_punctuation(":", " between layout extents and strides")
    strides = _parse_int_list(parser, stride)
    if len(extents) != len(strides):
        parser.raise_error(f"layout has {len(extents)} extents but {len(strides)} strides",
                           start, parser.pos)
    swizzle = None
    if parser.parse_optional_punctuation(",") is not None:
        kw_start = parser.pos
        if parser.parse_optional_keyword("swizzle") is None:
            parser.raise_error("expected 'swizzle<M,B,S>' after the layout iters (replicated "
                               "and other layout forms are not supported)", kw_start,
                               parser.pos + 1)
        params = parser.parse_comma_separated_list(
            parser.Delimiter.ANGLE, lambda: parser.parse_integer(allow_boolean=False))
        if len(params) != 3:
            parser.raise_error(f"swizzle takes three parameters <M,B,S>, got {len(params)}",
                               kw_start, parser.pos)
        m, b, s = params
        if min(m, b, s) < 0 or s < b or m + b + s > 32:
            parser.raise_error(f"swizzle<{m},{b},{s}> needs M, B, S >= 0, S >= B and "
                               "M + B + S <= 32", kw_start, parser.pos)
        swizzle = Swizzle(m, b, s)
    layout = Layout(tuple(Iter(e, st, ax) for e, (st, ax) in zip(extents, strides)), swizzle)
    if (problem := layout_problem(layout)) is not None:
        parser.raise_error(problem, start, parser.pos)
    return layout


def layout_problem(layout: Layout) -> str | None:
    """The first rule of SPEC §2.1 that ``layout`` breaks on its own (no buffer needed)."""
    if (over := axis_overflow(layout)) is not None:
        name, top, period = over
        return f"thread axis '{name}' reaches {top} but ranges over 0..{period - 1}"
    if not thread_map_injective(layout):
        return f"layout {layout} is not injective: two elements have the same owner threads"
    if not is_injective(layout.memory_iters):
        return f"layout {layout} is not injective: two elements share a memory offset"
    return None


@irdl_attr_definition
class LayoutAttr(MemRefLayoutAttr, ParametrizedAttribute):
    """A TIRx ``TileLayout`` without replicas (SPEC §2.1)."""

    name = "regcopy.layout"

    extents: ArrayAttr[IntAttr]
    strides: ArrayAttr[IntAttr]
    axes: ArrayAttr[StringAttr]  # "" for the memory axis
    swizzle: ArrayAttr[IntAttr]  # empty or [M, B, S]

    @staticmethod
    def from_layout(layout: Layout) -> LayoutAttr:
        sw = layout.swizzle
        return LayoutAttr(
            ArrayAttr(IntAttr(i.extent) for i in layout.iters),
            ArrayAttr(IntAttr(i.stride) for i in layout.iters),
            ArrayAttr(StringAttr(i.axis or "") for i in layout.iters),
            ArrayAttr(IntAttr(v) for v in ((sw.m_base, sw.bits, sw.shift) if sw else ())),
        )

    @property
    def layout(self) -> Layout:
        iters = tuple(Iter(e.data, s.data, a.data or None)
                      for e, s, a in zip(self.extents, self.strides, self.axes))
        sw = Swizzle(*(v.data for v in self.swizzle)) if self.swizzle.data else None
        return Layout(iters, sw)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            attr = cls.from_layout(parse_layout_body(parser))
        return (attr.extents, attr.strides, attr.axes, attr.swizzle)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.layout}>")

    def verify(self) -> None:
        if not (len(self.extents) == len(self.strides) == len(self.axes)):
            raise VerifyException("layout extents, strides and axes differ in length")
        if len(self.swizzle) not in (0, 3):
            raise VerifyException("layout swizzle must be empty or [M, B, S]")
        if self.swizzle.data:
            m, b, s = (v.data for v in self.swizzle)
            if min(m, b, s) < 0 or s < b or m + b + s > 32:
                raise VerifyException(f"swizzle<{m},{b},{s}> needs M, B, S >= 0, S >= B and "
                                      "M + B + S <= 32")
        for a in self.axes:
            if a.data and a.data not in THREAD_AXES:
                raise VerifyException(f"unknown thread axis '{a.data}'; expected one of "
                                      f"{AXIS_NAMES}")
        if (problem := layout_problem(self.layout)) is not None:
            raise VerifyException(problem)

    def get_affine_map(self) -> AffineMap:
        raise NotImplementedError("a #regcopy.layout is not an affine map; use .layout")


# --------------------------------------------------------------------------------------------
# #regcopy.launch<block = 32, grid = [1]>
# --------------------------------------------------------------------------------------------


@irdl_attr_definition
class LaunchAttr(ParametrizedAttribute):
    """Launch configuration of a kernel ``func.func``: a 1-D CTA, a 1-3-D grid and, optionally,
    the minimum number of CTAs per SM that register allocation must leave room for
    (``min_blocks``: the second argument of ``__launch_bounds__``; ``min_blocks = 1`` gives a
    thread up to 65536 / block registers, up to 255)."""

    name = "regcopy.launch"

    block: IntAttr
    grid: ArrayAttr[IntAttr]
    min_blocks: IntAttr | NoneAttr

    def __init__(self, block: IntAttr, grid: ArrayAttr[IntAttr],
                 min_blocks: IntAttr | NoneAttr | None = None) -> None:
        super().__init__(block, grid, NoneAttr() if min_blocks is None else min_blocks)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            parser.parse_keyword("block")
            parser.parse_punctuation("=")
            start = parser.pos
            block = parser.parse_integer(allow_boolean=False)
            if not 1 <= block <= 1024:
                parser.raise_error(f"block must be 1..1024 threads, got {block}", start,
                                   parser.pos)
            parser.parse_punctuation(",")
            parser.parse_keyword("grid")
            parser.parse_punctuation("=")
            start = parser.pos
            grid = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False))
            if not 1 <= len(grid) <= 3 or min(grid) < 1:
                parser.raise_error(f"grid must have 1 to 3 entries, each >= 1, got {grid}",
                                   start, parser.pos)
            min_blocks: Attribute = NoneAttr()
            if parser.parse_optional_punctuation(",") is not None:
                parser.parse_keyword("min_blocks")
                parser.parse_punctuation("=")
                start = parser.pos
                n = parser.parse_integer(allow_boolean=False)
                if n < 1:
                    parser.raise_error(f"min_blocks must be >= 1 (CTAs per SM), got {n}",
                                       start, parser.pos)
                min_blocks = IntAttr(n)
        return (IntAttr(block), ArrayAttr(IntAttr(g) for g in grid), min_blocks)

    def print_parameters(self, printer: Printer) -> None:
        grid = ", ".join(str(g.data) for g in self.grid)
        extra = f", min_blocks = {self.min_blocks.data}" if self.min_blocks_per_sm else ""
        printer.print_string(f"<block = {self.block.data}, grid = [{grid}]{extra}>")

    @property
    def min_blocks_per_sm(self) -> int | None:
        """``min_blocks``, or None when the launch does not give it."""
        return self.min_blocks.data if isinstance(self.min_blocks, IntAttr) else None

    def verify(self) -> None:
        if not 1 <= self.block.data <= 1024:
            raise VerifyException(f"block must be 1..1024 threads, got {self.block.data}")
        if not 1 <= len(self.grid) <= 3 or min(g.data for g in self.grid) < 1:
            raise VerifyException("grid must have 1 to 3 entries, each >= 1")
        if isinstance(self.min_blocks, IntAttr) and self.min_blocks.data < 1:
            raise VerifyException(f"min_blocks must be >= 1 (CTAs per SM), got "
                                  f"{self.min_blocks.data}")


# --------------------------------------------------------------------------------------------
# Buffers
# --------------------------------------------------------------------------------------------

ELEMENT_TYPES = "f64 f32 f16 bf16 i64 i32 i16 i8 ui8 f8E4M3FN f8E5M2"


def element_bits(t: Attribute) -> int | None:
    """Bit width of a supported element type, None otherwise."""
    match t:
        case Float64Type():
            return 64
        case Float32Type():
            return 32
        case Float16Type() | BFloat16Type():
            return 16
        case Float8E4M3FNType() | Float8E5M2Type():
            return 8
        case IntegerType() if t.width.data in (8, 16, 32, 64) and (
                t.signedness.data == Signedness.SIGNLESS
                or (t.signedness.data == Signedness.UNSIGNED and t.width.data == 8)):
            return t.width.data
        case _:
            return None


def memory_space(t: MemRefType) -> MemSpace:
    """The buffer's memory space; a memref without one is ``global``."""
    space = t.memory_space
    return space.data if isinstance(space, MemSpaceAttr) else MemSpace.GLOBAL


def buffer_layout(t: MemRefType) -> Layout:
    """The buffer's layout: its ``#regcopy.layout`` or row-major over its shape."""
    if isinstance(t.layout, LayoutAttr):
        return t.layout.layout
    shape = t.get_shape()
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    return Layout(tuple(Iter(e, s) for e, s in zip(shape, strides)))


def is_regcopy_buffer(t: Attribute) -> bool:
    """Whether ``t`` is a memref that carries a regcopy memory space or layout."""
    return isinstance(t, MemRefType) and (isinstance(t.memory_space, MemSpaceAttr)
                                          or isinstance(t.layout, LayoutAttr))


def verify_buffer(t: MemRefType) -> None:
    """SPEC §2.2: element type, memory space, and a layout that groups against the shape."""
    if element_bits(t.element_type) is None:
        width = getattr(t.element_type, "bitwidth", 8)
        sub = " (sub-byte element types are not supported)" if width < 8 else ""
        raise VerifyException(f"element type {t.element_type} is not supported{sub}; "
                              f"expected one of {ELEMENT_TYPES}")
    if any(d < 1 for d in t.get_shape()):
        raise VerifyException(f"buffer sizes must be >= 1 (empty and dynamic sizes are not "
                              f"supported), got shape {list(t.get_shape())}")
    space = t.memory_space
    if not isinstance(space, MemSpaceAttr | NoneAttr):
        raise VerifyException(f"memory space {space} is not a #regcopy.mem")
    if not isinstance(t.layout, LayoutAttr | NoneAttr):
        raise VerifyException(f"layout {t.layout} is not a #regcopy.layout (buffers are "
                              "row-major or carry a #regcopy.layout)")
    if isinstance(t.layout, NoneAttr):
        return
    layout = t.layout.layout
    try:
        group(layout, t.get_shape())
    except LayoutError as e:
        raise VerifyException(f"layout {layout} does not fit buffer shape "
                              f"{list(t.get_shape())}: {e}") from None
    local = memory_space(t) == MemSpace.LOCAL
    if not local and layout.thread_iters:
        raise VerifyException(f"layout {layout} of a {memory_space(t)} buffer has thread "
                              "axes; only local buffers are distributed over threads")
    if local and layout.swizzle is not None:
        raise VerifyException(f"layout {layout} of a local buffer is swizzled; swizzles are "
                              "for shared buffers")


# --------------------------------------------------------------------------------------------
# regcopy.copy
# --------------------------------------------------------------------------------------------


def _parse_region(parser: Parser) -> tuple[list[int | SSAValue], list[int]] | None:
    if parser.parse_optional_punctuation("[") is None:
        return None

    def offset() -> int | SSAValue:
        start = parser.pos
        if (value := parser.parse_optional_integer(allow_boolean=False)) is not None:
            if not -(2**63) < value < 2**63:  # -2^63 is the marker of a dynamic offset
                parser.raise_error(f"region offset {value} is out of range (a 64-bit integer "
                                   "above -2^63)", start, parser.pos)
            return value
        return parser.parse_operand(IndexType())

    def size() -> int:
        start = parser.pos
        if (value := parser.parse_optional_integer(allow_boolean=False)) is None:
            parser.raise_error("region sizes must be integer literals", start, start + 1)
        if not value < 2**63:
            parser.raise_error(f"region size {value} is out of range (at most 2^63 - 1)", start,
                               parser.pos)
        return value

    offsets = parser.parse_comma_separated_list(parser.Delimiter.NONE, offset)
    parser.parse_punctuation("]")
    start = parser.pos
    if parser.parse_optional_punctuation("[") is None:
        parser.raise_error("expected the region sizes '[s0, s1, ...]' after the offsets", start,
                           start + 1)
    sizes = parser.parse_comma_separated_list(parser.Delimiter.NONE, size)
    parser.parse_punctuation("]")
    return offsets, sizes


def _print_region(printer: Printer, statics: DenseArrayBase | None, sizes: DenseArrayBase | None,
                  dynamic: Sequence[SSAValue]) -> None:
    if statics is None or sizes is None:
        return
    dyn = iter(dynamic)
    printer.print_string("[")
    for k, v in enumerate(statics.get_values()):
        if k:
            printer.print_string(", ")
        if v == DYNAMIC:
            printer.print_ssa_value(next(dyn))
        else:
            printer.print_string(str(v))
    printer.print_string("] [" + ", ".join(str(v) for v in sizes.get_values()) + "]")


@irdl_op_definition
class CopyOp(IRDLOperation):
    """Copy a region of ``src`` to a region of ``dst``, run together by the threads of
    ``scope``. One side is meant to be a ``local`` register tile."""

    name = "regcopy.copy"

    src = operand_def(MemRefType)
    dst = operand_def(MemRefType)
    src_offsets = var_operand_def(IndexType)
    dst_offsets = var_operand_def(IndexType)
    scope = prop_def(ExecScopeAttr)
    src_static_offsets = opt_prop_def(DenseArrayBase.constr(i64))
    src_sizes = opt_prop_def(DenseArrayBase.constr(i64))
    dst_static_offsets = opt_prop_def(DenseArrayBase.constr(i64))
    dst_sizes = opt_prop_def(DenseArrayBase.constr(i64))

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, scope: ExecScope, src: SSAValue | Operation, dst: SSAValue | Operation,
                 src_region: tuple[Sequence[int | SSAValue], Sequence[int]] | None = None,
                 dst_region: tuple[Sequence[int | SSAValue], Sequence[int]] | None = None):
        props: dict[str, Attribute] = {"scope": ExecScopeAttr(scope)}
        dyn: list[list[SSAValue]] = [[], []]
        for k, (side, region) in enumerate((("src", src_region), ("dst", dst_region))):
            if region is None:
                continue
            offsets, sizes = region
            props[f"{side}_static_offsets"] = DenseArrayBase.from_list(
                i64, [o if isinstance(o, int) else DYNAMIC for o in offsets])
            props[f"{side}_sizes"] = DenseArrayBase.from_list(i64, list(sizes))
            dyn[k] = [o for o in offsets if not isinstance(o, int)]
        super().__init__(operands=[src, dst, dyn[0], dyn[1]], properties=props)

    # ---- typed accessors ----
    @property
    def src_type(self) -> MemRefType:
        return cast(MemRefType, self.src.type)

    @property
    def dst_type(self) -> MemRefType:
        return cast(MemRefType, self.dst.type)

    def region(self, side: str) -> tuple[list[int | SSAValue], list[int]]:
        """``(offsets, sizes)`` of ``side`` ("src"/"dst"); the whole buffer when omitted."""
        t = self.src_type if side == "src" else self.dst_type
        statics = getattr(self, f"{side}_static_offsets")
        sizes = getattr(self, f"{side}_sizes")
        if statics is None or sizes is None:
            return [0] * len(t.get_shape()), list(t.get_shape())
        dyn = iter(getattr(self, f"{side}_offsets"))
        offsets = [next(dyn) if v == DYNAMIC else v for v in statics.get_values()]
        return offsets, list(sizes.get_values())

    # ---- syntax ----
    @classmethod
    def parse(cls, parser: Parser) -> CopyOp:
        scope = parser.parse_str_enum(ExecScope)
        src = parser.parse_unresolved_operand()
        src_region = _parse_region(parser)
        parser.parse_punctuation("->")
        dst = parser.parse_unresolved_operand()
        dst_region = _parse_region(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_punctuation("->")
        dst_type = parser.parse_type()
        op = cls(scope, parser.resolve_operand(src, src_type),
                 parser.resolve_operand(dst, dst_type), src_region, dst_region)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.scope.data} ")
        printer.print_ssa_value(self.src)
        _print_region(printer, self.src_static_offsets, self.src_sizes, self.src_offsets)
        printer.print_string(" -> ")
        printer.print_ssa_value(self.dst)
        _print_region(printer, self.dst_static_offsets, self.dst_sizes, self.dst_offsets)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.dst.type)

    # ---- verifier (SPEC §2.3) ----
    def verify_(self) -> None:
        for side, t in (("src", self.src_type), ("dst", self.dst_type)):
            try:
                verify_buffer(t)
            except VerifyException as e:
                raise VerifyException(f"{side}: {e}") from None
        if self.src_type.element_type != self.dst_type.element_type:
            raise VerifyException(f"src and dst element types differ: "
                                  f"{self.src_type.element_type} vs {self.dst_type.element_type}")
        regions = {}
        for side, t in (("src", self.src_type), ("dst", self.dst_type)):
            statics, sizes = getattr(self, f"{side}_static_offsets"), getattr(self, f"{side}_sizes")
            if (statics is None) != (sizes is None):
                raise VerifyException(f"{side} region needs both offsets and sizes")
            n_dyn = 0 if statics is None else sum(1 for v in statics.get_values() if v == DYNAMIC)
            n_operands = len(getattr(self, f"{side}_offsets"))
            if n_dyn != n_operands:
                raise VerifyException(f"{side} has {n_dyn} dynamic offsets in its static list "
                                      f"but {n_operands} offset operands")
            offsets, sz = self.region(side)
            shape = t.get_shape()
            if not (len(offsets) == len(sz) == len(shape)):
                raise VerifyException(f"{side} region has {len(offsets)} offsets and {len(sz)} "
                                      f"sizes for a rank-{len(shape)} buffer")
            for d, (o, z, n) in enumerate(zip(offsets, sz, shape)):
                if z < 1:
                    raise VerifyException(f"{side} region size {z} of dim {d} must be >= 1")
                if z > n or (isinstance(o, int) and not 0 <= o <= n - z):
                    where = f"[{o}, {o + z})" if isinstance(o, int) else f"size {z}"
                    raise VerifyException(f"{side} region {where} is outside dim {d} of size {n}")
            regions[side] = (offsets, sz)
            try:
                slice_region(buffer_layout(t), shape, offsets, sz)
            except LayoutError as e:
                raise VerifyException(f"{side} layout does not slice cleanly to its region: {e}"
                                      ) from None
        src_sizes = [z for z in regions["src"][1] if z != 1]
        dst_sizes = [z for z in regions["dst"][1] if z != 1]
        if src_sizes != dst_sizes:
            raise VerifyException(f"region sizes differ: src {regions['src'][1]} vs dst "
                                  f"{regions['dst'][1]} (non-unit sizes must agree in order)")


# --------------------------------------------------------------------------------------------
# regcopy.storage
# --------------------------------------------------------------------------------------------


def storage_type(t: MemRefType) -> MemRefType:
    """The 1-D flat storage of a buffer: its span (one thread's registers for ``local``)."""
    return MemRefType(t.element_type, [buffer_layout(t).storage().span()],
                      memory_space=t.memory_space)


@irdl_op_definition
class StorageOp(IRDLOperation):
    """The flat physical storage of a buffer as a 1-D memref: for ``local``, this thread's
    registers (thread axes dropped); otherwise the linear memory of the buffer."""

    name = "regcopy.storage"

    buffer = operand_def(MemRefType)
    result = result_def(MemRefType)

    assembly_format = "$buffer attr-dict `:` type($buffer) `->` type($result)"
    traits = traits_def(Pure())

    def __init__(self, buffer: SSAValue | Operation):
        buf = SSAValue.get(buffer)
        super().__init__(operands=[buf],
                         result_types=[storage_type(cast(MemRefType, buf.type))])

    def verify_(self) -> None:
        src = cast(MemRefType, self.buffer.type)
        verify_buffer(src)
        expected = storage_type(src)
        if self.result.type != expected:
            raise VerifyException(f"storage of {src} must be {expected}, got {self.result.type}")


# --------------------------------------------------------------------------------------------
# regcopy.multiple_of and the regcopy.divisibility argument attribute (SPEC §8)
# --------------------------------------------------------------------------------------------

DIVISIBILITY = "regcopy.divisibility"
"""Name of the kernel-argument attribute promising that an integer/index argument is a multiple
of its value (``{regcopy.divisibility = 64 : i64}``)."""


def verify_divisibility_attrs(kernel: Operation) -> None:
    """SPEC §8's rule for ``{regcopy.divisibility = N : i64}`` on the arguments of a
    ``func.func``: ``N`` is an integer attribute >= 1, on integer or ``index`` arguments only.
    Raises ``VerifyException`` naming the argument; does nothing for other ops."""
    arg_attrs = kernel.properties.get("arg_attrs") or kernel.attributes.get("arg_attrs")
    if not isinstance(arg_attrs, ArrayAttr) or not kernel.regions or \
            not kernel.regions[0].blocks:
        return
    args = kernel.regions[0].blocks.first.args  # type: ignore[union-attr]
    for i, attrs in enumerate(arg_attrs.data):
        if not isinstance(attrs, DictionaryAttr) or DIVISIBILITY not in attrs.data:
            continue
        attr = attrs.data[DIVISIBILITY]
        name = f"argument #{i}" + (f" (%{args[i].name_hint})" if i < len(args) and
                                   args[i].name_hint else "")
        if not isinstance(attr, IntegerAttr) or isinstance(attr.type, IntegerType) and \
                attr.type.width.data == 1:
            raise VerifyException(f"{DIVISIBILITY} of {name} must be an integer attribute "
                                  f"such as 16 : i64, got {attr}")
        if attr.value.data < 1:
            raise VerifyException(f"{DIVISIBILITY} of {name} must be >= 1, got "
                                  f"{attr.value.data}")
        if i < len(args) and not isinstance(args[i].type, IndexType | IntegerType):
            raise VerifyException(f"{DIVISIBILITY} on {name} of type {args[i].type}: only "
                                  "integer and index arguments can promise divisibility")


@irdl_op_definition
class MultipleOfOp(IRDLOperation):
    """``%v2 = regcopy.multiple_of %v, N : index``: ``%v2`` is ``%v``, promised to be a
    multiple of ``N`` (N >= 1). The divisibility analysis trusts the promise; the CUDA target
    prints the value itself."""

    name = "regcopy.multiple_of"

    value = operand_def(IndexType | IntegerType)
    divisor = prop_def(IntegerAttr[I64])
    result = result_def(IndexType | IntegerType)

    traits = traits_def(Pure())

    def __init__(self, value: SSAValue | Operation, divisor: int):
        v = SSAValue.get(value)
        super().__init__(operands=[v], result_types=[v.type],
                         properties={"divisor": IntegerAttr(divisor, i64)})

    @property
    def divisor_value(self) -> int:
        return self.divisor.value.data

    @classmethod
    def parse(cls, parser: Parser) -> MultipleOfOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        divisor = parser.parse_integer(allow_boolean=False, allow_negative=True)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        op = cls(parser.resolve_operand(value, t), divisor)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.value)
        printer.print_string(f", {self.divisor_value}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)

    def verify_(self) -> None:
        if self.result.type != self.value.type:
            raise VerifyException(f"result type {self.result.type} must equal the operand "
                                  f"type {self.value.type}")
        if self.divisor_value < 1:
            raise VerifyException(f"divisor must be >= 1, got {self.divisor_value}")


from regcopy_dialect.matrix_ops import LdMatrixOp, StMatrixOp  # noqa: E402 (uses the above)

Regcopy = Dialect("regcopy", [CopyOp, StorageOp, MultipleOfOp, LdMatrixOp, StMatrixOp],
                  [MemSpaceAttr, ExecScopeAttr, LayoutAttr, LaunchAttr])
