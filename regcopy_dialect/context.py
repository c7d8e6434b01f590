"""An xDSL ``Context`` with every dialect a regcopy program uses (for library users and tests
that parse regcopy IR without going through ``regcopy-opt``)."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, math, memref, scf, vector

from regcopy_dialect.gpu_shuffle import GPU_WITH_SHUFFLE
from regcopy_dialect.regcopy import Regcopy


def regcopy_context() -> Context:
    """builtin, func, arith, math, scf, memref, gpu (with ``gpu.shuffle``), vector and
    regcopy, loaded."""
    ctx = Context()
    for dialect in (builtin.Builtin, func.Func, arith.Arith, scf.Scf, memref.MemRef,
                    GPU_WITH_SHUFFLE, math.Math, vector.Vector, Regcopy):
        ctx.load_dialect(dialect)
    return ctx
