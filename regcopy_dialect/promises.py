"""Divisibility promises: the ``regcopy.multiple_of`` op and the ``regcopy.divisibility``
kernel-argument attribute, and ``divisibility_of``, the one reader of both.

A promise says that an integer or ``index`` value is a multiple of ``N >= 1``; on a dynamic
memref argument, ``{regcopy.divisibility = array<i64: d0, d1, ...>}`` promises that extent
``i`` (``memref.dim %X, %ci``) is a multiple of ``di`` (1: no promise). The
divisibility analysis of the lowering trusts it (it may then prove a vector transfer
aligned), the interpreter and the runner check it, the CUDA target prints the value itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    I64,
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    i64,
)
from xdsl.dialects.memref import DimOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
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

from regcopy_dialect.attrs import argument_attribute
from regcopy_dialect.strided import verify_stride_attrs

DIVISIBILITY = "regcopy.divisibility"
"""Name of the kernel-argument attribute promising that an integer/index argument is a multiple
of its value (``{regcopy.divisibility = 64 : i64}``)."""


@irdl_op_definition
class MultipleOfOp(IRDLOperation):
    """``%v2 = regcopy.multiple_of %v, N : index``: ``%v2`` is ``%v``, promised to be a
    multiple of ``N`` (N >= 1). The divisibility analysis trusts the promise; the CUDA target
    prints the value itself."""

    name = "regcopy.multiple_of"

    value = operand_def(IndexType | IntegerType)
    divisor = prop_def(IntegerAttr[I64])
    result = result_def(IndexType | IntegerType)  # type: ignore[arg-type]  # a union, as operand_def

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



def _array_problem(attr: Attribute, t: MemRefType, name: str) -> str | None:
    """Why ``attr`` is not a valid extent promise for a memref argument of type ``t``: one
    ``i64`` entry per dimension, each ``>= 1``, a static size's entry dividing it."""
    shape = t.get_shape()
    example = ", ".join("4" if d == DYNAMIC_INDEX else "1" for d in shape)
    if not isinstance(attr, DenseArrayBase) or attr.elt_type != i64:
        return (f"{DIVISIBILITY} of memref {name} must be an array with one divisor per "
                f"dimension, such as array<i64: {example}>, got {attr}")
    values = attr.get_values()
    if len(values) != len(shape):
        return (f"{DIVISIBILITY} of {name} has {len(values)} entries for a rank-{len(shape)} "
                f"memref; give one divisor per dimension, such as array<i64: {example}>")
    for i, (d, n) in enumerate(zip(values, shape)):
        if d < 1:
            return (f"{DIVISIBILITY} entry {i} of {name} must be >= 1 (1: no promise), "
                    f"got {d}")
        if n != DYNAMIC_INDEX and n % d:
            return (f"{DIVISIBILITY} entry {i} of {name} is {d}, which does not divide the "
                    f"static size {n}; use 1 or a divisor of {n}")
    return None


def divisibility_problem(attr: Attribute, arg: SSAValue | None, name: str = "the argument"
                         ) -> str | None:
    """Why ``attr``, found as ``regcopy.divisibility`` on the argument ``arg`` (called
    ``name`` in the message), is not a valid promise: it must be an integer attribute (not
    ``i1``) ``>= 1`` on an integer or ``index`` argument, or, on a memref argument, an
    ``array<i64: ...>`` of one divisor ``>= 1`` per dimension (a static size's divisor
    dividing it). None when it is valid."""
    if arg is not None and isinstance(arg.type, MemRefType):
        return _array_problem(attr, arg.type, name)
    if not isinstance(attr, IntegerAttr) or (isinstance(attr.type, IntegerType) and \
            attr.type.width.data == 1):
        return (f"{DIVISIBILITY} of {name} must be an integer attribute such as 16 : i64, "
                f"got {attr}")
    if attr.value.data < 1:
        return f"{DIVISIBILITY} of {name} must be >= 1, got {attr.value.data}"
    if arg is not None and not isinstance(arg.type, IndexType | IntegerType):
        return (f"{DIVISIBILITY} on {name} of type {arg.type}: only integer and index "
                "arguments can promise divisibility")
    return None


def _kernel_args(kernel: Operation) -> Sequence[BlockArgument]:
    if not kernel.regions or not kernel.regions[0].blocks:
        return ()
    return kernel.regions[0].blocks.first.args  # type: ignore[union-attr]


def argument_promise(kernel: Operation, index: int) -> int | None:
    """``N`` of argument ``index``'s valid ``{regcopy.divisibility = N : i64}``; None without
    one or when it is invalid (the verifier reports that; it promises nothing)."""
    attr = argument_attribute(kernel, index, DIVISIBILITY)
    args = _kernel_args(kernel)
    if attr is None or divisibility_problem(attr, args[index] if index < len(args) else None):
        return None
    return attr.value.data if isinstance(attr, IntegerAttr) else None  # arrays: extents


def argument_extent_promise(kernel: Operation, index: int) -> tuple[int, ...] | None:
    """The divisors of argument ``index``'s valid ``{regcopy.divisibility = array<i64:
    ...>}`` (one per dimension of the memref argument); None without one or when it is
    invalid (the verifier reports that)."""
    attr = argument_attribute(kernel, index, DIVISIBILITY)
    args = _kernel_args(kernel)
    if attr is None or index >= len(args) or not isinstance(args[index].type, MemRefType):
        return None
    if _array_problem(attr, args[index].type, "the argument") is not None:  # type: ignore
        return None
    assert isinstance(attr, DenseArrayBase)
    return tuple(int(v) for v in attr.get_values())


def extent_divisibility(buffer: SSAValue, dim: int) -> int:
    """What extent ``dim`` of the memref ``buffer`` is provably a multiple of: a static size
    itself; a dynamic one's ``{regcopy.divisibility = array<i64: ...>}`` entry when
    ``buffer`` is a kernel argument with a valid promise; else 1."""
    t = buffer.type
    assert isinstance(t, MemRefType)
    size = t.get_shape()[dim]
    if size != DYNAMIC_INDEX:
        return size
    kernel = _kernel_of(buffer)
    if kernel is None:
        return 1
    assert isinstance(buffer, BlockArgument)
    attr = argument_attribute(kernel, buffer.index, DIVISIBILITY)
    if attr is None or _array_problem(attr, t, "the argument") is not None:
        return 1
    assert isinstance(attr, DenseArrayBase)
    return int(attr.get_values()[dim])


def dim_index(op: DimOp) -> int | None:
    """The constant dimension a ``memref.dim`` reads, or None when it is not a constant."""
    owner = op.index.owner
    if isinstance(owner, ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _kernel_of(value: SSAValue) -> Operation | None:
    """The op whose entry block ``value`` is an argument of, or None."""
    if not isinstance(value, BlockArgument) or not isinstance(value.owner, Block):
        return None
    kernel = value.owner.parent_op()
    if kernel is None or not kernel.regions or value.owner is not kernel.regions[0].blocks.first:
        return None
    return kernel


def divisibility_of(value: SSAValue) -> int | None:
    """The divisor promised for ``value`` itself, the one reading of the promises: ``N`` of
    a kernel argument's ``{regcopy.divisibility = N : i64}``, of the
    ``regcopy.multiple_of %x, N`` that defines ``value``, or, for ``memref.dim %X, %ci``, the
    extent's divisor (``extent_divisibility``; the size itself when static). None when
    nothing is promised."""
    if isinstance(value.owner, DimOp):
        dim = dim_index(value.owner)
        rank = len(value.owner.source.type.get_shape())  # type: ignore[attr-defined]
        if dim is None or not 0 <= dim < rank:
            return None
        d = extent_divisibility(value.owner.source, dim)
        return d if d > 1 else None
    if isinstance(value.owner, MultipleOfOp):
        return value.owner.divisor_value if value.owner.divisor_value >= 1 else None
    kernel = _kernel_of(value)
    if kernel is None:
        return None
    assert isinstance(value, BlockArgument)
    return argument_promise(kernel, value.index)


def verify_divisibility_attrs(kernel: Operation) -> None:
    """Check every ``{regcopy.divisibility = N : i64}`` on the arguments of ``kernel`` (a
    ``func.func``; other ops have none) with ``divisibility_problem``. Raises
    ``VerifyException`` naming the argument."""
    arg_attrs = kernel.properties.get("arg_attrs") or kernel.attributes.get("arg_attrs")
    if not isinstance(arg_attrs, ArrayAttr) or not kernel.regions or \
            not kernel.regions[0].blocks:
        return
    args = _kernel_args(kernel)
    for i in range(len(arg_attrs.data)):
        if (attr := argument_attribute(kernel, i, DIVISIBILITY)) is None:
            continue
        arg = args[i] if i < len(args) else None
        name = f"argument #{i}" + (f" (%{arg.name_hint})" if arg and arg.name_hint else "")
        if (problem := divisibility_problem(attr, arg, name)) is not None:
            raise VerifyException(problem)
    if (problem := verify_stride_attrs(kernel)) is not None:
        raise VerifyException(problem)
