"""Asynchronous global -> shared copies: ``regcopy.copy_async``, ``regcopy.async_group``,
``regcopy.async_wait`` and the ``!regcopy.token`` they pass, plus the per-thread ops they lower
to (``regcopy.cp_async``, ``regcopy.cp_async_commit``, ``regcopy.cp_async_wait``).

::

    %t = regcopy.copy_async cta %G[%i, 0] [64, 32] -> %S[0, 0] [64, 32] : T -> U
    %g = regcopy.async_group %t, %t2
    regcopy.async_wait %g {pending = 1 : i64}

Semantics. ``copy_async`` starts copying a region of a ``global`` buffer into a region of a
``shared``/``shared.dyn`` buffer (regions as for ``regcopy.copy``); ``async_group`` closes the
group of the started copies it names (in program order, one group per execution); and
``async_wait %g {pending = N}`` returns once at most N groups closed *after* ``%g`` are still in
flight -- every group up to and including ``%g`` has landed. The data lands at the wait: the
destination region must not be read before.

Lowered, per thread (PTX ``cp.async``)::

    regcopy.cp_async %dst[%i], %src[%j], 16, %srcbytes : memref<NxT, shared> -> memref<MxT, global>
    regcopy.cp_async_commit
    regcopy.cp_async_wait 1

``cp_async`` copies ``bytes`` (4, 8 or 16) from element ``%j`` of the flat global storage to
element ``%i`` of the flat shared storage, reading only the first ``%srcbytes`` source bytes
(``0 <= srcbytes <= bytes``) and filling the rest with zeros; ``cp_async_commit`` closes this
thread's pending copies into a group; ``cp_async_wait N`` waits until at most N of this
thread's groups are pending. Tokens have no lowered form: the lowering drops them from loops
and branches that carried them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import cast

from xdsl.dialects.builtin import (
    IndexType,
    IntAttr,
    IntegerAttr,
    MemRefType,
    UnitAttr,
    i64,
)
from xdsl.ir import (
    Attribute,
    Operation,
    ParametrizedAttribute,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from regcopy_dialect.attrs import ExecScope, MemSpace
from regcopy_dialect.buffers import memory_space, parse_signature
from regcopy_dialect.region_copy import RegionCopyOp, verify_copy

CP_ASYNC_BYTES = (4, 8, 16)
"""The widths of one ``cp.async`` (``.ca`` for 4 and 8 bytes, ``.cg`` for 16)."""


@irdl_attr_definition
class TokenType(ParametrizedAttribute, TypeAttribute):
    """``!regcopy.token``: a started asynchronous copy, or a closed group of them."""

    name = "regcopy.token"


# --------------------------------------------------------------------------------------------
# regcopy.copy_async: regions, syntax and verifier are regcopy.copy's
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class CopyAsyncOp(RegionCopyOp):
    """Start copying a region of a global buffer into a region of a shared buffer, run
    together by the threads of ``scope``; the result names the started copy."""

    name = "regcopy.copy_async"

    token = result_def(TokenType)

    def __init__(self, scope: ExecScope, src: SSAValue | Operation, dst: SSAValue | Operation,
                 src_region: tuple[Sequence[int | SSAValue], Sequence[int]] | None = None,
                 dst_region: tuple[Sequence[int | SSAValue], Sequence[int]] | None = None):
        super().__init__(scope, src, dst, src_region, dst_region, result_types=[TokenType()])

    @property
    def padding(self) -> None:
        """Elements outside the source's extents always arrive as zero."""
        return None

    def _verify_bounds_attrs(self) -> None:
        """``{in_bounds}`` as on ``regcopy.copy``; no ``padding``: the zero fill is fixed."""
        flag = self.attributes.get("in_bounds")
        if flag is not None and not isinstance(flag, UnitAttr):
            raise VerifyException(f"in_bounds is a unit attribute (write {{in_bounds}}), got "
                                  f"in_bounds = {flag}")
        if "padding" in self.attributes:
            raise VerifyException("copy_async fills elements outside the source's extents with "
                                  "zero; it takes no padding (drop it)")

    def verify_(self) -> None:
        src, dst = memory_space(self.src_type), memory_space(self.dst_type)
        if src != MemSpace.GLOBAL:
            raise VerifyException(f"copy_async reads a global buffer, got a {src} one; copy "
                                  "shared or local data with regcopy.copy")
        if dst not in (MemSpace.SHARED, MemSpace.SHARED_DYN):
            raise VerifyException(f"copy_async writes a shared or shared.dyn buffer, got a {dst}"
                                  " one; copy into registers with regcopy.copy")
        verify_copy(self)
        for use in self.token.uses:
            if not isinstance(use.operation, AsyncGroupOp):
                raise VerifyException("a copy_async token may only be closed by "
                                      f"regcopy.async_group, not used by {use.operation.name}")
        groups = {id(u.operation) for u in self.token.uses}
        if len(groups) > 1:
            raise VerifyException(f"the copy's token is closed by {len(groups)} "
                                  "regcopy.async_group ops; a copy belongs to exactly one group")


# --------------------------------------------------------------------------------------------
# regcopy.async_group / regcopy.async_wait
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class AsyncGroupOp(IRDLOperation):
    """Close the group of the started copies it names (none: an empty group)."""

    name = "regcopy.async_group"

    tokens = var_operand_def(TokenType)
    group = result_def(TokenType)

    def __init__(self, tokens: Sequence[SSAValue | Operation]):
        super().__init__(operands=[list(tokens)], result_types=[TokenType()])

    @classmethod
    def parse(cls, parser: Parser) -> AsyncGroupOp:
        tokens = []
        if not _starts_next_op(parser) and \
                (first := parser.parse_optional_unresolved_operand()) is not None:
            tokens = [first]
            while parser.parse_optional_punctuation(",") is not None:
                tokens.append(parser.parse_unresolved_operand())
        attrs = parser.parse_optional_attr_dict()
        op = cls([parser.resolve_operand(t, TokenType()) for t in tokens])
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        if self.tokens:
            printer.print_string(" ")
            printer.print_list(self.tokens, printer.print_ssa_value)
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        seen: set[SSAValue] = set()
        for t in self.tokens:
            if not isinstance(t.owner, CopyAsyncOp):
                raise VerifyException("async_group closes copy_async tokens; got a value "
                                      f"defined by {_owner_name(t)}")
            if t in seen:
                raise VerifyException("async_group names the same copy twice")
            seen.add(t)


_RESULT_DEFINITION = re.compile(r"%[\w$.\-]+(?::\d+)?\s*(?:=|,\s*%[\w$.\-]+(?::\d+)?\s*"
                                r"(?:,\s*%[\w$.\-]+(?::\d+)?\s*)*=)")
"""The results of the next op (``%a =``, ``%a:2 =``, ``%a, %b =``): no operand list."""


def _starts_next_op(parser: Parser) -> bool:
    """Whether the next token, a ``%`` value or not, begins the next op rather than this op's
    operand list: it starts a new line, or it is followed by ``=`` (a result definition). An
    ``async_group`` without tokens is printed as a bare name, so the line after it may begin
    with ``%``."""
    content = parser.lexer.input.content
    pos = parser.pos
    line_start = content.rfind("\n", 0, pos) + 1
    if not content[line_start:pos].strip():
        return True
    return _RESULT_DEFINITION.match(content, pos) is not None


def _owner_name(v: SSAValue) -> str:
    return v.owner.name if isinstance(v.owner, Operation) else "a block argument"


@irdl_op_definition
class AsyncWaitOp(IRDLOperation):
    """Wait until at most ``pending`` groups closed after ``group`` are still in flight."""

    name = "regcopy.async_wait"

    group = operand_def(TokenType)
    pending = prop_def(IntegerAttr.constr(type=i64))

    def __init__(self, group: SSAValue | Operation, pending: int):
        super().__init__(operands=[group], properties={"pending": IntegerAttr(pending, i64)})

    @classmethod
    def parse(cls, parser: Parser) -> AsyncWaitOp:
        start = parser.pos
        group = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        pending = attrs.pop("pending", None)
        if not isinstance(pending, IntegerAttr):
            parser.raise_error("async_wait needs '{pending = N : i64}' (N >= 0: the groups "
                               "closed after this one that may stay in flight)", start,
                               start + 1)
        op = cls(parser.resolve_operand(group, TokenType()), pending.value.data)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.group)
        printer.print_op_attributes({"pending": self.pending, **self.attributes})

    def verify_(self) -> None:
        if self.pending.value.data < 0:
            raise VerifyException(f"pending = {self.pending.value.data} must be >= 0 (the "
                                  "groups closed after this one that may stay in flight)")
        if isinstance(self.group.owner, CopyAsyncOp):
            raise VerifyException("async_wait waits on a group: close the copy with "
                                  "regcopy.async_group and wait on its result")


# --------------------------------------------------------------------------------------------
# lowered form: regcopy.cp_async / cp_async_commit / cp_async_wait
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class CpAsyncOp(IRDLOperation):
    """One thread's ``cp.async`` of ``bytes`` bytes (zero-filled past ``src_bytes``)."""

    name = "regcopy.cp_async"

    dst = operand_def(MemRefType)
    dst_index = operand_def(IndexType)
    src = operand_def(MemRefType)
    src_index = operand_def(IndexType)
    src_bytes = operand_def(IndexType)
    bytes = prop_def(IntAttr)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, dst: SSAValue, dst_index: SSAValue, src: SSAValue, src_index: SSAValue,
                 nbytes: int, src_bytes: SSAValue):
        super().__init__(operands=[dst, dst_index, src, src_index, src_bytes],
                         properties={"bytes": IntAttr(nbytes)})

    @classmethod
    def parse(cls, parser: Parser) -> CpAsyncOp:
        dst = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        di = parser.parse_operand(IndexType())
        parser.parse_punctuation("]")
        parser.parse_punctuation(",")
        src = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        si = parser.parse_operand(IndexType())
        parser.parse_punctuation("]")
        parser.parse_punctuation(",")
        nbytes = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(",")
        sb = parser.parse_operand(IndexType())
        attrs, dst_t, src_t = parse_signature(parser)
        op = cls(parser.resolve_operand(dst, dst_t), di, parser.resolve_operand(src, src_t), si,
                 nbytes, sb)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.dst)
        printer.print_string("[")
        printer.print_ssa_value(self.dst_index)
        printer.print_string("], ")
        printer.print_ssa_value(self.src)
        printer.print_string("[")
        printer.print_ssa_value(self.src_index)
        printer.print_string(f"], {self.bytes.data}, ")
        printer.print_ssa_value(self.src_bytes)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.dst.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.src.type)

    def verify_(self) -> None:
        if self.bytes.data not in CP_ASYNC_BYTES:
            raise VerifyException(f"cp_async moves 4, 8 or 16 bytes, got {self.bytes.data}")
        dst_t, src_t = cast(MemRefType, self.dst.type), cast(MemRefType, self.src.type)
        if memory_space(dst_t) not in (MemSpace.SHARED, MemSpace.SHARED_DYN):
            raise VerifyException(f"cp_async writes shared memory, got {memory_space(dst_t)}")
        if memory_space(src_t) != MemSpace.GLOBAL:
            raise VerifyException(f"cp_async reads global memory, got {memory_space(src_t)}")
        for side, t in (("dst", dst_t), ("src", src_t)):
            if len(t.get_shape()) != 1:
                raise VerifyException(f"cp_async's {side} is a flat 1-D storage "
                                      f"(regcopy.storage), got rank {len(t.get_shape())}")
        if dst_t.element_type != src_t.element_type:
            raise VerifyException(f"cp_async element types differ: {dst_t.element_type} vs "
                                  f"{src_t.element_type}")


@irdl_op_definition
class CpAsyncCommitOp(IRDLOperation):
    """``cp.async.commit_group``: close this thread's pending copies into a group."""

    name = "regcopy.cp_async_commit"
    assembly_format = "attr-dict"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self) -> None:
        super().__init__()


@irdl_op_definition
class CpAsyncWaitOp(IRDLOperation):
    """``cp.async.wait_group N``: wait until at most N of this thread's groups are pending."""

    name = "regcopy.cp_async_wait"

    pending = prop_def(IntAttr)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, pending: int):
        super().__init__(properties={"pending": IntAttr(pending)})

    @classmethod
    def parse(cls, parser: Parser) -> CpAsyncWaitOp:
        start = parser.pos
        n = parser.parse_integer(allow_boolean=False)
        if n < 0:
            parser.raise_error(f"cp_async_wait N needs N >= 0, got {n}", start, parser.pos)
        op = cls(n)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.pending.data}")
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        if self.pending.data < 0:
            raise VerifyException(f"cp_async_wait N needs N >= 0, got {self.pending.data}")


ASYNC_OPS: tuple[type[IRDLOperation], ...] = (
    CopyAsyncOp, AsyncGroupOp, AsyncWaitOp, CpAsyncOp, CpAsyncCommitOp, CpAsyncWaitOp)
ASYNC_TYPES: tuple[type[Attribute], ...] = (TokenType,)
