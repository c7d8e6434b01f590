"""Run a lowered (or un-lowered) kernel on the CPU interpreter with host arrays in and out.

``run_on_cpu(module, kernel, args)`` takes the same arguments as the GPU runner
(``runner.run_kernel``): in kernel-parameter order, a numpy array per global buffer (its
physical memory: the buffer layout's whole span, as the GPU sees it) and a Python int per
``index``/integer scalar; a dynamic buffer (``memref<?x?xf32>``) takes its extents from its
array's shape; a strided one (``strided<[?, 1]>``) takes a numpy view such as
``A[:, :100]`` of a larger array, whose row stride it passes (``strided_host``). It returns a
copy of every buffer after the launch (for a strided buffer, the view's elements). Elements move
as Python values (raw bits for bf16/fp8), so the result is bit-exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp

from regcopy_backend.interpreter.buffers import Buffer, storage_size
from regcopy_backend.interpreter.driver import launch, make_interpreter
from regcopy_backend.interpreter.extents import buffer_strides, concrete_type, shape_problem
from regcopy_backend.runtime.strided_host import from_span, span_of, view_strides
from regcopy_dialect.buffers import is_dynamic
from regcopy_dialect.strided import is_strided

HostArg = np.ndarray | int


def kernel_by_name(module: ModuleOp, name: str) -> func.FuncOp:
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == name:
            return op
    raise ValueError(f"no func.func @{name} in the module")


def to_buffer(t: MemRefType, a: np.ndarray) -> Buffer:
    """The interpreter buffer holding the first ``storage_size(t)`` elements of ``a``; for a
    dynamic ``t`` (some size ``?``), all of ``a``, typed by its shape (``concrete_type``)."""
    if is_dynamic(t):
        problem = shape_problem(t, a.shape)
        if problem is None and is_strided(t):
            try:
                strides = view_strides(t, a)
            except ValueError as e:
                problem = str(e)
            else:
                return Buffer(concrete_type(t, a.shape, strides),
                              span_of(a, strides).tolist())
        if problem is not None:
            raise ValueError(f"array of shape {'x'.join(map(str, a.shape))} for {t}: "
                             f"it {problem}")
        return Buffer(concrete_type(t, a.shape), np.ascontiguousarray(a).reshape(-1).tolist())
    n = storage_size(t)
    flat = np.ascontiguousarray(a).reshape(-1)
    if flat.size < n:
        raise ValueError(f"array of {flat.size} elements for {t}, which spans {n}")
    return Buffer(t, flat[:n].tolist())


def from_buffer(buf: Buffer, like: np.ndarray, t: MemRefType | None = None) -> np.ndarray:
    """``like`` with its first elements replaced by the buffer's storage; for a strided
    buffer type ``t``, the view's elements (``strided_host.from_span``)."""
    if t is not None and is_strided(t):
        span = np.array(buf.storage, dtype=like.dtype)
        return from_span(span, like.shape, buffer_strides(buf.type))
    out = np.ascontiguousarray(like).copy().reshape(-1)
    out[:len(buf.storage)] = np.array(buf.storage, dtype=out.dtype)
    return out.reshape(like.shape)


def run_on_cpu(module: ModuleOp, kernel: str, args: Sequence[HostArg],
               grid: Sequence[int] | None = None,
               blocks: Sequence[tuple[int, int, int]] | None = None,
               threads: Sequence[int] | None = None) -> list[np.ndarray]:
    """Every buffer argument of ``kernel`` after one interpreted launch (scalars skipped; a
    dynamic buffer with an extent 0 launches nothing: the buffers come back unchanged);
    ``grid`` overrides the ``regcopy.launch`` grid, ``blocks`` runs only those CTAs of it and
    ``threads`` only those threads of each (whole warps where the kernel has warp-collective
    ops)."""
    fn = kernel_by_name(module, kernel)
    types = fn.function_type.inputs.data
    if len(types) != len(args):
        raise ValueError(f"kernel @{kernel} takes {len(types)} arguments, got {len(args)}")
    if any(isinstance(t, MemRefType) and is_dynamic(t) and isinstance(a, np.ndarray)
           and 0 in a.shape for t, a in zip(types, args, strict=True)):
        # an extent 0: nothing to launch (as run_kernel); the buffers come back unchanged
        return [a.copy() for a in args if isinstance(a, np.ndarray)]
    values: list[Buffer | int] = []
    for t, a in zip(types, args, strict=True):
        values.append(to_buffer(t, cast(np.ndarray, a)) if isinstance(t, MemRefType)
                      else int(a))
    launch(make_interpreter(module), kernel, values, threads=threads, grid=grid, blocks=blocks)
    return [from_buffer(v, a, cast(MemRefType, t)) for v, a, t in zip(values, args, types,
                                                                         strict=True)
            if isinstance(v, Buffer) and isinstance(a, np.ndarray)]
