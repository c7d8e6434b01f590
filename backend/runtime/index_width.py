"""The index width of one launch of a runtime-shaped kernel: 32-bit when every offset it can
form fits in a signed ``int``, else 64-bit.

A kernel touching runtime-shaped buffers (``KernelInfo.index_switch``) is printed with its
index math in ``rc_index``: ``long long`` as printed, ``int`` when the source is compiled with
``-DREGCOPY_INDEX32``. Both compiles take the same arguments (extents, strides and ``index``
scalars are ``long long`` parameters), so the runner picks the width per launch from the
actual arguments and compiles (and caches) that variant: the small case never pays for the
large one. Pure functions, no CUDA.

What must fit (``INT32_MAX = 2^31 - 1``), with ``h = KernelInfo.index_overhang`` (twice the
kernel's largest tile dimension: how far past an extent an edge tile, or a prefetch of the
next tiles, forms offsets of masked-off elements):

* per runtime-shaped buffer of extents ``E_i`` and element strides ``s_i`` (a strided view's
  own, leading dimension included; row-major otherwise), its **reach**
  ``sum((E_i - 1 + h) * s_i)``: the largest offset of an element up to ``h`` past the extent
  in every dimension at once. A ``regcopy.storage`` alias of the buffer addresses the same
  elements (its flat span), so the reach covers it;
* per ``index`` scalar ``v``: ``|v| + h`` must not exceed the largest reach (an ``index``
  scalar is a position or an extent in the buffers; one beyond them is taken as a sign of
  offsets we cannot bound);
* the grid: ``blocks * max(block, h)`` (a linear block id times a tile, or a global thread id);
* static buffers keep the printer's rule (one of 2^31 elements or more makes the kernel
  ``long long`` throughout; ``index_switch`` is then False).

A grid that sends CTAs wholly past a buffer by more than the overhang forms offsets that may
wrap in 32 bits; the kernel's bounds checks are on the indices, not the offsets, so those
elements stay masked off and nothing is read or written there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import IndexType

from regcopy_backend.cuda.kernel_info import KernelInfo, KernelParam, ScalarParam
from regcopy_backend.runtime.arguments import ArrayArg
from regcopy_backend.runtime.strided_host import view_strides
from regcopy_dialect.radix import suffix_product

INT32_MAX = 2**31 - 1


def reach(shape: Sequence[int], strides: Sequence[int], overhang: int) -> int:
    """The largest offset (elements) of an element at most ``overhang`` past the extents of
    a buffer of ``shape`` and element ``strides`` in every dimension:
    ``sum((E_i - 1 + overhang) * s_i)``; 0 for an empty buffer (nothing launches)."""
    if 0 in shape:
        return 0
    return sum((e - 1 + overhang) * abs(s) for e, s in zip(shape, strides, strict=True))


def index32_problem(info: KernelInfo, shapes: Sequence[Sequence[int]],
                    strides: Sequence[Sequence[int] | None] | None = None,
                    scalars: Sequence[int] = (), grid: Sequence[int] = (1, 1, 1)
                    ) -> str | None:
    """Why a launch of ``info``'s kernel needs 64-bit index math, or None when 32-bit fits.

    ``shapes`` holds one shape per buffer parameter (``info.buffers``, in order; a static
    buffer's is ignored), ``strides`` its element strides (None, or a None entry: row-major),
    ``scalars`` the value of each ``index`` scalar parameter, in order, ``grid`` the launch
    grid. A kernel without ``index_switch`` never takes 32-bit math this way."""
    if not info.index_switch:
        return f"kernel {info.name} has no switchable index width"
    h = info.index_overhang
    buffers = info.buffers
    if len(shapes) != len(buffers):
        raise ValueError(f"kernel {info.name} has {len(buffers)} buffers, got "
                         f"{len(shapes)} shapes")
    widest = 0
    for k, (p, shape) in enumerate(zip(buffers, shapes, strict=True)):
        if not p.dynamic:
            continue
        given = strides[k] if strides is not None else None
        s = tuple(given) if given is not None else suffix_product(tuple(shape))
        r = reach(shape, s, h)
        if r > INT32_MAX:
            return (f"buffer '{p.name}' of shape {'x'.join(map(str, shape))} (strides "
                    f"{','.join(map(str, s))}) reaches offset {r} with an overhang of {h}, "
                    f"over {INT32_MAX}")
        widest = max(widest, r)
    names = index_scalar_names(info)
    if len(scalars) != len(names):
        raise ValueError(f"kernel {info.name} has {len(names)} index scalars, got "
                         f"{len(scalars)} values")
    for name, v in zip(names, scalars, strict=True):
        if abs(int(v)) + h > min(widest, INT32_MAX):
            return (f"index scalar %{name} = {v} (+ an overhang of {h}) exceeds the "
                    f"buffers' reach {widest}")
    blocks = 1
    for g in grid:
        blocks *= int(g)
    if blocks * max(info.block, h) > INT32_MAX:
        return (f"grid of {blocks} CTAs x {max(info.block, h)} (block or overhang) is over "
                f"{INT32_MAX}")
    return None


def index_scalar_names(info: KernelInfo) -> list[str]:
    """The names of the ``index`` scalar parameters of ``info``, in order."""
    return [p.name for p in info.params
            if isinstance(p, ScalarParam) and isinstance(p.type, IndexType)]


def index_scalar_values(info: KernelInfo, args: Sequence[object]) -> list[int]:
    """The values of the ``index`` scalar arguments among ``args`` (one per parameter)."""
    return [int(a) for p, a in zip(info.params, args, strict=True)  # type: ignore[call-overload]
            if isinstance(p, ScalarParam) and isinstance(p.type, IndexType)]


def fits_index32(info: KernelInfo, shapes: Sequence[Sequence[int]],
                 grid: Sequence[int] = (1, 1, 1), scalars: Sequence[int] = (),
                 strides: Sequence[Sequence[int] | None] | None = None) -> bool:
    """Whether a launch of ``info``'s kernel on buffers of ``shapes`` (row-major unless
    ``strides`` says otherwise) may use the 32-bit compile (``index32_problem`` is None)."""
    return index32_problem(info, shapes, strides, scalars, grid) is None


def launch_index32(info: KernelInfo, args: Sequence[Any], arrays: Sequence[ArrayArg | None],
                   grid3: Sequence[int]) -> bool:
    """Whether this launch of ``info``'s kernel (``args``, one per parameter, and their
    ``ArrayArg``s from ``check_arguments``) takes the 32-bit compile: a kernel with a
    switchable index width whose every offset fits (``index32_problem``, on the arrays'
    shapes, a numpy view's own strides, the ``index`` scalars and the grid)."""
    if not info.index_switch:
        return False
    shapes: list[tuple[int, ...]] = []
    strides: list[tuple[int, ...] | None] = []
    for p, a, arr in zip(info.params, args, arrays, strict=True):
        if isinstance(p, KernelParam) and arr is not None:
            shapes.append(arr.shape)
            strides.append(view_strides(p.type, a) if p.strided and isinstance(a, np.ndarray)
                           else None)  # a device array is contiguous: row-major
    return index32_problem(info, shapes, strides, index_scalar_values(info, args),
                           grid3) is None
