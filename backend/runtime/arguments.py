"""The launch arguments of a kernel, checked against its signature before anything runs.

``check_arguments(info, args)`` is the one gate every launch goes through (``run_kernel``,
``regcopy-run``): one argument per parameter; per buffer an array whose element type, shape
and size are the buffer's (``ArrayArg`` describes a host numpy array, a CUDA array — anything
with ``__cuda_array_interface__``, a torch tensor — or a DLPack capsule provider), whose
dynamic extents keep the ``regcopy.divisibility`` promise; per scalar a number in range that
keeps its promise. A bad argument is one ``ArgumentError`` line naming it; nothing has been
launched or copied yet. ``empty_launch`` says when a dynamic buffer has an extent 0: there is
nothing to do, and the caller launches nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from regcopy_backend.cuda.kernel_info import KernelInfo, KernelParam
from regcopy_backend.host_data import numpy_dtype
from regcopy_backend.runtime.strided_host import stride_problem, view_strides
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    IntegerType,
    Signedness,
)

from regcopy_dialect.radix import suffix_product


class ArgumentError(ValueError):
    """A launch argument does not fit its parameter (kind, element type, shape, size, range
    or divisibility promise); the message is one line."""


@dataclass(frozen=True)
class ArrayArg:
    """What the launch needs to know of an array argument. ``dtype`` is a dtype name in
    numpy's spelling (``float32``, ``uint16``; ``bfloat16``/``float8_e4m3fn``/``float8_e5m2``
    for arrays that have those types); ``pointer`` is the device address of a device array
    (None: a host numpy array, copied to the device and back); ``contiguous``: row-major
    without gaps (a device array is used in place, so it must be)."""

    shape: tuple[int, ...]
    dtype: str
    itemsize: int
    pointer: int | None = None
    contiguous: bool = True

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        return self.size * self.itemsize


def _c_contiguous(shape: Sequence[int], strides: Sequence[int] | None, itemsize: int) -> bool:
    """Whether byte ``strides`` (None: row-major) are those of a row-major ``shape``."""
    if strides is None:
        return True
    step = itemsize
    for n, s in zip(reversed(shape), reversed(strides), strict=True):
        if n > 1 and s != step:
            return False
        step *= n
    return True


def _torch_array(t: Any) -> ArrayArg:
    """A torch tensor (duck-typed: ``data_ptr``, ``element_size``, ``is_cuda``); its dtype
    name without the ``torch.`` prefix (``bfloat16`` included, which the CUDA array interface
    cannot describe)."""
    shape = tuple(int(n) for n in t.shape)
    itemsize = int(t.element_size())
    strides = tuple(int(s) * itemsize for s in t.stride())
    return ArrayArg(shape, str(t.dtype).removeprefix("torch."), itemsize,
                    int(t.data_ptr()) if t.is_cuda else None,
                    _c_contiguous(shape, strides, itemsize))


def _cuda_interface_array(a: Any) -> ArrayArg:
    """An object with ``__cuda_array_interface__`` (version 2 or 3: shape, typestr, data,
    strides in bytes or None for row-major)."""
    cai = a.__cuda_array_interface__
    shape = tuple(int(n) for n in cai["shape"])
    dtype = np.dtype(cai["typestr"])
    strides = cai.get("strides")
    return ArrayArg(shape, dtype.name, dtype.itemsize, int(cai["data"][0]),
                    _c_contiguous(shape, strides, dtype.itemsize))


def _dlpack_array(a: Any) -> ArrayArg:
    """A DLPack provider on a CUDA device, viewed through ``cuda.core``'s
    ``StridedMemoryView`` (no copy)."""
    try:
        from cuda.core.utils import StridedMemoryView
    except ImportError:
        from cuda.core.experimental.utils import StridedMemoryView
    view = StridedMemoryView(a, stream_ptr=-1)
    if not view.is_device_accessible:
        raise ArgumentError("a DLPack array on the host: pass it as a numpy array")
    dtype = np.dtype(view.dtype)
    shape = tuple(int(n) for n in view.shape)
    strides = None if view.strides is None else tuple(int(s) * dtype.itemsize
                                                      for s in view.strides)
    return ArrayArg(shape, dtype.name, dtype.itemsize, int(view.ptr),
                    _c_contiguous(shape, strides, dtype.itemsize))


def array_arg(a: Any) -> ArrayArg | None:
    """``a`` as an ``ArrayArg``, or None when it is no array (a scalar, a list...)."""
    if isinstance(a, np.ndarray):
        return ArrayArg(tuple(a.shape), a.dtype.name, a.dtype.itemsize)
    if all(hasattr(a, k) for k in ("data_ptr", "element_size", "is_cuda", "stride")):
        return _torch_array(a)
    if hasattr(a, "__cuda_array_interface__"):
        return _cuda_interface_array(a)
    if hasattr(a, "__dlpack__") and hasattr(a, "__dlpack_device__"):
        return _dlpack_array(a)
    return None


RAW_BITS_NAMES: dict[type, str] = {BFloat16Type: "bfloat16", Float8E4M3FNType: "float8_e4m3fn",
                                   Float8E5M2Type: "float8_e5m2"}
"""Element types that numpy holds as raw bits, and the dtype name of arrays (torch,
ml_dtypes) that hold them as themselves."""


def accepted_dtypes(p: KernelParam) -> tuple[str, ...]:
    """The dtype names an array for buffer ``p`` may have: the host type of its element
    (raw bits for bf16/fp8, which are also accepted as themselves), and for a signless
    integer both signednesses of its width (the bits are the same)."""
    t = p.type.element_type
    names = [numpy_dtype(t).name]
    if (own := RAW_BITS_NAMES.get(type(t))) is not None:
        names.append(own)
    if isinstance(t, IntegerType) and t.signedness.data == Signedness.SIGNLESS:
        names.append(f"uint{t.width.data}")
    return tuple(names)


def _spelled(shape: Sequence[int]) -> str:
    return "x".join("?" if d < 0 else str(d) for d in shape) or "scalar"


def check_array(kernel: str, p: KernelParam, a: ArrayArg, index64: bool,
                view: np.ndarray | None = None) -> None:
    """Refuse an array that cannot be buffer ``p``: another element type, a static buffer's
    array that is neither its logical shape nor its physical span flat (``p.elements``
    elements, 1-D), a dynamic buffer's shape that does not fit (``check_extents``), a strided
    buffer's strides that do not fit (``check_view``: those of the numpy ``view``, row-major
    for a device array), or a device array that is not contiguous (it is used in place)."""
    where = f"kernel {kernel}: array for '{p.name}'"
    if a.dtype not in (ok := accepted_dtypes(p)):
        raise ArgumentError(f"{where} has dtype {a.dtype}, the buffer holds "
                            f"{p.type.element_type} (pass {' or '.join(ok)}); refusing to "
                            "launch")
    if a.pointer is not None and not a.contiguous:
        raise ArgumentError(f"{where} of shape {_spelled(a.shape)} is not contiguous; pass a "
                            "contiguous (row-major) array; refusing to launch")
    if p.dynamic:
        check_extents(kernel, p, a.shape, index64)
        if p.strided:
            check_view(kernel, p, a.shape, view)
        return
    span, shape = p.elements, p.shape
    fits = (a.shape == shape and span == int(np.prod(shape))) or a.shape == (span,)
    if not fits:
        options = [f"shape {_spelled(shape)}"] if span == int(np.prod(shape)) else []
        if not options or len(shape) != 1:
            options.append(f"{span} elements flat (its physical span)")
        raise ArgumentError(f"{where} has shape {_spelled(a.shape)} ({a.size} elements), "
                            f"the buffer {p.type} spans {span}: pass {' or '.join(options)}; "
                            "refusing to launch")


def check_extents(kernel: str, p: KernelParam, shape: Sequence[int], index64: bool) -> None:
    """Refuse (``ArgumentError``, one line naming the argument) an array shape that cannot be
    the dynamic buffer ``p``: the wrong rank or a static size, a negative extent, over the
    index range, or one that breaks ``p``'s ``regcopy.divisibility`` promise (an extent 0
    is accepted: ``empty_launch``). Pure: it runs before any CUDA call."""
    from regcopy_backend.interpreter.extents import divisor_problem, shape_problem

    problem = shape_problem(p.type, shape, allow_empty=True) or divisor_problem(shape,
                                                                              p.divisors)
    limit = 2**63 - 1 if index64 else 2**31 - 1
    if problem is None and int(np.prod(shape, dtype=np.float64)) > limit:
        problem = f"has {int(np.prod(shape))} elements, over the index range ({limit})"
    if problem is not None:
        raise ArgumentError(f"kernel {kernel}: array for '{p.name}' of shape "
                            f"{'x'.join(map(str, shape))} {problem}; refusing to launch")


def check_view(kernel: str, p: KernelParam, shape: Sequence[int],
               view: np.ndarray | None) -> None:
    """Refuse (``ArgumentError``, one line) strides that cannot be the strided buffer ``p``'s
    (``strided_host.stride_problem``: innermost 1, static strides matched, rows apart,
    ``regcopy.stride_divisibility`` kept): the numpy ``view``'s, or row-major for a device
    array (None)."""
    try:
        strides = suffix_product(tuple(shape)) if view is None else view_strides(p.type, view)
        problem = stride_problem(p.type, shape, strides, p.stride_divisors)
    except ValueError as e:
        problem = str(e)
    if problem is not None:
        raise ArgumentError(f"kernel {kernel}: array for '{p.name}' of shape "
                            f"{'x'.join(map(str, shape))} {problem}; refusing to launch")


def _check_scalar(kernel: str, p: Any, a: Any) -> None:
    if p.dtype.kind == "f":
        if not isinstance(a, int | float | np.integer | np.floating):
            raise ArgumentError(f"kernel {kernel}: argument %{p.name} is {p.type}; "
                                f"pass a number, not {type(a).__name__}")
        return
    if isinstance(a, bool) or not isinstance(a, int | np.integer):
        raise ArgumentError(f"kernel {kernel}: argument %{p.name} is {p.type}; pass an "
                            f"int, not {type(a).__name__}")
    if (why := p.check(int(a))) is not None:
        raise ArgumentError(f"kernel {kernel}: argument %{p.name} {why}; refusing to launch")


def signature(info: KernelInfo) -> str:
    """``%A: memref<...>, %K: index`` — the parameters as an error message lists them."""
    return ", ".join(f"%{p.name}: {'buffer' if isinstance(p, KernelParam) else p.type}"
                     for p in info.params)


def check_arguments(info: KernelInfo, args: Sequence[Any]) -> list[ArrayArg | None]:
    """Refuse (``ArgumentError``, one line) arguments that do not fit ``info.params``: one per
    parameter; for a buffer an array (``array_arg``) that ``check_array`` accepts; for an
    integer/index scalar a Python/numpy integer in range that keeps its
    ``regcopy.divisibility`` promise (a number for f32/f64). Returns the ``ArrayArg`` of each
    argument (None for scalars)."""
    kernel = info.name
    if len(args) != len(info.params):
        raise ArgumentError(f"kernel {kernel} takes {len(info.params)} arguments "
                            f"({signature(info)}), got {len(args)}")
    out: list[ArrayArg | None] = []
    for p, a in zip(info.params, args, strict=True):
        if not isinstance(p, KernelParam):
            _check_scalar(kernel, p, a)
            out.append(None)
            continue
        arr = array_arg(a)
        if arr is None:
            raise ArgumentError(f"kernel {kernel}: argument %{p.name} is a buffer; pass "
                                f"a numpy array or a CUDA array, not {type(a).__name__}")
        check_array(kernel, p, arr, info.index64, a if isinstance(a, np.ndarray) else None)
        out.append(arr)
    return out


def empty_launch(info: KernelInfo, arrays: Sequence[ArrayArg | None]) -> str | None:
    """Why there is nothing to launch — a dynamic buffer with an extent 0 — else None."""
    for p, a in zip(info.params, arrays, strict=True):
        if isinstance(p, KernelParam) and a is not None and p.dynamic and 0 in a.shape:
            return (f"kernel {info.name}: '{p.name}' has shape {_spelled(a.shape)} (an extent "
                    "0): nothing to launch")
    return None

