"""Strided global buffers: ``memref<?x?xT, strided<[?, 1]>, #regcopy.mem<global>>``, a view
of a larger matrix whose row stride (leading dimension) is a kernel argument.

A kernel argument may carry MLIR's ``strided<[s_0, ..., s_{k-2}, 1]>`` layout: element
``(i_0, ..., i_{k-1})`` lies at ``sum(i_d * s_d)`` from the pointer. Each ``s_d`` is a static
integer ``>= 1`` or ``?`` (a runtime value: the CUDA target passes it as a kernel parameter
after the extents); the innermost stride is 1 (rows are contiguous) and the offset 0. The
runtime strides are read with the standard ``memref.extract_strided_metadata``.

A divisibility promise on the strides is a separate argument attribute,
``{regcopy.stride_divisibility = array<i64: q_0, ..., q_{k-1}>}`` (one entry per dimension,
as ``strided<[...]>`` lists them; 1: no promise; a static stride's entry divides it, so the
innermost entry is 1): stride ``d`` is a multiple of ``q_d``. The pass trusts it (a wide
vector needs every row stride it steps over proven, or tested at run time, a multiple of its
width); the interpreter and the runner refuse a launch that breaks it.

Rows must not overlap: ``s_d >= E_{d+1} * s_{d+1}`` (checked statically where every term is
static, by the runner and the interpreter otherwise).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    MemRefType,
    StridedLayoutAttr,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from regcopy_dialect.attrs import argument_attribute

STRIDE_DIVISIBILITY = "regcopy.stride_divisibility"
"""The kernel-argument attribute promising a strided memref's strides multiples of its
entries (``{regcopy.stride_divisibility = array<i64: 8, 1>}``)."""

__all__ = ["STRIDE_DIVISIBILITY", "argument_stride_divisors", "dynamic_stride_dims",
           "is_strided", "layout_strides", "overlap_problem", "stride_divisibility",
           "stride_promise_problem", "stride_text", "strided_problem", "verify_stride_attrs"]


def is_strided(t: Attribute) -> bool:
    """Whether ``t`` is a memref with a ``strided<[...]>`` layout."""
    return isinstance(t, MemRefType) and isinstance(t.layout, StridedLayoutAttr)


def layout_strides(t: MemRefType) -> tuple[int, ...] | None:
    """The strides of a strided memref, ``DYNAMIC_INDEX`` for each ``?``; None when ``t``
    has no ``strided<[...]>`` layout."""
    if not isinstance(t.layout, StridedLayoutAttr):
        return None
    return tuple(DYNAMIC_INDEX if s is None else s for s in t.layout.get_strides())


def dynamic_stride_dims(t: MemRefType) -> tuple[int, ...]:
    """The dims whose stride is ``?`` (one extra kernel parameter each, after the extents)."""
    strides = layout_strides(t) or ()
    return tuple(d for d, s in enumerate(strides) if s == DYNAMIC_INDEX)


def stride_text(strides: Sequence[int]) -> str:
    """``strided<[?, 1]>``: the layout as the IR spells it."""
    return "strided<[" + ", ".join("?" if s == DYNAMIC_INDEX else str(s)
                                   for s in strides) + "]>"


def strided_problem(t: MemRefType, global_space: bool) -> str | None:
    """Why the ``strided<[...]>`` layout of ``t`` is not one a regcopy buffer takes (None:
    it is): only on global buffers, one stride per dim, the innermost 1, the others ``?`` or
    ``>= 1``, offset 0, rows not overlapping where the strides and sizes are static."""
    layout = t.layout
    assert isinstance(layout, StridedLayoutAttr)
    strides = layout_strides(t) or ()
    shape = t.get_shape()
    text = stride_text(strides)
    if not global_space:
        return (f"{text} on a non-global buffer: strided layouts are for global buffers "
                "(kernel arguments); shared and local buffers take a #regcopy.layout")
    if len(strides) != len(shape):
        return f"{text} has {len(strides)} strides for a rank-{len(shape)} memref"
    if layout.get_offset() != 0:
        return (f"{text} with offset {layout.get_offset() or '?'}: a strided buffer starts "
                "at its pointer; pass the pointer of its first element instead")
    if strides[-1] != 1:
        return (f"{text}: the innermost stride must be 1 (rows are contiguous); copy a "
                "column-strided view through a transposed buffer")
    for d, s in enumerate(strides):
        if s != DYNAMIC_INDEX and s < 1:
            return f"{text}: stride {s} of dim {d} must be >= 1 or ?"
    return overlap_problem(shape, strides)


def overlap_problem(shape: Sequence[int], strides: Sequence[int]) -> str | None:
    """Why rows overlap (``s_d < E_{d+1} * s_{d+1}`` with all three known), None when they
    do not (or cannot be told yet)."""
    for d in range(len(shape) - 1):
        s, e, inner = strides[d], shape[d + 1], strides[d + 1]
        if DYNAMIC_INDEX in (s, e, inner) or e == 1:
            continue
        if s < e * inner:
            return (f"stride {s} of dim {d} is below {e * inner} (extent {e} x stride "
                    f"{inner} of dim {d + 1}): rows would overlap")
    return None


def stride_problem(t: MemRefType, shape: Sequence[int], strides: Sequence[int],
                   divisors: Sequence[int] | None) -> str | None:
    """Why element ``strides`` cannot be those of the strided buffer ``t`` of runtime
    ``shape`` (None: they can): the innermost stride 1, a static stride matched, rows that do
    not overlap, and every stride a multiple of its ``regcopy.stride_divisibility`` entry."""
    want = layout_strides(t) or ()
    text = ", ".join(map(str, strides))
    if strides and strides[-1] != 1 and shape[-1] > 1:
        return (f"has element strides [{text}]: the innermost stride must be 1 (rows are "
                "contiguous)")
    for d, (s, w) in enumerate(zip(strides, want, strict=False)):
        if w != DYNAMIC_INDEX and s != w and shape[d] > 1:
            return f"has stride {s} in dim {d}, the buffer's static stride there is {w}"
    if (problem := overlap_problem(shape, strides)) is not None:
        return f"has element strides [{text}]: {problem}"
    for d, (s, q) in enumerate(zip(strides, divisors or (), strict=False)):
        if s % q and shape[d] > 1:
            listed = ", ".join(str(x) for x in divisors or ())
            return (f"has stride {s} in dim {d}, which breaks its promise "
                    f"{STRIDE_DIVISIBILITY} = array<i64: {listed}> (not a multiple of {q})")
    return None



def stride_promise_problem(attr: Attribute, t: Attribute, name: str) -> str | None:
    """Why ``attr``, found as ``regcopy.stride_divisibility`` on an argument of type ``t``
    (``name`` in the message), is not a valid promise: a strided memref argument, one
    ``i64`` entry ``>= 1`` per dim, a static stride's entry dividing it."""
    if not isinstance(t, MemRefType) or not is_strided(t):
        return (f"{STRIDE_DIVISIBILITY} on {name} of type {t}: only memref arguments with "
                "a strided<[...]> layout have strides to promise")
    strides = layout_strides(t) or ()
    example = ", ".join("8" if s == DYNAMIC_INDEX else "1" for s in strides)
    if not isinstance(attr, DenseArrayBase) or attr.elt_type != i64:
        return (f"{STRIDE_DIVISIBILITY} of {name} must be an array with one divisor per "
                f"stride, such as array<i64: {example}>, got {attr}")
    values = attr.get_values()
    if len(values) != len(strides):
        return (f"{STRIDE_DIVISIBILITY} of {name} has {len(values)} entries for "
                f"{len(strides)} strides; give one per dimension, such as "
                f"array<i64: {example}>")
    for d, (q, s) in enumerate(zip(values, strides, strict=True)):
        if q < 1:
            return (f"{STRIDE_DIVISIBILITY} entry {d} of {name} must be >= 1 (1: no "
                    f"promise), got {q}")
        if s != DYNAMIC_INDEX and s % q:
            return (f"{STRIDE_DIVISIBILITY} entry {d} of {name} is {q}, which does not "
                    f"divide the static stride {s}; use 1 or a divisor of {s}")
    return None


def argument_stride_divisors(kernel: Operation, index: int) -> tuple[int, ...] | None:
    """The entries of argument ``index``'s valid ``regcopy.stride_divisibility``; None
    without one or when it is invalid (the verifier reports that)."""
    attr = argument_attribute(kernel, index, STRIDE_DIVISIBILITY)
    args = _kernel_args(kernel)
    if attr is None or index >= len(args):
        return None
    if stride_promise_problem(attr, args[index].type, "the argument") is not None:
        return None
    assert isinstance(attr, DenseArrayBase)
    return tuple(int(v) for v in attr.get_values())


def stride_divisibility(buffer: SSAValue, dim: int) -> int:
    """What stride ``dim`` of the strided memref ``buffer`` is provably a multiple of: a
    static stride itself; a ``?`` one's ``regcopy.stride_divisibility`` entry when
    ``buffer`` is a kernel argument with a valid promise; else 1."""
    t = buffer.type
    assert isinstance(t, MemRefType)
    strides = layout_strides(t)
    assert strides is not None, f"stride_divisibility of {t}"
    if strides[dim] != DYNAMIC_INDEX:
        return strides[dim]
    kernel = _kernel_of(buffer)
    if kernel is None:
        return 1
    assert isinstance(buffer, BlockArgument)
    divisors = argument_stride_divisors(kernel, buffer.index)
    return divisors[dim] if divisors is not None else 1


def verify_stride_attrs(kernel: Operation) -> str | None:
    """The first invalid ``regcopy.stride_divisibility`` of ``kernel``'s arguments, as a
    message naming the argument; None when all are valid."""
    args = _kernel_args(kernel)
    for i, arg in enumerate(args):
        if (attr := argument_attribute(kernel, i, STRIDE_DIVISIBILITY)) is None:
            continue
        name = f"argument #{i}" + (f" (%{arg.name_hint})" if arg.name_hint else "")
        if (problem := stride_promise_problem(attr, arg.type, name)) is not None:
            return problem
    return None


def _kernel_args(kernel: Operation) -> Sequence[BlockArgument]:
    if not kernel.regions or not kernel.regions[0].blocks:
        return ()
    return kernel.regions[0].blocks.first.args  # type: ignore[union-attr]


def _kernel_of(value: SSAValue) -> Operation | None:
    """The op whose entry block ``value`` is an argument of, or None."""
    if not isinstance(value, BlockArgument) or not isinstance(value.owner, Block):
        return None
    kernel = value.owner.parent_op()
    if kernel is None or not kernel.regions or value.owner is not kernel.regions[0].blocks.first:
        return None
    return kernel

