"""CUDA text of ``regcopy.wgmma_async`` and ``regcopy.wgmma_wait`` (sm_90a inline PTX).

A shared operand's descriptor is built in the kernel: the constant fields (LBO, SBO, swizzle
mode in bits 62-63) ORed with ``(address & 0x3FFFF) >> 4`` of the step's start, the address
from ``__cvta_generic_to_shared``. Per k16 (8-bit: k32) step one ``wgmma.mma_async.sync.aligned`` with the
accumulator as ``"+f"`` operands (scale-d 1: accumulate); around them ``wgmma.fence``,
``commit_group`` and ``wait_group 0`` (no wait under ``{async}``), preceded by
``fence.proxy.async.shared::cta`` when the shared operands were written by ordinary stores.
``regcopy.wgmma_wait`` prints ``wait_group N`` and an empty ``asm`` over every accumulator of
the function's asynchronous wgmmas, so the compiler reads them only after the wait.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from regcopy_backend.cuda.matrix import register_word
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation

from regcopy_dialect.element_types import element_info
from regcopy_dialect.wgmma_layouts import mnemonic
from regcopy_dialect.wgmma_ops import WgmmaAsyncOp, WgmmaWaitOp


def _desc(storage: str, base: str, start: int, fields: int) -> str:
    addr = f"(unsigned long long)__cvta_generic_to_shared(&{storage}[{base}])"
    if start:
        addr = f"({addr} + {start}u)"
    return f"(0x{fields & (2**64 - 1):016x}ull | (({addr} & 0x3FFFFull) >> 4))"


def wgmma_statements(op: WgmmaAsyncOp, a: str, a_base: str | None, b: str, b_base: str,
                     c: str) -> list[str]:
    """The statements of one lowered wgmma (module doc)."""
    ta, tb = (element_info(cast(MemRefType, v.type).element_type).name  # type: ignore[union-attr]
              for v in (op.a, op.b))
    n = op.n.value.data
    head = mnemonic(n, ta, tb)
    fp8 = ta not in ("f16", "bf16")  # no transpose operands: K-major only
    c_regs = cast(Sequence[int], op.c_regs.get_values())
    b_starts = cast(Sequence[int], op.b_starts.get_values())
    b_fields = op.b_desc.value.data
    trans_b = 0 if _k_major(op, "b") else 1
    out = []
    if "fence_proxy" in op.attributes:
        out.append('asm volatile("fence.proxy.async.shared::cta;" ::: "memory");')
    out.append('asm volatile("wgmma.fence.sync.aligned;" ::: "memory");')
    nc = len(c_regs)
    ds = ", ".join(f"%{k}" for k in range(nc))
    outs = ", ".join(f'"+f"({c}[{r}])' for r in c_regs)
    for s, bstart in enumerate(b_starts):
        db = _desc(b, b_base, bstart, b_fields)
        if op.a_desc is not None and a_base is not None:
            a_starts = cast(Sequence[int], op.a_starts.get_values())  # type: ignore[union-attr]
            da = _desc(a, a_base, a_starts[s], op.a_desc.value.data)
            trans_a = 0 if _k_major(op, "a") else 1
            trans = "" if fp8 else f", {trans_a}, {trans_b}"
            text = f"{head} {{{ds}}}, %{nc}, %{nc + 1}, p, 1, 1{trans};"
            ins = f'"l"({da}), "l"({db})'
        else:
            words = cast(Sequence[int], op.a_regs.get_values())[4 * s:4 * s + 4]  # type: ignore[union-attr]
            regs = ", ".join(f"%{nc + k}" for k in range(4))
            trans = "" if fp8 else f", {trans_b}"
            text = f"{head} {{{ds}}}, {{{regs}}}, %{nc + 4}, p, 1, 1{trans};"
            ins = ", ".join([f'"r"({register_word(a, w)})' for w in words] + [f'"l"({db})'])
        out.append(f'asm volatile("{{ .reg .pred p; setp.ne.b32 p, 1, 0; {text} }}" : {outs} : '
                   f'{ins} : "memory");')
    out.append('asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");')
    if "async" not in op.attributes:
        out.append('asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");')
    return out


def _k_major(op: WgmmaAsyncOp, side: str) -> bool:
    """Whether the operand's descriptor is K-major (else the op carries ``{side}_mn_major``)."""
    return f"{side}_mn_major" not in op.attributes


def _function(op: Operation) -> Operation | None:
    fn = op.parent_op()
    while fn is not None and not isinstance(fn, func.FuncOp):
        fn = fn.parent_op()
    return fn


def wait_statements(op: WgmmaWaitOp, names: dict[WgmmaAsyncOp, str]) -> list[str]:
    """``wait_group N`` and a register fence over the accumulators of the asynchronous wgmmas
    of ``op``'s function (``names``: the C array of each lowered wgmma printed so far)."""
    wait = f'asm volatile("wgmma.wait_group.sync.aligned {op.pending.value.data};" ::: "memory");'
    out = [wait]
    fn = _function(op)
    seen: set[str] = set()
    for w, c in names.items():
        if "async" not in w.attributes or c in seen or _function(w) is not fn:
            continue
        seen.add(c)
        for r in cast(Sequence[int], w.c_regs.get_values()):
            out.append(f'asm volatile("" : "+f"({c}[{r}]) :: "memory");')
    return out
