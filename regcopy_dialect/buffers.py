"""Buffers: the memref types a regcopy program copies between (memory space, layout,
element type) and their rules."""

from __future__ import annotations

from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, NoneAttr
from xdsl.ir import Attribute, Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from regcopy_dialect.attrs import LayoutAttr, MemSpace, MemSpaceAttr
from regcopy_dialect.element_types import ELEMENT_NAMES, element_bits
from regcopy_dialect.layout import Iter, Layout, LayoutError, group
from regcopy_dialect.radix import suffix_product
from regcopy_dialect.strided import is_strided, strided_problem

ELEMENT_TYPES = ELEMENT_NAMES
"""The supported element types' IR spellings (``element_types.ELEMENT_NAMES``)."""

__all__ = ["ELEMENT_TYPES", "buffer_layout", "element_bits", "is_dynamic",
           "is_regcopy_buffer", "memory_space", "parse_signature", "print_signature",
           "storage_type", "verify_buffer"]


def is_dynamic(t: MemRefType) -> bool:
    """Whether ``t``'s element offsets need runtime values or explicit strides: some size
    is ``?`` (a runtime extent, read with ``memref.dim``), or it has a ``strided<[...]>``
    layout (a view of a larger matrix, ``regcopy_dialect.strided``). Such a buffer has no
    static ``#regcopy.layout``; the pass addresses it with its extents and strides."""
    return any(d == DYNAMIC_INDEX for d in t.get_shape()) or is_strided(t)


def memory_space(t: MemRefType) -> MemSpace:
    """The buffer's memory space; a memref without one is ``global``."""
    space = t.memory_space
    return space.data if isinstance(space, MemSpaceAttr) else MemSpace.GLOBAL


def buffer_layout(t: MemRefType) -> Layout:
    """The buffer's layout: its ``#regcopy.layout`` or row-major over its shape. A dynamic
    buffer has no static layout (its strides are runtime extents): callers check
    ``is_dynamic`` first."""
    assert not is_dynamic(t), f"buffer_layout of the dynamic buffer {t}"
    if isinstance(t.layout, LayoutAttr) and not t.layout.is_auto:
        return t.layout.layout
    shape = t.get_shape()
    return Layout(tuple(Iter(e, s) for e, s in zip(shape, suffix_product(shape))))


def is_regcopy_buffer(t: Attribute) -> bool:
    """Whether ``t`` is a memref that carries a regcopy memory space or layout."""
    return isinstance(t, MemRefType) and (isinstance(t.memory_space, MemSpaceAttr)
                                          or isinstance(t.layout, LayoutAttr))


def verify_buffer(t: MemRefType) -> None:
    """The rules of a regcopy buffer type: a supported element type, sizes >= 1, a
    ``#regcopy.mem`` (or none: global), row-major or a ``#regcopy.layout`` that groups
    against the shape, thread axes only in ``local`` buffers and swizzles only outside them."""
    if element_bits(t.element_type) is None:
        width = getattr(t.element_type, "bitwidth", 8)
        sub = " (sub-byte element types are not supported)" if width < 8 else ""
        raise VerifyException(f"element type {t.element_type} is not supported{sub}; "
                              f"expected one of {ELEMENT_NAMES}")
    shape = t.get_shape()
    if any(d < 1 and d != DYNAMIC_INDEX for d in shape):
        raise VerifyException(f"buffer sizes must be >= 1 (empty buffers are not supported), "
                              f"got shape {_shape_text(shape)}")
    space = t.memory_space
    if DYNAMIC_INDEX in shape and isinstance(space, MemSpaceAttr) and \
            memory_space(t) != MemSpace.GLOBAL:
        raise VerifyException(f"dynamic sizes {_shape_text(shape)} in a {memory_space(t)} "
                              "buffer: only global buffers (kernel arguments) take runtime "
                              "extents; give shared and local buffers static sizes")
    if not isinstance(space, MemSpaceAttr | NoneAttr):
        raise VerifyException(f"memory space {space} is not a #regcopy.mem")
    if is_strided(t):
        if (problem := strided_problem(t, memory_space(t) == MemSpace.GLOBAL)) is not None:
            raise VerifyException(problem)
        return
    if is_dynamic(t) and not isinstance(t.layout, NoneAttr):
        raise VerifyException(f"dynamic buffer {_shape_text(shape)} with a layout: a buffer "
                              "with runtime extents is row-major and contiguous; drop the "
                              "layout (or give it strided<[?, 1]>: a view with a runtime "
                              "row stride)")
    if not isinstance(t.layout, LayoutAttr | NoneAttr):
        raise VerifyException(f"layout {t.layout} is not a #regcopy.layout (buffers are "
                              "row-major or carry a #regcopy.layout; global buffers may be "
                              "strided<[..., 1]>)")
    if isinstance(t.layout, NoneAttr):
        return
    if t.layout.is_auto:
        if memory_space(t) not in (MemSpace.SHARED, MemSpace.SHARED_DYN):
            raise VerifyException(f"#regcopy.layout<auto> on a {memory_space(t)} buffer: the "
                                  "compiler chooses layouts of shared and shared.dyn buffers "
                                  "only; write this buffer's layout")
        return
    layout = t.layout.layout
    try:
        group(layout, t.get_shape())
    except LayoutError as e:
        raise VerifyException(f"layout {layout} does not fit buffer shape "
                              f"{list(t.get_shape())}: {e}") from None
    local = memory_space(t) == MemSpace.LOCAL
    if not local and layout.replicas:
        raise VerifyException(f"layout {layout} of a {memory_space(t)} buffer has replicas; "
                              "only local buffers (register tiles) may be replicated")
    if not local and layout.thread_iters:
        raise VerifyException(f"layout {layout} of a {memory_space(t)} buffer has thread "
                              "axes; only local buffers are distributed over threads")
    if local and layout.swizzle is not None:
        raise VerifyException(f"layout {layout} of a local buffer is swizzled; swizzles are "
                              "for shared buffers")


def _shape_text(shape: tuple[int, ...] | list[int]) -> str:
    """``[?, 1024]``: a shape as the IR spells it."""
    return "[" + ", ".join("?" if d == DYNAMIC_INDEX else str(d) for d in shape) + "]"


def storage_type(t: MemRefType) -> MemRefType:
    """The 1-D flat storage of a buffer: its span (one thread's registers for ``local``);
    ``memref<?xT>`` for a dynamic buffer."""
    if is_dynamic(t):
        return MemRefType(t.element_type, [DYNAMIC_INDEX], memory_space=t.memory_space)
    return MemRefType(t.element_type, [buffer_layout(t).storage().span()],
                      memory_space=t.memory_space)


def parse_signature(parser: Parser) -> tuple[dict[str, Attribute], Attribute, Attribute]:
    """The tail ``{attrs} : src_type -> dst_type`` of a copy-like op (``regcopy.copy``,
    ``ldmatrix``, ``stmatrix``): ``(attributes, src type, dst type)``."""
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    src_type = parser.parse_type()
    parser.parse_punctuation("->")
    return attrs, src_type, parser.parse_type()


def print_signature(printer: Printer, op: Operation) -> None:
    """Print ``{attrs} : src_type -> dst_type`` of a copy-like op (operands 0 and 1)."""
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")
    printer.print_attribute(op.operands[0].type)
    printer.print_string(" -> ")
    printer.print_attribute(op.operands[1].type)
