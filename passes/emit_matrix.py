"""ld/stmatrix in IR: a ``MatrixTransfer`` (``matrix_plan``) as ``regcopy.ldmatrix`` /
``regcopy.stmatrix`` ops.

Each thread computes its row address ``s_base + A(t)`` once per address table (normally one),
``A(t) = sum(((t >> lo) & (2^w - 1)) * c)``; each instruction then supplies
``swizzle(s_base + A(t) + delta)`` (the row start; a row stays inside one swizzle chunk, so
its 16 bytes need no further swizzling). No guard surrounds the ops: every lane of the warp
must execute a ``.sync.aligned`` instruction.
"""

from __future__ import annotations

from xdsl.ir import SSAValue

from regcopy_dialect.layout import Swizzle
from regcopy_dialect.matrix_ops import LdMatrixOp, StMatrixOp
from regcopy_passes.index_builder import IndexBuilder, Value
from regcopy_passes.matrix_plan import BitField, MatrixTransfer
from regcopy_passes.swizzle_address import emit_swizzle


def emit_table(b: IndexBuilder, t: Value, fields: tuple[BitField, ...],
               thread_bits: int) -> Value:
    """``sum(((t >> lo) & (2^w - 1)) * c)``; the mask is left out for a field that reaches
    the top of ``t``'s ``thread_bits`` bits."""
    out: Value = 0
    for f in fields:
        x = b.shr(t, f.lo)
        if f.lo + f.width < thread_bits:
            x = b.and_(x, (1 << f.width) - 1)
        out = b.add(out, b.mul(x, f.coeff))
    return out


def emit_matrix(b: IndexBuilder, t: Value, s_base: Value, src: SSAValue, dst: SSAValue,
                transfer: MatrixTransfer, swizzle: Swizzle | None) -> None:
    """Append the transfer's ops to ``b``: ``t`` is the scope-local thread index
    (``emit_thread.thread_index``), ``s_base`` the S slice base (elements), ``src``/``dst``
    the flat storages (shared -> local for ldmatrix, local -> shared for stmatrix)."""
    thread_bits = (transfer.threads - 1).bit_length()
    bases: dict[tuple[BitField, ...], Value] = {}
    for table in transfer.tables:
        bases[table] = b.add(s_base, emit_table(b, t, table, thread_bits))
    cls = LdMatrixOp if transfer.kind == "ldmatrix" else StMatrixOp
    for op in transfer.ops:
        address = b.add(bases[op.fields], op.delta)
        if swizzle is not None:
            address = emit_swizzle(b, address, swizzle)
        b.ops.append(cls(src, dst, b.value(address), op.registers, transfer.trans))
