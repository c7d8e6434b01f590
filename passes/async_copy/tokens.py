"""Dropping ``!regcopy.token`` values once the async ops are lowered.

The lowered ops (``cp_async_commit``, ``cp_async_wait N``) count groups per thread and take
no token, so after the lowering a token is only carried: through ``scf.for`` iter_args and
``scf.yield``, or out of an ``scf.if``. ``drop_tokens`` rebuilds each such loop and branch
without its token values (their uses are first pointed at one placeholder, which then has no
use left and is erased), so the lowered IR has no token at all.
"""

from __future__ import annotations

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import UnrealizedConversionCastOp
from xdsl.ir import Operation, Region, SSAValue
from xdsl.rewriter import Rewriter

from regcopy_dialect.async_ops import TokenType
from regcopy_dialect.diagnostics import with_location


def _is_token(v: SSAValue) -> bool:
    return isinstance(v.type, TokenType)


def _strip_yield(block_owner: Region, keep: list[int]) -> None:
    for block in block_owner.blocks:
        y = block.last_op
        if isinstance(y, scf.YieldOp):
            Rewriter.replace_op(y, scf.YieldOp(*[y.operands[k] for k in keep]))


def _rebuild_for(op: scf.ForOp, placeholder: SSAValue) -> None:
    keep = [k for k, v in enumerate(op.iter_args) if not _is_token(v)]
    args = op.body.block.args
    for k, v in enumerate(op.iter_args):
        if _is_token(v):
            args[k + 1].replace_all_uses_with(placeholder)
            op.results[k].replace_all_uses_with(placeholder)
    _strip_yield(op.body, keep)
    for k in range(len(op.iter_args) - 1, -1, -1):
        if k not in keep:
            op.body.block.erase_arg(args[k + 1])
    body = Region()
    op.body.move_blocks(body)
    new = scf.ForOp(op.lb, op.ub, op.step, [op.iter_args[k] for k in keep], body)
    Rewriter.replace_op(op, with_location(new, op), [new.results[keep.index(k)] if k in keep else None
                                  for k in range(len(op.results))])


def _rebuild_if(op: scf.IfOp, placeholder: SSAValue) -> None:
    keep = [k for k, r in enumerate(op.results) if not _is_token(r)]
    for k, r in enumerate(op.results):
        if k not in keep:
            r.replace_all_uses_with(placeholder)
    _strip_yield(op.true_region, keep)
    _strip_yield(op.false_region, keep)
    regions = [Region(), Region()]
    op.true_region.move_blocks(regions[0])
    op.false_region.move_blocks(regions[1])
    new = scf.IfOp(op.cond, [op.results[k].type for k in keep], regions[0], regions[1])
    Rewriter.replace_op(op, with_location(new, op), [new.results[keep.index(k)] if k in keep else None
                                  for k in range(len(op.results))])


def token_placeholder(f: func.FuncOp) -> SSAValue:
    """A ``!regcopy.token`` placeholder at the top of ``f``."""
    cast = UnrealizedConversionCastOp(operands=[[]], result_types=[[TokenType()]])
    block = f.body.blocks.first
    assert block is not None and block.first_op is not None
    block.insert_op_before(cast, block.first_op)
    return cast.results[0]


def drop_tokens(f: func.FuncOp, placeholder: SSAValue) -> None:
    """Rebuild every loop and branch of ``f`` that carries a token without it, then erase
    the placeholder (which by then has no use)."""
    todo: list[Operation] = [o for o in f.walk()
                             if (isinstance(o, scf.ForOp) and any(map(_is_token, o.iter_args)))
                             or (isinstance(o, scf.IfOp) and any(map(_is_token, o.results)))]
    for op in reversed(todo):
        if isinstance(op, scf.ForOp):
            _rebuild_for(op, placeholder)
        elif isinstance(op, scf.IfOp):
            _rebuild_if(op, placeholder)
    owner = placeholder.owner
    assert isinstance(owner, Operation)
    if not placeholder.uses:
        owner.detach()
        owner.erase()
