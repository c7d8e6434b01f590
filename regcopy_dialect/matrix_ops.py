"""``regcopy.ldmatrix`` and ``regcopy.stmatrix``: the warp-collective 8x8 matrix transfers
between shared memory and registers (PTX ``ldmatrix``/``stmatrix .m8n8 .b16``).

::

    regcopy.ldmatrix [trans] %S[%off] -> %R[r0, r1, r2, r3] : memref<NxT, shared> -> memref<KxT, local>
    regcopy.stmatrix [trans] %R[r0, r1, r2, r3] -> %S[%off] : memref<KxT, local> -> memref<NxT, shared>

Both sides are 1-D flat storages (``regcopy.storage``). The register list has one entry per
matrix (1, 2 or 4 of them): ``r_m`` is the element offset, in this thread's registers, of
the 32-bit *word* that matrix ``m`` gives this lane (``4 / sizeof(T)`` elements). ``%off`` is
this lane's element offset into ``S``: lane ``8m + r`` supplies the start of row ``r`` of
matrix ``m`` (16 bytes; lanes ``>= 8 * count`` supply nothing). Every lane of the warp
executes the op together.

Semantics, in 16-bit units (``b16``; 8- and 32-bit data move as the same bytes):

* plain: lane ``l``'s word of matrix ``m`` is bytes ``[4(l%4), 4(l%4)+4)`` of row ``l/4``;
* ``trans`` (16-bit elements only): its half ``h`` is element ``l/4`` of row ``2(l%4)+h``.

``stmatrix`` writes exactly the bytes ``ldmatrix`` would read.
"""

from __future__ import annotations

from typing import ClassVar, cast

from xdsl.dialects.builtin import DenseArrayBase, IndexType, MemRefType, UnitAttr, i64
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, opt_prop_def, prop_def
from xdsl.ir import SSAValue
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from regcopy_dialect.attrs import MemSpace
from regcopy_dialect.buffers import (
    element_bits,
    memory_space,
    parse_signature,
    print_signature,
)

MATRIX_COUNTS = (1, 2, 4)
"""Matrices per instruction (``.x1``, ``.x2``, ``.x4``)."""


class MatrixOpBase(IRDLOperation):
    """Shared accessors, syntax and verifier of ``ldmatrix``/``stmatrix``."""

    LOADS: ClassVar[bool]

    src = operand_def(MemRefType)
    dst = operand_def(MemRefType)
    offset = operand_def(IndexType)
    regs = prop_def(DenseArrayBase)
    trans = opt_prop_def(UnitAttr)

    def __init__(self, src: SSAValue, dst: SSAValue, offset: SSAValue,
                 regs: tuple[int, ...], trans: bool = False):
        props: dict[str, object] = {"regs": DenseArrayBase.from_list(i64, list(regs))}
        if trans:
            props["trans"] = UnitAttr()
        super().__init__(operands=[src, dst, offset], properties=props)  # type: ignore[arg-type]

    # ---- accessors --------------------------------------------------------------------------

    @property
    def shared(self) -> SSAValue:
        return self.src if self.LOADS else self.dst

    @property
    def registers(self) -> SSAValue:
        return self.dst if self.LOADS else self.src

    @property
    def register_offsets(self) -> tuple[int, ...]:
        return tuple(cast(tuple[int, ...], self.regs.get_values()))

    @property
    def count(self) -> int:
        """Matrices moved (1, 2 or 4)."""
        return len(self.register_offsets)

    @property
    def transposed(self) -> bool:
        return self.trans is not None

    @property
    def element_type(self):  # noqa: ANN201 - an xDSL type attribute
        return cast(MemRefType, self.src.type).element_type

    @property
    def word_elements(self) -> int:
        """Elements in one 32-bit word."""
        return 32 // (element_bits(self.element_type) or 32)

    # ---- syntax -----------------------------------------------------------------------------

    @classmethod
    def parse(cls, parser: Parser) -> MatrixOpBase:
        trans = parser.parse_optional_keyword("trans") is not None
        src = parser.parse_unresolved_operand()
        first = cls._parse_index(parser)
        parser.parse_punctuation("->")
        dst = parser.parse_unresolved_operand()
        second = cls._parse_index(parser)
        attrs, src_t, dst_t = parse_signature(parser)
        offset, regs = (first, second) if cls.LOADS else (second, first)
        if isinstance(offset, list):
            parser.raise_error("expected one SSA offset on the shared side")
        if not isinstance(regs, list):
            parser.raise_error("expected a list of register offsets on the local side")
        op = cls(parser.resolve_operand(src, src_t), parser.resolve_operand(dst, dst_t),
                 parser.resolve_operand(offset, IndexType()), tuple(regs), trans)
        op.attributes.update(attrs)
        return op

    @classmethod
    def _parse_index(cls, parser: Parser):  # noqa: ANN206 - an operand or a list of ints
        parser.parse_punctuation("[")
        if (operand := parser.parse_optional_unresolved_operand()) is not None:
            parser.parse_punctuation("]")
            return operand
        values = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, lambda: parser.parse_integer(allow_boolean=False))
        parser.parse_punctuation("]")
        return values

    def print(self, printer: Printer) -> None:
        printer.print_string(" trans" if self.transposed else "")
        regs = "[" + ", ".join(map(str, self.register_offsets)) + "]"
        for k, value in enumerate((self.src, self.dst)):
            printer.print_string(" " if k == 0 else " -> ")
            printer.print_ssa_value(value)
            if value is self.shared:
                printer.print_string("[")
                printer.print_ssa_value(self.offset)
                printer.print_string("]")
            else:
                printer.print_string(regs)
        print_signature(printer, self)

    # ---- verifier ---------------------------------------------------------------------------

    def verify_(self) -> None:
        shared_t = cast(MemRefType, self.shared.type)
        local_t = cast(MemRefType, self.registers.type)
        if memory_space(shared_t) not in (MemSpace.SHARED, MemSpace.SHARED_DYN):
            raise VerifyException(f"{self.name} needs a shared storage, got {shared_t}")
        if memory_space(local_t) != MemSpace.LOCAL:
            raise VerifyException(f"{self.name} needs a local storage, got {local_t}")
        for t in (shared_t, local_t):
            if len(t.get_shape()) != 1:
                raise VerifyException(f"{self.name} works on 1-D storages "
                                      f"(regcopy.storage), got {t}")
        if shared_t.element_type != local_t.element_type:
            raise VerifyException(f"element types differ: {shared_t.element_type} and "
                                  f"{local_t.element_type}")
        bits = element_bits(shared_t.element_type)
        if bits not in (8, 16, 32):
            raise VerifyException(f"{self.name} moves 8-, 16- or 32-bit elements, got "
                                  f"{shared_t.element_type}")
        if self.transposed and bits != 16:
            raise VerifyException(f"{self.name} trans needs 16-bit elements, got "
                                  f"{shared_t.element_type}")
        regs = self.register_offsets
        if len(regs) not in MATRIX_COUNTS:
            raise VerifyException(f"{self.name} moves 1, 2 or 4 matrices, got {len(regs)} "
                                  "register offsets")
        words, size = self.word_elements, local_t.get_shape()[0]
        for r in regs:
            if r < 0 or r % words or r + words > size:
                raise VerifyException(f"register offset {r} is not a whole 32-bit word "
                                      f"inside the {size} registers")


@irdl_op_definition
class LdMatrixOp(MatrixOpBase):
    """``ldmatrix``: shared -> registers (see the module doc)."""

    name = "regcopy.ldmatrix"
    LOADS: ClassVar[bool] = True


@irdl_op_definition
class StMatrixOp(MatrixOpBase):
    """``stmatrix``: registers -> shared (see the module doc)."""

    name = "regcopy.stmatrix"
    LOADS: ClassVar[bool] = False
