"""``lower-layout-access``: element accesses by logical indices -> accesses to flat storage.

A ``memref.load``/``memref.store`` takes logical indices. On a buffer whose flat
storage is not the memref itself (rank != 1, or a ``#regcopy.layout``) the pass rewrites it,
in place, into::

    %flat = regcopy.storage %buf            (once per buffer, right after its definition)
    <index math: address.physical_offset of the indices, built by IndexBuilder>
    memref.load %flat[%off]                 (memref.store %v, %flat[%off])

``vector.load``/``vector.store`` on a row-major buffer of rank != 1 are rewritten the same way
(row-major keeps a vector's elements, consecutive along the last dim, contiguous at the flat
offset of its first element). Accesses to a ``local`` buffer address the executing thread's
registers (thread axes dropped): the thread that owns the element executes them. Constant indices fold;
powers of two decode by shifts and masks (``address.digit``).

The CUDA target runs this pass before printing, so the printer only ever addresses 1-D
storage. Buffers that are not valid regcopy buffers (another memref layout, an unsupported
element type) are left alone for the target to report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

from regcopy_passes.core.index_builder import IndexBuilder, Value
from regcopy_passes.core.strides import buffer_strides
from xdsl.context import Context
from xdsl.dialects import arith, builtin, memref, vector
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, MemRefType, NoneAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import VerifyException

from regcopy_dialect.address import physical_offset
from regcopy_dialect.buffers import is_dynamic
from regcopy_dialect.diagnostics import inherit_location
from regcopy_dialect.strided import is_strided
from regcopy_dialect.regcopy import (
    LayoutAttr,
    MultipleOfOp,
    StorageOp,
    buffer_layout,
    storage_type,
    verify_buffer,
)

__all__ = ["LowerLayoutAccessPass", "LowerLayoutAccessPattern", "layout_access_refusal",
           "needs_flat_storage"]


def layout_access_refusal(t: Attribute) -> str | None:
    """Why accesses to ``t`` cannot be lowered to its flat storage (None: they can): ``t``
    must be a valid regcopy buffer, i.e. row-major or ``#regcopy.layout``."""
    if not isinstance(t, MemRefType):
        return f"{t} is not a memref"
    try:
        verify_buffer(cast(MemRefType, t))
    except VerifyException as e:
        return str(e)
    return None


def needs_flat_storage(t: Attribute) -> bool:
    """Whether an access to a buffer of type ``t`` addresses a layout: a memref whose flat
    storage (``regcopy.storage``'s 1-D type) is not the memref itself (a ``strided<[...]>``
    global buffer included: its offsets use its strides)."""
    return isinstance(t, MemRefType) and (isinstance(t.layout, NoneAttr | LayoutAttr)
                                          or is_strided(t)) and \
        storage_type(cast(MemRefType, t)) != t


def _folded(v: SSAValue) -> Value:
    """An index operand: the integer of a constant (seen through ``regcopy.multiple_of``),
    so offsets fold, else the value itself."""
    owner = v.owner
    while isinstance(owner, MultipleOfOp):
        owner = owner.value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return v


Access = memref.LoadOp | memref.StoreOp | vector.LoadOp | vector.StoreOp


def access_operands(op: Access) -> tuple[SSAValue, list[SSAValue]]:
    """The buffer and indices of a ``memref``/``vector`` load or store."""
    if isinstance(op, vector.LoadOp | vector.StoreOp):
        return op.base, list(op.indices)
    return op.memref, list(op.indices)


@dataclass
class LowerLayoutAccessPattern(RewritePattern):
    """Rewrites one access (see the module doc); ``storages`` keeps the one
    ``regcopy.storage`` made per buffer, ``builders`` one ``IndexBuilder`` per block."""

    storages: dict[SSAValue, SSAValue] = field(default_factory=dict[SSAValue, SSAValue])
    builders: dict[Block | None, IndexBuilder] = field(
        default_factory=dict[Block | None, IndexBuilder])
    extents: dict[tuple[Block | None, SSAValue, int], SSAValue] = field(
        default_factory=dict[tuple[Block | None, SSAValue, int], SSAValue])
    """A dynamic buffer's ``memref.dim`` results, one per block, buffer and dim."""

    def builder(self, op: Operation) -> IndexBuilder:
        """The block's ``IndexBuilder``: accesses of one block, visited in order, share their
        constants and identical math (``IndexBuilder`` reuses an op it emitted before, whose
        result dominates the later access)."""
        return self.builders.setdefault(op.parent_block(), IndexBuilder())

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: Access, rewriter: PatternRewriter) -> None:
        buf, _ = access_operands(op)
        t = buf.type
        if not needs_flat_storage(t) or layout_access_refusal(t) is not None:
            return
        if isinstance(op, vector.LoadOp | vector.StoreOp) and isinstance(t, MemRefType) and \
                isinstance(t.layout, LayoutAttr):
            return  # vectors need proven contiguity: the CUDA target reports these
        b = self.builder(op)
        start = len(b.ops)
        if is_dynamic(cast(MemRefType, t)):
            off = b.value(self.dynamic_offset(b, op, buf, op.indices))
        else:
            off = b.value(self.offset(b, cast(MemRefType, t), op.indices))
        new_ops = b.ops[start:]
        if off.owner in new_ops and off.name_hint is None:
            off.name_hint = "off"
        flat = self.flat_access(op, self.storage(buf, rewriter), off)
        inherit_location([*new_ops, flat], op)
        rewriter.insert(new_ops, InsertPoint.before(op))
        rewriter.replace(op, flat)

    @staticmethod
    def offset(b: IndexBuilder, t: MemRefType, indices: Sequence[SSAValue]) -> Value:
        """The flat element offset of logical ``indices`` (``address.physical_offset``)."""
        return physical_offset(b, buffer_layout(t), t.get_shape(),
                               [_folded(i) for i in indices])

    def dynamic_offset(self, b: IndexBuilder, op: Operation, buf: SSAValue,
                       indices: Sequence[SSAValue]) -> Value:
        """The offset ``sum(index_i * stride_i)`` in a buffer with runtime extents or strides
        (``strides.buffer_strides``: row-major from the extents, read with ``memref.dim``, or
        the buffer's ``strided<[...]>``)."""
        shape = cast(MemRefType, buf.type).get_shape()

        def extent(i: int) -> Value:
            if shape[i] != DYNAMIC_INDEX:
                return shape[i]
            key = (op.parent_block(), buf, i)
            if key not in self.extents:
                self.extents[key] = b.emit(memref.DimOp(buf, b.value(i)), f"e{i}")
            return self.extents[key]

        off: Value = 0
        if is_strided(buf.type):
            for i, s in enumerate(buffer_strides(b, buf, extent)):
                off = b.add(off, b.times(_folded(indices[i]), s))
            return off
        stride: Value = 1
        for i in range(len(shape) - 1, -1, -1):
            off = b.add(off, b.times(_folded(indices[i]), stride))
            if i == 0:
                break
            stride = b.times(stride, extent(i))
        return off

    def storage(self, buf: SSAValue, rewriter: PatternRewriter) -> SSAValue:
        """The buffer's ``regcopy.storage``, made right after the buffer's definition."""
        if (flat := self.storages.get(buf)) is None:
            op = StorageOp(buf)
            owner = buf.owner.parent_op() if isinstance(buf.owner, Block) else buf.owner
            if owner is not None:
                inherit_location([op], owner)
            where = InsertPoint.at_start(buf.owner) if isinstance(buf.owner, Block) \
                else InsertPoint.after(buf.owner)
            rewriter.insert(op, where)
            flat = self.storages[buf] = op.result
        return flat

    @staticmethod
    def flat_access(op: Access, flat: SSAValue, off: SSAValue) -> Operation:
        """``op`` on the 1-D storage ``flat`` at ``[off]``."""
        match op:
            case memref.LoadOp():
                return memref.LoadOp.get(flat, [off])
            case memref.StoreOp():
                return memref.StoreOp.get(op.value, flat, [off])
            case vector.LoadOp():
                return vector.LoadOp(flat, [off], op.result.type)
            case vector.StoreOp():
                return vector.StoreOp(op.vector, flat, [off])


@dataclass(frozen=True)
class LowerLayoutAccessPass(ModulePass):
    """Lower loads and stores by logical indices to loads and stores on flat 1-D storage
    (``regcopy.storage`` + index math), for every buffer that is not its own storage."""

    name = "lower-layout-access"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        # forward, once: a block's accesses are visited in order, so the math a later access
        # reuses from its block's IndexBuilder is defined before it
        PatternRewriteWalker(LowerLayoutAccessPattern(), apply_recursively=False,
                             walk_reverse=False).rewrite_module(op)


def lower_layout_access(module: builtin.ModuleOp, ctx: Context | None = None
                        ) -> builtin.ModuleOp:
    """Run ``lower-layout-access`` on ``module`` in place and return it."""
    LowerLayoutAccessPass().apply(ctx or Context(), module)
    return module
