"""Lower ``regcopy.mma`` to ``regcopy.mma_sync`` (part of ``lower-reg-copy``).

The op's plan (``MmaOp.plan``: its layouts matched against the PTX fragments, checked by the
verifier) gives, per instruction tile, the register slot of each operand word. The lowering
takes the flat storages of the three register tiles (``regcopy.storage``) and emits one
``regcopy.mma_sync`` listing the instructions in issue order: K steps outermost (each
accumulator sums its K steps in ascending k), then M tiles, then N tiles in a serpentine. The
CUDA target prints one ``mma.sync.aligned`` statement per instruction on 32-bit views of
the register arrays, at static offsets, so the arrays stay in registers.

With ``remarks``: ``mma.sync.aligned.<shape>...: <n> instructions, registers A <a>, B <b>,
C <c> (32-bit words per lane)``.
"""

from __future__ import annotations

from xdsl.dialects import builtin, func
from xdsl.ir import Operation
from xdsl.rewriter import Rewriter

from regcopy_dialect.buffers import buffer_layout
from regcopy_dialect.diagnostics import Diagnostic, emit, op_location
from regcopy_dialect.element_types import element_info
from regcopy_dialect.mma_ops import MmaOp, MmaSyncOp, type_name
from regcopy_dialect.regcopy import StorageOp

__all__ = ["lower_mma_ops", "mma_label", "mnemonic"]

PTX_TYPES = {"f16": "f16", "bf16": "bf16", "f32": "f32", "i8": "s8", "ui8": "u8",
             "i32": "s32", "f8E4M3FN": "e4m3", "f8E5M2": "e5m2"}
"""regcopy element type -> PTX type of an mma operand (f32 A/B are ``tf32``)."""


def mnemonic(a: str, b: str, c: str, shape: str) -> str:
    """``mma.sync.aligned.<shape>.row.col.<d>.<a>.<b>.<c>`` for regcopy element types."""
    if a == "f32":
        a = b = "tf32"
    ptx = [PTX_TYPES.get(t, t) for t in (c, a, b, c)]
    return f"mma.sync.aligned.{shape}.row.col.{'.'.join(ptx)}"


def mma_label(op: Operation) -> str:
    """``mma %A, %B, %C in @k`` (names where the values have them)."""
    names = [f"%{v.name_hint}" if v.name_hint else "%?" for v in op.operands]
    fn = op.parent_op()
    while fn is not None and not isinstance(fn, func.FuncOp):
        fn = fn.parent_op()
    where = f" in @{fn.sym_name.data}" if isinstance(fn, func.FuncOp) else ""
    return f"mma {', '.join(names)}{where}"


def _words(op: MmaOp) -> tuple[int, int, int]:
    """32-bit registers a lane holds for A, B and C."""
    out = []
    for t in op.types():
        bits = element_info(t.element_type).bits  # type: ignore[union-attr]
        out.append(buffer_layout(t).storage().span() * bits // 32)
    return out[0], out[1], out[2]


def lower_mma(op: MmaOp, remarks: bool) -> None:
    """Replace ``op`` by storages of its operands and one ``regcopy.mma_sync``."""
    plan = op.plan()
    label = mma_label(op)
    storages = [StorageOp(v) for v in (op.a, op.b, op.c)]
    instructions = plan.instructions()
    sync = MmaSyncOp(storages[0].result, storages[1].result, storages[2].result, instructions)
    Rewriter.replace_op(op, [*storages, sync])
    if not remarks:
        return
    a, b, c = (type_name(t.element_type) for t in op.types())
    words = _words(op)
    head = (f"{mnemonic(a, b, c, plan.shape.name)}: {len(instructions)} instructions, "
            f"registers A {words[0]}, B {words[1]}, C {words[2]} (32-bit words a lane)")
    note = (f"tiles: A {plan.a.rows}x{plan.a.cols}, B {plan.b.rows}x{plan.b.cols}, "
             f"C {plan.c.rows}x{plan.c.cols} instruction tiles; first instruction's words: "
             f"A {list(instructions[0][0])}, B {list(instructions[0][1])}, "
             f"C {list(instructions[0][2])}")
    emit(Diagnostic("remark", head, label, op_location(op), (note,)))


def lower_mma_ops(module: builtin.ModuleOp, remarks: bool = False) -> None:
    """Lower every ``regcopy.mma`` of ``module`` (verified: the plan cannot fail)."""
    for op in [o for o in module.walk() if isinstance(o, MmaOp)]:
        lower_mma(op, remarks)
