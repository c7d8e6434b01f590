"""regcopy's IR: the layout algebra (``layout``, pure Python) and the ``regcopy`` dialect.

The Python API is importable from here (loaded on first use, so that ``regcopy_dialect.layout``
stays importable without xDSL):

* ``parse_layout(text)`` -> ``Layout``; ``regcopy_context()`` -> an xDSL ``Context`` with every
  dialect a regcopy program uses; ``parse_module(text)``;
* buffer types ``local_buffer_type``, ``shared_buffer_type``, ``global_buffer_type``,
  ``buffer_type``; ``kernel(name, params, block=, grid=)`` (a context manager building a kernel
  ``func.func``), ``copy(scope, src, dst, src_region=, dst_region=)``, ``module(*kernels)``;
* ``layout_text(layout, shape)`` / ``layout_svg(layout, shape)``: pictures of a layout;
* ``ELEMENT_TABLE`` / ``element_info(type)``: the supported element types (``ElementType``:
  IR name, bits, xDSL type, CUDA type name, numpy dtype);
* ``divisibility_of(value)``: the divisor a ``regcopy.divisibility`` argument attribute or a
  ``regcopy.multiple_of`` promises for a value;
* ``cute_order_note(swizzle)``: a note when ``swizzle<M,B,S>`` read in CuTe's order
  ``Swizzle<B,M,S>`` is another valid swizzle.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "Layout": "layout", "Iter": "layout", "Swizzle": "layout", "LayoutError": "layout",
    "regcopy_context": "context",
    "parse_layout": "builders", "LayoutSyntaxError": "builders", "parse_module": "builders",
    "buffer_type": "builders", "local_buffer_type": "builders",
    "shared_buffer_type": "builders", "global_buffer_type": "builders",
    "kernel": "builders", "KernelBuilder": "builders", "copy": "builders", "module": "builders",
    "element_type": "builders",
    "ElementType": "element_types", "ELEMENT_TABLE": "element_types",
    "element_info": "element_types",
    "divisibility_of": "promises", "cute_order_note": "swizzle_syntax",
    "layout_text": "viz", "layout_svg": "viz",
}

__all__ = sorted(_EXPORTS)  # noqa: PLE0605 - the lazy exports, listed once above


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'regcopy_dialect' has no attribute {name!r}")
    return getattr(import_module(f"regcopy_dialect.{_EXPORTS[name]}"), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
