"""The rewrite of one planned copy: shared prologue, then the emitter of its transfer kind.

Every kind starts the same way (the thread's index in its scope, hoisted) and then hands
over to its own emitter, chosen by the type of ``LoweringPlan.transfer``, with the
``regcopy.storage`` views of both buffers; the emitter appends its hoisted math and the
storages to the builder (base math first, as the lowered form reads) and returns the ops
that follow."""

from __future__ import annotations

from collections.abc import Callable

from regcopy_passes.core.bounds import BoundedTransfer
from regcopy_passes.reg_copy.emit_bounds import emit_bounded
from regcopy_passes.reg_copy.emit_matrix import emit_matrix_copy
from regcopy_passes.reg_copy.emit_rounds import emit_vector
from regcopy_passes.core.emit_thread import thread_index
from regcopy_passes.core.index_builder import IndexBuilder, Value
from regcopy_passes.reg_copy.matrix_plan import MatrixTransfer
from regcopy_passes.reg_copy.transfer import LoweringPlan, VectorTransfer
from xdsl.ir import Operation

from regcopy_dialect.regcopy import CopyOp, StorageOp

Emitter = Callable[[IndexBuilder, CopyOp, LoweringPlan, Value, tuple[StorageOp, StorageOp]],
                   list[Operation]]

EMITTERS: dict[type, Emitter] = {VectorTransfer: emit_vector, MatrixTransfer: emit_matrix_copy,
                                 BoundedTransfer: emit_bounded}
"""One emitter per transfer kind."""


def emit_copy(op: CopyOp, lp: LoweringPlan) -> list[Operation]:
    """All ops that replace ``op``: hoisted math and storages, then the transfer's own."""
    b = IndexBuilder()
    t = thread_index(b, lp.acc.scope)
    work = EMITTERS[type(lp.transfer)](b, op, lp, t, (StorageOp(op.src), StorageOp(op.dst)))
    return [*b.ops, *work]
