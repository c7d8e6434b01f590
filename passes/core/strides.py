"""The element strides of a dynamic global buffer, as the lowering emits them: one helper for
the register copies (``emit_bounds``), ``cp.async`` (``emit_async_bounds``) and element
accesses (``lower_layout_access``), so that all three address a buffer alike.

* A row-major buffer (no layout): ``stride_{k-1} = 1``, ``stride_i = E_{i+1} * stride_{i+1}``
  (``E`` the extents, static sizes or ``memref.dim``).
* A ``strided<[s_0, ..., 1]>`` buffer: each static ``s_i`` is an integer; the ``?`` ones are
  results of ONE ``memref.extract_strided_metadata`` of the buffer (the CUDA target prints
  them as the stride parameters, the interpreter reads the array's strides).
"""

from __future__ import annotations

from collections.abc import Callable

from regcopy_passes.core.index_builder import IndexBuilder, Value
from xdsl.dialects import memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType
from xdsl.ir import SSAValue

from regcopy_dialect.strided import layout_strides

__all__ = ["buffer_strides"]



def buffer_strides(b: IndexBuilder, buf: SSAValue, extent: Callable[[int], Value]
                   ) -> list[Value]:
    """The element stride of each dim of ``buf`` (see the module doc); ``extent(i)`` gives
    extent ``i`` (emitted by the caller, once). Runtime strides are named ``s<i>``."""
    t = buf.type
    assert isinstance(t, MemRefType)
    rank = len(t.get_shape())
    strides = layout_strides(t)
    if strides is None:
        out: list[Value] = [1] * rank
        for i in range(rank - 2, -1, -1):
            out[i] = b.times(out[i + 1], extent(i + 1))
        return out
    if DYNAMIC_INDEX not in strides:
        return list(strides)
    meta = memref.ExtractStridedMetaDataOp(buf)
    b.emit(meta)
    dynamic: list[Value] = []
    for i, s in enumerate(strides):
        if s != DYNAMIC_INDEX:
            dynamic.append(s)
            continue
        value = meta.strides[i]
        value.name_hint = f"s{i}"
        dynamic.append(value)
    return dynamic
