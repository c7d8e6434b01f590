"""Host arrays for strided buffers (``memref<?x?xT, strided<[?, 1]>>``): numpy views of a
larger array, such as ``A[:, :100]`` of a ``1000 x 4096`` matrix.

A view of shape ``(E_0, ..., E_{k-1})`` with element strides ``(s_0, ..., s_{k-1})``
(``s_{k-1} = 1``) covers ``span = 1 + sum((E_i - 1) * s_i)`` elements of its base array,
from its first element on: that **span** is what the kernel's pointer addresses. The runner
copies the span to the device (the gaps between rows travel too and come back unchanged:
the kernel never writes them) and hands back the view's elements; the CPU interpreter holds
the span as the buffer's storage. Pure numpy, no CUDA: the checks run before any launch.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType

from regcopy_dialect.strided import layout_strides, stride_problem  # noqa: F401 - re-exported

__all__ = ["from_span", "span_of", "stride_problem", "view_strides"]


def view_strides(t: MemRefType, a: np.ndarray) -> tuple[int, ...]:
    """The element strides of the view ``a`` for the strided buffer type ``t``: numpy's byte
    strides divided by the item size. A dim of extent 1 takes the type's static stride, or
    the least one that keeps rows apart (numpy gives such dims any stride). ``ValueError``
    for a stride that is not a whole, non-negative number of elements."""
    static = layout_strides(t) or (DYNAMIC_INDEX,) * a.ndim
    if a.ndim != len(static):
        raise ValueError(f"has rank {a.ndim}, the buffer has rank {len(static)}")
    out = [1] * a.ndim
    for d in range(a.ndim - 1, -1, -1):
        if a.shape[d] == 1:
            inner = out[d + 1] * a.shape[d + 1] if d + 1 < a.ndim else 1
            out[d] = static[d] if static[d] != DYNAMIC_INDEX else inner
            continue
        byte = a.strides[d]
        if byte < 0 or byte % a.itemsize:
            raise ValueError(f"has a stride of {byte} bytes in dim {d}, not a non-negative "
                             f"multiple of its {a.itemsize}-byte elements")
        out[d] = byte // a.itemsize
    return tuple(out)


def span_size(shape: Sequence[int], strides: Sequence[int]) -> int:
    """Elements from a view's first element to its last: ``1 + sum((E_i - 1) * s_i)``."""
    return 1 + sum((e - 1) * s for e, s in zip(shape, strides, strict=True))


def span_of(a: np.ndarray, strides: Sequence[int]) -> np.ndarray:
    """The 1-D span of the view ``a`` (element strides ``strides``): a view into ``a``'s base,
    from its first element to its last, gaps between rows included."""
    n = span_size(a.shape, strides)
    return np.lib.stride_tricks.as_strided(a, shape=(n,), strides=(a.itemsize,),
                                           writeable=False)


def from_span(span: np.ndarray, shape: Sequence[int], strides: Sequence[int]) -> np.ndarray:
    """The elements of a view of ``shape`` and element ``strides`` over ``span``, as a new
    contiguous array (what a launch hands back for a strided buffer)."""
    item = span.itemsize
    view = np.lib.stride_tricks.as_strided(span, shape=tuple(shape),
                                           strides=tuple(s * item for s in strides),
                                           writeable=False)
    return np.array(view)
