"""The ``regcopy`` dialect: the ``regcopy.copy`` and ``regcopy.storage`` ops, the
``#regcopy.launch`` attribute, and the dialect object that gathers every op and attribute.

The data attributes (``#regcopy.mem``, ``#regcopy.exec``, ``#regcopy.layout``) live in
``attrs``, the buffer rules in ``buffers``, the divisibility promises in ``promises`` and
``ldmatrix``/``stmatrix`` in ``matrix_ops``; their names are re-exported here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    MemRefType,
    NoneAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, SSAValue
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

from regcopy_dialect.async_ops import ASYNC_OPS, ASYNC_TYPES, CopyAsyncOp
from regcopy_dialect.attrs import (  # noqa: F401 (re-exported)
    AXIS_NAMES,
    ExecScope,
    ExecScopeAttr,
    LayoutAttr,
    MemSpace,
    MemSpaceAttr,
    layout_problem,
    parse_layout_body,
)
from regcopy_dialect.buffers import (  # noqa: F401 (re-exported)
    ELEMENT_TYPES,
    buffer_layout,
    element_bits,
    is_dynamic,
    is_regcopy_buffer,
    memory_space,
    parse_signature,
    print_signature,
    storage_type,
    verify_buffer,
)
from regcopy_dialect.layout import LayoutError, slice_region
from regcopy_dialect.matrix_ops import LdMatrixOp, StMatrixOp
from regcopy_dialect.mma_ops import MMA_OPS
from regcopy_dialect.wgmma_ops import WGMMA_OPS
from regcopy_dialect.promises import (  # noqa: F401 (re-exported)
    DIVISIBILITY,
    MultipleOfOp,
    argument_extent_promise,
    argument_promise,
    divisibility_of,
    extent_divisibility,
    verify_divisibility_attrs,
)
from regcopy_dialect.tma_ops import TMA_OPS, TMA_TYPES

DYNAMIC = -(2**63)  # marker of a dynamic entry in a static offset list (as memref.subview)

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


def region_problem(offset: int | SSAValue, size: int, n: int) -> str | None:
    """Why a region of ``size`` elements at ``offset`` does not fit a dim of ``n`` elements
    (``{d}`` stands for the dim's number), with what would be accepted: a size in
    ``1..n`` and a static offset in ``[0, n - size]``. None when it fits. A dynamic dim
    (``n`` is ``DYNAMIC_INDEX``) only needs a size >= 1 and a static offset >= 0: the copy
    is bounds-checked against the runtime extent."""
    if n == DYNAMIC_INDEX:
        if size < 1:
            return f"size {size} of dim {{d}} must be >= 1"
        if isinstance(offset, int) and offset < 0:
            return (f"offset {offset} of dim {{d}} is negative; use offsets >= 0 (the dim's "
                    "extent is a runtime value)")
        return None
    if size < 1:
        return f"size {size} of dim {{d}} must be >= 1 (and at most {n}, the dim's size)"
    if size > n:
        return (f"size {size} is outside dim {{d}} of size {n}; a region of this dim has "
                f"size 1..{n}")
    if not isinstance(offset, int) or 0 <= offset <= n - size:
        return None
    where = f"[{offset}, {offset + size})"
    fits = "offset 0" if size == n else f"an offset in [0, {n - size}]"
    if offset < 0:
        return (f"{where} is outside dim {{d}} of size {n}; use offsets >= 0 (size {size} "
                f"fits at {fits})")
    return f"{where} is outside dim {{d}} of size {n}; size {size} fits at {fits}"


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
        attrs, src_type, dst_type = parse_signature(parser)
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
        print_signature(printer, self)

    # ---- verifier ----
    def verify_(self) -> None:
        verify_copy(self)

    # ---- bounds: {padding = V} and {in_bounds} ----
    @property
    def in_bounds(self) -> bool:
        """Whether the copy carries ``{in_bounds}``: its region is promised inside the
        buffers, so no bounds checks are emitted."""
        return "in_bounds" in self.attributes

    @property
    def padding(self) -> IntegerAttr | FloatAttr | None:
        """The ``{padding = V}`` the registers receive for elements outside the runtime
        extents (None: zero)."""
        pad = self.attributes.get("padding")
        return pad if isinstance(pad, IntegerAttr | FloatAttr) else None

    def _verify_bounds_attrs(self) -> None:
        """``in_bounds`` is a unit attribute; ``padding`` is a value of the element type, on a
        copy that reads memory into registers, and not together with ``in_bounds`` (whose
        region has nothing outside to pad)."""
        flag = self.attributes.get("in_bounds")
        if flag is not None and not isinstance(flag, UnitAttr):
            raise VerifyException(f"in_bounds is a unit attribute (write {{in_bounds}}), got "
                                  f"in_bounds = {flag}")
        if (pad := self.attributes.get("padding")) is None:
            return
        elem = self.src_type.element_type
        if not isinstance(pad, IntegerAttr | FloatAttr) or pad.type != elem:
            raise VerifyException(f"padding {pad} must be a value of the element type {elem}, "
                                  f"such as {{padding = {_example(elem)} : {elem}}}")
        if flag is not None:
            raise VerifyException("padding has no effect with {in_bounds} (no element is "
                                  "outside the buffer); drop one of them")
        if memory_space(self.dst_type) != MemSpace.LOCAL:
            raise VerifyException("padding applies to a copy into registers (a local "
                                  "destination); a copy to memory writes nothing outside the "
                                  "buffer, so drop the padding")


def verify_copy(op: CopyOp | CopyAsyncOp) -> None:
    """The verifier of ``regcopy.copy``, shared with ``regcopy.copy_async`` (same regions):
    both buffers valid, one element type, each region well-formed and inside its buffer's
    static extents, sliced cleanly by its layout, the non-unit sizes equal in order, and the
    bounds attributes (``op._verify_bounds_attrs``)."""
    for side, t in (("src", op.src_type), ("dst", op.dst_type)):
        try:
            verify_buffer(t)
        except VerifyException as e:
            raise VerifyException(f"{side}: {e}") from None
    src_t, dst_t = op.src_type.element_type, op.dst_type.element_type
    if src_t != dst_t:
        raise VerifyException(f"src and dst element types differ: {src_t} vs {dst_t}; "
                              f"both sides must have element type {src_t} (or both "
                              f"{dst_t}): a copy moves bits, so convert with an arith "
                              "cast before or after the copy")
    regions = {}
    for side, t in (("src", op.src_type), ("dst", op.dst_type)):
        statics, sizes = getattr(op, f"{side}_static_offsets"), getattr(op, f"{side}_sizes")
        if (statics is None) != (sizes is None):
            raise VerifyException(f"{side} region needs both offsets and sizes")
        n_dyn = 0 if statics is None else sum(1 for v in statics.get_values() if v == DYNAMIC)
        n_operands = len(getattr(op, f"{side}_offsets"))
        if n_dyn != n_operands:
            raise VerifyException(f"{side} has {n_dyn} dynamic offsets in its static list "
                                  f"but {n_operands} offset operands")
        offsets, sz = op.region(side)
        shape = t.get_shape()
        if not (len(offsets) == len(sz) == len(shape)):
            raise VerifyException(f"{side} region has {len(offsets)} offsets and {len(sz)} "
                                  f"sizes for a rank-{len(shape)} buffer; give one offset "
                                  f"and one size per dim ({len(shape)} of each)")
        for d, (o, z, n) in enumerate(zip(offsets, sz, shape)):
            if (problem := region_problem(o, z, n)) is not None:
                raise VerifyException(f"{side} region {problem.format(d=d)}")
        regions[side] = (offsets, sz)
        if is_dynamic(t):
            continue  # row-major and contiguous: any region slices cleanly
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
    op._verify_bounds_attrs()


def _example(elem: Attribute) -> str:
    """A literal of ``elem`` for a message: ``0.0`` for floats, ``0`` for integers."""
    return "0" if str(elem).startswith("i") else "0.0"


# --------------------------------------------------------------------------------------------
# regcopy.storage
# --------------------------------------------------------------------------------------------


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


Regcopy = Dialect("regcopy", [CopyOp, StorageOp, MultipleOfOp, LdMatrixOp, StMatrixOp,
                              *MMA_OPS, *WGMMA_OPS, *ASYNC_OPS, *TMA_OPS],
                  [MemSpaceAttr, ExecScopeAttr, LayoutAttr, LaunchAttr, *ASYNC_TYPES, *TMA_TYPES])
