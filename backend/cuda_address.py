"""Logical indices -> physical element offset of a buffer, as a CUDA C++ expression.

A buffer's layout (its ``#regcopy.layout`` or row-major) is grouped against the buffer shape
(``regcopy_dialect.layout.group``). Index ``i`` of dim ``d`` is decoded into the digits of its
group, ``(i / Q) % E`` for an iter of extent ``E`` with ``Q`` the product of the later extents
in the group (the outermost digit needs no ``% E``); the offset is ``sum(digit * stride)`` over
the memory iters, then the swizzle if any. Thread-axis iters are dropped: a ``local`` buffer is
accessed by the thread that owns the element, so only its register slot matters.

Operands are either ``int`` (a constant, folded here) or the C name of an index value.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import MemRefType

from regcopy_dialect.layout import Iter, Swizzle, group
from regcopy_dialect.regcopy import buffer_layout

Operand = int | str
"""An index operand: a folded constant or a C expression/name."""

INT32_MAX = 2**31 - 1


def int_literal(value: int) -> str:
    """A C integer literal; ``LL`` once the value leaves the 32-bit range."""
    if -INT32_MAX <= value <= INT32_MAX:
        return str(value)
    return f"{value}LL"


def operand_text(x: Operand) -> str:
    return int_literal(x) if isinstance(x, int) else x


def _digit(index: Operand, inner: int, extent: int, outermost: bool) -> Operand:
    """Digit ``(index / inner) % extent`` of a mixed-radix decoding."""
    if isinstance(index, int):
        q = index // inner
        return q if outermost else q % extent
    text = index if inner == 1 else f"{_paren(index)} / {inner}"
    return text if outermost else f"{_paren(text)} % {extent}"


def _paren(text: str) -> str:
    return text if text.isidentifier() or text.isdigit() else f"({text})"


def _scaled(x: Operand, k: int) -> Operand:
    if isinstance(x, int):
        return x * k
    return x if k == 1 else f"{_paren(x)} * {int_literal(k)}"


def sum_terms(terms: Sequence[Operand]) -> Operand:
    """Sum of operands; constants folded into one trailing literal, zeros dropped."""
    const = sum(t for t in terms if isinstance(t, int))
    parts = [t for t in terms if isinstance(t, str)]
    if not parts:
        return const
    if const:
        parts.append(int_literal(const))
    return " + ".join(parts)


def group_offset(members: Sequence[Iter], index: Operand) -> list[Operand]:
    """The memory-offset terms of one dim's ``index`` through its group's iters."""
    terms: list[Operand] = []
    inner = 1
    for it in members:
        inner *= it.extent
    for k, it in enumerate(members):
        inner //= it.extent
        if it.is_thread or it.stride == 0:
            continue
        terms.append(_scaled(_digit(index, inner, it.extent, outermost=k == 0), it.stride))
    return terms


def swizzled(offset: Operand, sw: Swizzle) -> Operand:
    """``offset ^ (((offset >> (M + S)) & (2^B - 1)) << M)``, i.e. SPEC §2.1's swizzle."""
    if isinstance(offset, int):
        return sw.apply(offset)
    if sw.bits == 0:
        return offset
    m = _paren(offset)
    mask = (1 << sw.bits) - 1
    return f"{m} ^ ((({m} >> {sw.m_base + sw.shift}) & {mask}) << {sw.m_base})"


def physical_offset(t: MemRefType, indices: Sequence[Operand]) -> Operand:
    """The element offset, inside the buffer's flat storage, of the logical ``indices``."""
    shape = t.get_shape()
    if len(indices) != len(shape):
        raise ValueError(f"{len(indices)} indices for a rank-{len(shape)} buffer {t}")
    layout = buffer_layout(t)
    groups = group(layout.without_swizzle(), shape)
    terms: list[Operand] = []
    for members, index in zip(groups, indices, strict=True):
        terms.extend(group_offset(members, index))
    offset = sum_terms(terms)
    if layout.swizzle is not None:
        offset = swizzled(offset, layout.swizzle)
    return offset
