"""The ``regcopy`` dialect: the ``regcopy.copy`` and ``regcopy.storage`` ops, the
``#regcopy.launch`` attribute, and the dialect object that gathers every op and attribute.

The data attributes (``#regcopy.mem``, ``#regcopy.exec``, ``#regcopy.layout``) live in
``attrs``, the buffer rules in ``buffers``, the divisibility promises in ``promises`` and
``ldmatrix``/``stmatrix`` in ``matrix_ops``; their names are re-exported here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    MemRefType,
    NoneAttr,
    StringAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from regcopy_dialect.async_ops import ASYNC_OPS, ASYNC_TYPES
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
from regcopy_dialect.matrix_ops import LdMatrixOp, StMatrixOp
from regcopy_dialect.mma_ops import MMA_OPS
from regcopy_dialect.setmaxnreg_op import SetMaxNRegOp
from regcopy_dialect.wgmma_ops import WGMMA_OPS
from regcopy_dialect.region_copy import (  # noqa: F401 (re-exported)
    DYNAMIC,
    RegionCopyOp,
    region_problem,
    verify_copy,
)
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
        n = self.min_blocks_per_sm
        extra = f", min_blocks = {n}" if n else ""
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


CONVERSIONS = ("auto", "shuffle", "shared")
MISALIGNED_STORES = ("auto", "realigned", "predicated", "shuffled", "staged")
"""The forms a copy may ask for its misaligned stores (``{misaligned_stores = ...}``)."""
"""How a register <-> register copy moves its elements: the cheapest kind, warp shuffles
wherever elements stay in their warps, or always a round trip through shared memory (the
pass option ``conversion`` and the copy's own ``{conversion = ...}``)."""


@irdl_op_definition
class CopyOp(RegionCopyOp):
    """Copy a region of ``src`` to a region of ``dst``, run together by the threads of
    ``scope``. One side is meant to be a ``local`` register tile."""

    name = "regcopy.copy"

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

    def _choice(self, name: str) -> str | None:
        """The string of attribute ``name`` (None: absent or not a string)."""
        value = self.attributes.get(name)
        return value.data if isinstance(value, StringAttr) else None

    def _verify_choice(self, name: str, choices: tuple[str, ...], example: str,
                       applies: bool, where: str) -> None:
        """Attribute ``name``, where present, is one of ``choices`` (else an error with
        ``example`` as the fix) and sits on a copy it ``applies`` to (else: drop it, it
        belongs to ``where``)."""
        if (value := self.attributes.get(name)) is None:
            return
        if not isinstance(value, StringAttr) or value.data not in choices:
            raise VerifyException(f"{name} {value} must be one of "
                                  f"{', '.join(repr(c) for c in choices)} "
                                  f'(write {{{name} = "{example}"}})')
        if not applies:
            raise VerifyException(f"{name} applies to {where}; drop it here")

    # ---- {conversion = "shuffle"}: how a register <-> register copy moves ----
    @property
    def conversion(self) -> str | None:
        """The ``{conversion = "auto" | "shuffle" | "shared"}`` of a copy between two register
        tiles: how it moves its elements, in place of the pass option ``conversion`` (None:
        the option decides)."""
        return self._choice("conversion")

    def _verify_conversion_attr(self) -> None:
        """``conversion`` is one of ``CONVERSIONS``, on a copy whose two sides are ``local``."""
        self._verify_choice("conversion", CONVERSIONS, "shuffle",
                            MemSpace.LOCAL == memory_space(self.src_type)
                            and MemSpace.LOCAL == memory_space(self.dst_type),
                            "a copy between two register tiles (both sides local)")

    # ---- {misaligned_stores = "realigned"}: how a write's misaligned vectors move ----
    @property
    def misaligned_stores(self) -> str | None:
        """The ``{misaligned_stores = "auto" | "realigned" | "predicated" | "shuffled" |
        "staged"}`` of a write to memory: the form of the vectors a runtime extent may
        misalign, in place of the cost model's choice (None: the model's; the pass option
        ``misaligned-stores``, where it names a form, forces every store's)."""
        return self._choice("misaligned_stores")

    def _verify_misaligned_attr(self) -> None:
        """``misaligned_stores`` is one of ``MISALIGNED_STORES``, on a copy from registers
        into memory."""
        self._verify_choice("misaligned_stores", MISALIGNED_STORES, "realigned",
                            MemSpace.LOCAL == memory_space(self.src_type)
                            and MemSpace.LOCAL != memory_space(self.dst_type),
                            "a copy from registers into memory (a store)")

    def _verify_bounds_attrs(self) -> None:
        """``in_bounds`` is a unit attribute; ``padding`` is a value of the element type, on a
        copy that reads memory into registers, and not together with ``in_bounds`` (whose
        region has nothing outside to pad); ``conversion`` as ``_verify_conversion_attr``,
        ``misaligned_stores`` as ``_verify_misaligned_attr``."""
        self._verify_conversion_attr()
        self._verify_misaligned_attr()
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
                              *MMA_OPS, *WGMMA_OPS, SetMaxNRegOp, *ASYNC_OPS, *TMA_OPS],
                  [MemSpaceAttr, ExecScopeAttr, LayoutAttr, LaunchAttr, *ASYNC_TYPES, *TMA_TYPES])
