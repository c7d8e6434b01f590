"""Lower ``regcopy.wgmma`` to ``regcopy.wgmma_async`` (part of ``lower-reg-copy``).

* ``#regcopy.layout<auto>`` shared buffers that a wgmma reads get, before the other shared
  layouts are chosen, the panel layout of ``wgmma_layouts.panel_layout``: the last dim in
  panels of the widest of the 128/64/32-byte swizzles dividing it, which both TMA and wgmma
  read (K-major or MN-major).
* Each wgmma becomes flat storages (``regcopy.storage``), the element offset of each shared
  region's first element (index arithmetic on the dynamic offsets), and one
  ``regcopy.wgmma_async`` carrying the descriptors' constant fields, each k16 step's start,
  the register words, ``{async}`` when it must not wait, and ``{fence_proxy}`` when the shared
  operands are written by the generic proxy: anything but ``copy_async`` under
  ``transfer=tma`` (the bulk tensor copy writes through the async proxy; cp.async and stores
  do not).
* Shared operands are aligned to their swizzle atom (1024 bytes for 128B).

With ``remarks``: ``wgmma.mma_async.m64n<N>k<K>.f32.<a>.<b>: <s> instructions (k<K> steps),
A <registers|descriptor>, B descriptor ...``.
"""

from __future__ import annotations

from typing import cast

from xdsl.builder import Builder
from xdsl.dialects import arith, builtin, memref
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, UnitAttr, i64
from xdsl.ir import SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException, VerifyException

from regcopy_dialect.async_ops import CopyAsyncOp
from regcopy_dialect.attrs import LayoutAttr
from regcopy_dialect.diagnostics import Diagnostic, emit, op_error, op_location
from regcopy_dialect.element_types import element_info
from regcopy_dialect.regcopy import StorageOp
from regcopy_dialect.wgmma_layouts import mnemonic, panel_layout
from regcopy_dialect.wgmma_ops import SharedOperand, WgmmaAsyncOp, WgmmaOp

__all__ = ["assign_wgmma_layouts", "lower_wgmma_ops", "wgmma_fences"]


def assign_wgmma_layouts(module: builtin.ModuleOp) -> None:
    """Give every ``auto`` shared operand of a wgmma the panel layout (module doc)."""
    for op in [o for o in module.walk() if isinstance(o, WgmmaOp)]:
        for v in (op.a, op.b):
            t = cast(MemRefType, v.type)
            if not (isinstance(t.layout, LayoutAttr) and t.layout.is_auto):
                continue
            nbytes = element_info(t.element_type).bits // 8  # type: ignore[union-attr]
            layout = panel_layout(t.get_shape(), nbytes)
            if layout is None:
                continue  # the verifier names what would do
            new = MemRefType(t.element_type, t.get_shape(), LayoutAttr.from_layout(layout),
                             t.memory_space)
            v._type = new


def _written_by_stores(buf: SSAValue, tma: bool) -> bool:
    """Whether anything but TMA copies (``copy_async`` under ``transfer=tma``), wgmmas and
    storage views touches ``buf`` (cp.async writes through the generic proxy too)."""
    allowed = (CopyAsyncOp, WgmmaOp, StorageOp) if tma else (WgmmaOp, StorageOp)
    return any(not isinstance(u.operation, allowed) for u in buf.uses)


def wgmma_fences(module: builtin.ModuleOp, tma: bool = False) -> set[WgmmaOp]:
    """The wgmmas whose shared operands ordinary stores write (before any copy is lowered:
    afterwards every writer is a storage view)."""
    return {o for o in module.walk() if isinstance(o, WgmmaOp) and any(
        _written_by_stores(v, tma) for v in (o.a, o.b) if o.region("a") is not None or v is o.b)}


def _align(buf: SSAValue, period: int) -> None:
    alloca = buf.owner
    if not isinstance(alloca, memref.AllocaOp):
        return
    have = alloca.alignment.value.data if alloca.alignment is not None else 0
    if period > have:
        alloca.alignment = IntegerAttr(period, i64)


def _base(b: Builder, shared: SharedOperand) -> SSAValue:
    const, terms = shared.base
    out = b.insert(arith.ConstantOp.from_int_and_width(const, IndexType())).result
    for sym, coeff in terms:
        k = b.insert(arith.ConstantOp.from_int_and_width(coeff, IndexType())).result
        term = b.insert(arith.MuliOp(sym, k)).result
        out = b.insert(arith.AddiOp(out, term)).result
    return out


def lower_wgmma(op: WgmmaOp, fence: bool, remarks: bool) -> None:
    """Replace ``op`` by storages, base offsets and one ``regcopy.wgmma_async``."""
    try:
        plan = op.plan()
    except VerifyException as e:  # an auto layout's check, or a dynamic offset's alignment
        raise PassFailedException(op_error(op, f"does not lower: {e}")) from None
    b = Builder(InsertPoint.before(op))
    a_base = None
    if plan.a is not None:
        a_base = _base(b, plan.a)
        _align(op.a, plan.a.descriptor.swizzle.period)
    b_base = _base(b, plan.b)
    _align(op.b, plan.b.descriptor.swizzle.period)
    storages = [b.insert(StorageOp(v)).result for v in (op.a, op.b, op.c)]
    lowered = WgmmaAsyncOp(storages[0], a_base, storages[1], b_base, storages[2], plan, fence)
    if op.is_async:
        lowered.attributes["async"] = UnitAttr()
    Rewriter.replace_op(op, lowered)
    if not remarks:
        return
    a_text = (f"A descriptor ({plan.a.descriptor})" if plan.a is not None
              else "A registers")
    head = (f"{mnemonic(plan.n, plan.a_type, plan.b_type).replace('.sync.aligned', '')}: "
            f"{plan.k // plan.k_step} instructions (k{plan.k_step} steps), {a_text}, B descriptor "
            f"({plan.b.descriptor})")
    notes = (f"B step starts (bytes): {list(plan.b.starts)}",
             "waits: none ({async})" if op.is_async else "fence, commit, wait_group 0",
             *(["fence.proxy.async: shared operands written by ordinary stores"]
               if fence else []))
    emit(Diagnostic("remark", head, "wgmma", op_location(op), notes))


def lower_wgmma_ops(module: builtin.ModuleOp, fenced: set[WgmmaOp] | None = None,
                    remarks: bool = False) -> None:
    """Lower every ``regcopy.wgmma`` of ``module``; ``fenced``: ``wgmma_fences`` taken before
    the copies were lowered (None: now)."""
    fenced = wgmma_fences(module) if fenced is None else fenced
    for op in [o for o in module.walk() if isinstance(o, WgmmaOp)]:
        lower_wgmma(op, op in fenced, remarks)
