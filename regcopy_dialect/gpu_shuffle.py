"""``gpu.shuffle``: MLIR's warp shuffle, which xDSL 0.74's ``gpu`` dialect lacks.

::

    %r, %valid = gpu.shuffle xor %v, %offset, %width : f32
    %r, %valid = "gpu.shuffle"(%v, %offset, %width) <{mode = #gpu<shuffle_mode xor>}>
                     : (f32, i32, i32) -> (f32, i1)

Every lane of a warp gives a value ``%v``; each gets back the value of a *source lane*
(``shuffle_source``) and whether that lane was in range. ``%offset`` and ``%width`` are
``i32``; the regcopy targets take ``%width`` = the constant 32 (a whole warp) only
(``shuffle_width_error``). With ``b = offset mod 32`` (the five bits PTX reads), lane ``l``'s
source lane is

* ``xor``: ``l ^ b`` (always in range),
* ``up``: ``l - b``, in range when ``l >= b``,
* ``down``: ``l + b``, in range when ``l + b <= 31``,
* ``idx``: ``b`` (always in range);

out of range, a lane gets its own value back (PTX ``shfl.sync``; MLIR leaves that value
undefined). The value is any 8- to 64-bit integer, ``index`` or float scalar.

``GPU_WITH_SHUFFLE`` is xDSL's ``gpu`` dialect plus this op and its mode attribute; regcopy's
tools and ``regcopy_context()`` load it in place of ``gpu``; ``add_shuffle`` adds the op to a
context that has xDSL's (stock ``xdsl-opt`` through regcopy's ``xdsl.universe`` entry point).
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import arith, gpu
from xdsl.dialects.builtin import (
    I32,
    AnyFloat,
    IndexType,
    IntegerAttr,
    IntegerType,
    i1,
    i32,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Dialect, Operation, SpacedOpaqueSyntaxAttribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

WARP_LANES = 32


class ShuffleMode(StrEnum):
    XOR = "xor"
    UP = "up"
    DOWN = "down"
    IDX = "idx"


@irdl_attr_definition
class ShuffleModeAttr(EnumAttribute[ShuffleMode], SpacedOpaqueSyntaxAttribute):
    """``#gpu<shuffle_mode xor>`` (MLIR's spelling); a bare ``xor`` in ``gpu.shuffle``."""

    name = "gpu.shuffle_mode"


def shuffle_source(mode: ShuffleMode, lane: int, offset: int) -> tuple[int, bool]:
    """``(source lane, in range)`` of ``lane`` for a whole-warp shuffle (module doc): ``b`` is
    ``offset``'s low five bits; out of range the source is ``lane`` itself."""
    b = offset & (WARP_LANES - 1)
    if mode == ShuffleMode.XOR:
        return lane ^ b, True
    if mode == ShuffleMode.IDX:
        return b, True
    src = lane - b if mode == ShuffleMode.UP else lane + b
    if 0 <= src < WARP_LANES:
        return src, True
    return lane, False


def _shuffled_type(t: Attribute) -> bool:
    if isinstance(t, IndexType):
        return True
    if isinstance(t, IntegerType):
        return t.width.data in (1, 8, 16, 32, 64)
    return isinstance(t, AnyFloat) and t.bitwidth in (8, 16, 32, 64)


@irdl_op_definition
class ShuffleOp(IRDLOperation):
    """``gpu.shuffle`` (module doc)."""

    name = "gpu.shuffle"

    value = operand_def()
    offset = operand_def(I32)
    width = operand_def(I32)
    mode = prop_def(ShuffleModeAttr)
    shuffle_result = result_def()
    valid = result_def(i1)

    traits = traits_def(Pure())

    def __init__(self, value: SSAValue | Operation, offset: SSAValue | Operation,
                 width: SSAValue | Operation, mode: ShuffleMode) -> None:
        v = SSAValue.get(value)
        super().__init__(operands=[v, offset, width], result_types=[v.type, i1],
                         properties={"mode": ShuffleModeAttr(mode)})

    def verify_(self) -> None:
        t = self.value.type
        if self.shuffle_result.type != t:
            raise VerifyException(f"result type {self.shuffle_result.type} differs from the "
                                  f"shuffled value's type {t}")
        if not _shuffled_type(t):
            raise VerifyException(f"shuffles a value of type {t}; expected an integer, "
                                  "index or float scalar of 8 to 64 bits")

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.mode.data.value} ")
        printer.print_list((self.value, self.offset, self.width), printer.print_ssa_value)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)

    @classmethod
    def parse(cls, parser: Parser) -> ShuffleOp:
        mode = parser.parse_str_enum(ShuffleMode)
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        offset = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        width = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        op = cls(parser.resolve_operand(value, t), parser.resolve_operand(offset, i32),
                 parser.resolve_operand(width, i32), mode)
        op.attributes.update(attrs)
        return op


def shuffle_width_error(op: ShuffleOp) -> str | None:
    """Why the regcopy targets cannot run ``op`` (a width other than the constant 32), or
    None."""
    owner = op.width.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        width = owner.value.value.data
        if width == WARP_LANES:
            return None
        return (f"has width {width}; the regcopy targets shuffle whole warps: width must be "
                f"the constant {WARP_LANES}")
    return f"has a width computed at run time; width must be the constant {WARP_LANES}"


GPU_WITH_SHUFFLE = Dialect(
    "gpu", [*gpu.GPU.operations, ShuffleOp], [*gpu.GPU.attributes, ShuffleModeAttr])
"""xDSL's ``gpu`` dialect with ``gpu.shuffle`` and ``#gpu<shuffle_mode ...>``."""


def add_shuffle(ctx: Context) -> None:
    """Make ``gpu.shuffle`` and its mode attribute known to ``ctx`` whatever ``gpu`` dialect
    it has (a no-op where they are)."""
    if ShuffleOp.name not in {op.name for op in ctx.loaded_ops}:
        ctx.load_op(ShuffleOp)
    if ShuffleModeAttr.name not in {a.name for a in ctx.loaded_attrs}:
        ctx.load_attr_or_type(ShuffleModeAttr)
