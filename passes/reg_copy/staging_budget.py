"""The shared memory a kernel leaves the staged form's slices (``emit_staged``).

The slices are a static ``__shared__`` array. A kernel may declare at most ``STATIC_LIMIT`` =
48 KiB of static shared memory (NVRTC/ptxas refuse more), and a block may use at most
``SM90_OPTIN_LIMIT`` = 227 KiB of static + dynamic shared memory on sm_90. A kernel's shared
bytes before a copy is planned are

* ``static``: its ``shared`` buffers other than staging slices (``span × element bytes``);
* ``dynamic``: its ``shared.dyn`` buffers, each rounded up to 128 bytes (their alignment in
  the dynamic array: an upper bound of the launch's dynamic bytes);
* ``staging``: the slice arrays its staged copies have placed so far, by (element type,
  elements): a copy whose slices have the same type shares that array (``merge_staging``),
  any other adds its own.

A copy whose slices take ``s`` bytes can stage only where ``static + staging' + s`` stays
within ``STATIC_LIMIT`` and that plus ``dynamic`` within ``SM90_OPTIN_LIMIT`` (``staging'``:
the slice arrays of other types). The pass plans the copies of a kernel in program order, so
each later copy sees the slices of the earlier ones."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from regcopy_passes.reg_copy.emit_staged import STAGING_ATTR
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation

from regcopy_dialect.buffers import buffer_layout, is_dynamic, memory_space
from regcopy_dialect.element_types import element_bits
from regcopy_dialect.regcopy import MemSpace

STATIC_LIMIT = 48 * 1024
"""Bytes of static ``__shared__`` memory a kernel may declare (ptxas: 0xc000)."""
SM90_OPTIN_LIMIT = 227 * 1024
"""Bytes of shared memory (static + dynamic) one block may use on sm_90 after opting in."""
DYN_ALIGN = 128
"""Alignment of every ``shared.dyn`` buffer inside the dynamic shared array."""

SliceKey = tuple[str, int]
"""A slice array's element type (as printed) and element count: arrays alike are one."""


def _bytes(t: MemRefType) -> int:
    bits = element_bits(t.element_type) or 8
    return buffer_layout(t).span() * max(bits // 8, 1)


@dataclass(frozen=True)
class KernelShared:
    """The shared bytes of the kernel around a copy (module doc)."""

    static: int = 0
    dynamic: int = 0
    staging: tuple[tuple[SliceKey, int], ...] = ()

    def refusal(self, key: SliceKey, scratch: int) -> str | None:
        """Why slices ``key`` of ``scratch`` bytes do not fit (None: they do)."""
        if any(k == key for k, _ in self.staging):
            return None  # the kernel's array of that type already holds them
        others = sum(b for _, b in self.staging)
        static = self.static + others + scratch
        parts = [f"{self.static} of its shared buffers",
                 *([f"{others} of other staged copies' slices"] if others else []),
                 f"{scratch} of these slices"]
        if static > STATIC_LIMIT:
            return (f"the kernel's static shared memory would be {static} bytes "
                    f"({', '.join(parts)}), over the {STATIC_LIMIT}-byte (48 KiB) limit")
        if static + self.dynamic > SM90_OPTIN_LIMIT:
            parts.append(f"{self.dynamic} of its shared.dyn buffers")
            return (f"the kernel's shared memory would be {static + self.dynamic} bytes "
                    f"({', '.join(parts)}), over the {SM90_OPTIN_LIMIT}-byte per-block limit "
                    "of sm_90")
        return None


def _kernel(op: Operation) -> func.FuncOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        parent = parent.parent_op()
    return parent


def kernel_shared(op: Operation) -> KernelShared:
    """The shared bytes of the kernel (``func.func``) that holds ``op``, as the planner sees
    them now; an op outside a function: none."""
    fn = _kernel(op)
    if fn is None:
        return KernelShared()
    static = dynamic = 0
    staging: dict[SliceKey, int] = {}
    for alloca in fn.walk():
        if not isinstance(alloca, memref.AllocaOp):
            continue
        t = cast(MemRefType, alloca.memref.type)
        space = memory_space(t)
        if is_dynamic(t):
            continue
        if space == MemSpace.SHARED and STAGING_ATTR in alloca.attributes:
            staging[(str(t.element_type), buffer_layout(t).span())] = _bytes(t)
        elif space == MemSpace.SHARED:
            static += _bytes(t)
        elif space == MemSpace.SHARED_DYN:
            dynamic += -(-_bytes(t) // DYN_ALIGN) * DYN_ALIGN
    return KernelShared(static, dynamic, tuple(sorted(staging.items())))
