"""The attributes of the ``regcopy`` dialect that describe data: ``#regcopy.mem<...>`` (a
buffer's memory space), ``#regcopy.exec<...>`` (the threads that run a copy together) and
``#regcopy.layout<...>`` (where each element of a tile lives)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntAttr, MemRefLayoutAttr, StringAttr
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Operation, ParametrizedAttribute
from xdsl.ir.affine import AffineMap
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from regcopy_dialect.layout import (
    THREAD_AXES,
    Iter,
    Layout,
    Scope,
    Swizzle,
    axis_overflow,
    is_injective,
    thread_map_injective,
)
from regcopy_dialect.swizzle_syntax import parse_swizzle, parse_xor, swizzle_problem
from regcopy_dialect.xor_map import XorMap, XorSwizzle, bases_problem

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
    """Parse ``extents:strides[, swizzle<M,B,S>]`` (or the swizzle's keyword form, see
    ``swizzle_syntax``); every rule is checked here so that a bad layout is a parse error
    with ``file:line:col``."""

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

    def iters(what: str) -> tuple[Iter, ...]:
        start = parser.pos
        extents = _parse_int_list(parser, extent)
        parser.parse_punctuation(":", f" between {what} extents and strides")
        strides = _parse_int_list(parser, stride)
        if len(extents) != len(strides):
            parser.raise_error(f"{what} has {len(extents)} extents but {len(strides)} strides",
                               start, parser.pos)
        return tuple(Iter(e, st, ax) for e, (st, ax) in zip(extents, strides))

    start = parser.pos
    main = iters("layout")
    swizzle: XorMap | None = None
    replicas: tuple[Iter, ...] = ()
    if parser.parse_optional_punctuation(",") is not None:
        kw_start = parser.pos
        if parser.parse_optional_keyword("replicate") is not None:
            replicas = parse_replicas(parser, lambda: iters("replicate"))
            if parser.parse_optional_punctuation(",") is not None:
                parser.raise_error("nothing may follow replicate<...>: replicas are for local "
                                   "buffers, swizzles for shared ones", kw_start, parser.pos)
        elif parser.parse_optional_keyword("swizzle") is not None:
            swizzle = parse_swizzle(parser, kw_start)
        elif parser.parse_optional_keyword("xor") is not None:
            swizzle = parse_xor(parser, kw_start)
        else:
            parser.raise_error("expected 'swizzle<M,B,S>', 'xor<bit:mask, ...>' or "
                               "'replicate<extents:strides>' after the layout iters",
                               kw_start, parser.pos + 1)
    layout = Layout(main, swizzle, replicas)
    if (problem := layout_problem(layout)) is not None:
        parser.raise_error(problem, start, parser.pos)
    return layout


def parse_replicas(parser: AttrParser, iters: Callable[[], tuple[Iter, ...]]
                   ) -> tuple[Iter, ...]:
    """``<extents:strides>`` after ``replicate``: iters whose strides all name a thread
    axis (a replica moves the owner, never the register slot)."""
    with parser.in_angle_brackets():
        start = parser.pos
        replicas = iters()
    if (bad := next((i for i in replicas if not i.is_thread), None)) is not None:
        parser.raise_error(f"replicate iter {bad} has no thread axis; replica strides must "
                           f"name one (e.g. 16@laneid): {AXIS_NAMES}", start, parser.pos)
    return replicas


def layout_problem(layout: Layout) -> str | None:
    """The first rule that ``layout`` breaks on its own (no buffer needed): replicas are on
    thread axes, a bounded thread axis stays inside its range (replicas included), distinct
    (element, replica) pairs have distinct owners or distinct elements distinct memory
    offsets."""
    if (bad := next((i for i in layout.replicas if not i.is_thread), None)) is not None:
        return f"replicate iter {bad} has no thread axis; replica strides must name one"
    if layout.replicas and layout.swizzle is not None:
        return f"layout {layout} has both replicas and a swizzle; replicas are for local " \
               "buffers, swizzles for shared ones"
    if (over := axis_overflow(layout)) is not None:
        name, top, period = over
        return f"thread axis '{name}' reaches {top} but ranges over 0..{period - 1}"
    if not thread_map_injective(layout):
        what = "two (element, replica) pairs" if layout.replicas else "two elements"
        return f"layout {layout} is not injective: {what} have the same owner threads"
    if not is_injective(layout.memory_iters):
        return f"layout {layout} is not injective: two elements share a memory offset"
    return None


@irdl_attr_definition
class LayoutAttr(MemRefLayoutAttr, ParametrizedAttribute):
    """``#regcopy.layout<extents:strides[, swizzle<M,B,S> | replicate<extents:strides>]>``: a
    TIRx ``TileLayout`` (see ``regcopy_dialect.layout``), held as four arrays and the
    replicas, each ``[extent, stride, axis]``."""

    name = "regcopy.layout"

    extents: ArrayAttr[IntAttr]
    strides: ArrayAttr[IntAttr]
    axes: ArrayAttr[StringAttr]  # "" for the memory axis
    swizzle: ArrayAttr[IntAttr]  # empty or [M, B, S]
    xor: ArrayAttr[IntAttr]  # xor<i:b, ...> as [i0, b0, i1, b1, ...]; empty otherwise
    replicate: ArrayAttr[ArrayAttr[Attribute]]  # [[extent, stride, axis], ...]
    """``#regcopy.layout<auto>`` (a physical layout for ``choose-shared-layouts`` to choose)
    has no iters: all arrays empty."""

    @staticmethod
    def from_layout(layout: Layout) -> LayoutAttr:
        sw = layout.swizzle
        mbs = (sw.m_base, sw.bits, sw.shift) if isinstance(sw, Swizzle) else ()
        xor = [v for pair in sw.bases for v in pair] if isinstance(sw, XorSwizzle) else []
        return LayoutAttr(
            ArrayAttr(IntAttr(i.extent) for i in layout.iters),
            ArrayAttr(IntAttr(i.stride) for i in layout.iters),
            ArrayAttr(StringAttr(i.axis or "") for i in layout.iters),
            ArrayAttr(IntAttr(v) for v in mbs),
            ArrayAttr(IntAttr(v) for v in xor),
            ArrayAttr(ArrayAttr((IntAttr(i.extent), IntAttr(i.stride), StringAttr(i.axis or "")))
                      for i in layout.replicas),
        )

    @staticmethod
    def auto() -> LayoutAttr:
        """``#regcopy.layout<auto>``."""
        empty: ArrayAttr[Any] = ArrayAttr(())
        return LayoutAttr(empty, empty, empty, empty, empty, empty)

    @property
    def is_auto(self) -> bool:
        return not self.extents.data

    @property
    def layout(self) -> Layout:
        iters = tuple(Iter(e.data, s.data, a.data or None)
                      for e, s, a in zip(self.extents, self.strides, self.axes))
        sw: XorMap | None = (Swizzle(*(v.data for v in self.swizzle)) if self.swizzle.data
                             else XorSwizzle(self._xor_bases()) if self.xor.data else None)
        return Layout(iters, sw, tuple(_replica_iter(r) for r in self.replicate))

    def _xor_bases(self) -> tuple[tuple[int, int], ...]:
        flat = [v.data for v in self.xor]
        return tuple(zip(flat[0::2], flat[1::2], strict=True))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            if parser.parse_optional_keyword("auto") is not None:
                attr = cls.auto()
            else:
                attr = cls.from_layout(parse_layout_body(parser))
        return (attr.extents, attr.strides, attr.axes, attr.swizzle, attr.xor, attr.replicate)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<auto>" if self.is_auto else f"<{self.layout}>")

    def verify(self) -> None:
        if not (len(self.extents) == len(self.strides) == len(self.axes)):
            raise VerifyException("layout extents, strides and axes differ in length")
        if len(self.swizzle) not in (0, 3):
            raise VerifyException("layout swizzle must be empty or [M, B, S]")
        if self.swizzle.data and self.xor.data:
            raise VerifyException("a layout has one swizzle: swizzle<M,B,S> or xor<...>")
        if len(self.xor) % 2:
            raise VerifyException("layout xor bases must be [bit, mask] pairs")
        if self.is_auto:
            if self.swizzle.data or self.xor.data:
                raise VerifyException("#regcopy.layout<auto> has no swizzle")
            return
        if self.xor.data and (problem := bases_problem(self._xor_bases())) is not None:
            raise VerifyException(problem)
        if self.swizzle.data:
            m, b, s = (v.data for v in self.swizzle)
            if (problem := swizzle_problem(m, b, s)) is not None:
                raise VerifyException(problem)
        for r in self.replicate:
            if not (len(r) == 3 and isinstance(r.data[0], IntAttr)
                    and isinstance(r.data[1], IntAttr) and isinstance(r.data[2], StringAttr)):
                raise VerifyException("layout replicas must be [extent, stride, axis] triples")
            if r.data[0].data < 1 or r.data[1].data < 0:  # type: ignore[union-attr]
                raise VerifyException("replica extents must be >= 1 and strides >= 0")
        for a in [*self.axes, *(r.data[2] for r in self.replicate)]:
            assert isinstance(a, StringAttr)
            if a.data and a.data not in THREAD_AXES:
                raise VerifyException(f"unknown thread axis '{a.data}'; expected one of "
                                      f"{AXIS_NAMES}")
        if (problem := layout_problem(self.layout)) is not None:
            raise VerifyException(problem)

    def get_affine_map(self) -> AffineMap:
        raise NotImplementedError("a #regcopy.layout is not an affine map; use .layout")


def _replica_iter(r: ArrayAttr[Attribute]) -> Iter:
    """A ``[extent, stride, axis]`` triple of ``LayoutAttr.replicate`` as an ``Iter``."""
    e, st, ax = r.data
    assert isinstance(e, IntAttr) and isinstance(st, IntAttr) and isinstance(ax, StringAttr)
    return Iter(e.data, st.data, ax.data or None)


def argument_attribute(kernel: Operation, index: int, name: str) -> Attribute | None:
    """The raw attribute ``name`` on argument ``index`` of the ``func.func`` ``kernel``
    (``{regcopy.divisibility = ...}``, ``{regcopy.stride_divisibility = ...}``), if any."""
    arg_attrs = kernel.properties.get("arg_attrs") or kernel.attributes.get("arg_attrs")
    if not isinstance(arg_attrs, ArrayAttr) or index >= len(arg_attrs.data):
        return None
    attrs = arg_attrs.data[index]
    return attrs.data.get(name) if isinstance(attrs, DictionaryAttr) else None
