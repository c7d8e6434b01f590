"""The lowered form of ``transfer=tma``: the Hopper bulk tensor copy and its mbarrier.

::

    %m = regcopy.tensor_map %G {box = array<i64: 128, 64>, swizzle = 128 : i64}
           : memref<?x?xf16, #regcopy.mem<global>>
    regcopy.mbarrier_init %B[%c0] {count = 1 : i64} : memref<3xi64, #regcopy.mem<shared>>
    regcopy.fence_barrier_init
    regcopy.mbarrier_arrive_expect_tx %B[%slot] {bytes = 16384 : i64}
           : memref<3xi64, #regcopy.mem<shared>>
    regcopy.tma_load %m[%row, %col] -> %S[%off], %B[%slot]
           : memref<24576xf16, #regcopy.mem<shared>>, memref<3xi64, #regcopy.mem<shared>>
    regcopy.mbarrier_try_wait_parity %B[%slot], %parity : memref<3xi64, #regcopy.mem<shared>>

Semantics.

* ``tensor_map`` names the tensor map (``CUtensorMap``) of the global buffer ``%G`` (a kernel
  argument) for boxes of ``box`` elements (outermost first, as regions are written) with TMA
  swizzle ``swizzle`` (0, 32, 64 or 128 bytes). It is not executed: the runner builds the map
  on the host (``cuTensorMapEncodeTiled`` over ``%G``'s pointer and runtime extents) and passes
  it as an extra ``const __grid_constant__ CUtensorMap`` kernel parameter.
* ``mbarrier_init`` initialises the 64-bit shared barrier ``B[i]`` for ``count`` arrivals per
  phase (one thread executes it); ``fence_barrier_init`` makes initialised barriers visible to
  the asynchronous proxy (``fence.proxy.async.shared::cta``; a CTA barrier must follow).
* ``mbarrier_arrive_expect_tx`` arrives on ``B[i]`` and raises the bytes the current phase
  waits for by ``bytes`` (one elected thread, before or after the loads it counts).
* ``tma_load`` (one thread) copies the box of ``%m`` starting at the coordinates (outermost
  first; any ``index`` values: the parts of the box outside the tensor's extents land as zeros)
  into the flat shared storage ``%S`` from element ``off`` on, densely and swizzled by the
  map's mode, and signals ``B[i]`` with the bytes as they land.
* ``mbarrier_try_wait_parity`` (every thread) waits until the phase of ``B[i]`` with parity
  ``parity`` (0 or 1, an ``i32``/``index`` value) has completed; the box's bytes are then
  visible to the waiting thread. Phase ``k`` of a barrier has parity ``k % 2``.
"""

from __future__ import annotations

from typing import cast

from xdsl.dialects.builtin import (
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    i64,
)
from xdsl.ir import BlockArgument, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.irdl.operations import ParsePropInAttrDict
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from regcopy_dialect.attrs import MemSpace
from regcopy_dialect.buffers import memory_space

TMA_SWIZZLES = (0, 32, 64, 128)
"""TMA swizzle spans in bytes (0: none)."""
MAX_TMA_RANK = 5
MAX_TMA_BOX = 256


@irdl_attr_definition
class TensorMapType(ParametrizedAttribute, TypeAttribute):
    """``!regcopy.tensor_map``: a TMA tensor map, passed to the kernel by value."""

    name = "regcopy.tensor_map"


def _shared(v: SSAValue, what: str) -> MemRefType:
    t = v.type
    if not isinstance(t, MemRefType) or memory_space(t) not in (MemSpace.SHARED,
                                                                MemSpace.SHARED_DYN):
        raise VerifyException(f"{what} must be a shared or shared.dyn memref, got {t}")
    return cast(MemRefType, t)


def _barrier(v: SSAValue) -> None:
    t = _shared(v, "the mbarrier buffer")
    if len(t.get_shape()) != 1 or not (isinstance(t.element_type, IntegerType)
                                       and t.element_type.width.data == 64):
        raise VerifyException(f"the mbarrier buffer must be a 1-D memref of i64, got {t}")


@irdl_op_definition
class TensorMapOp(IRDLOperation):
    """The tensor map of a global kernel argument, for one box shape and swizzle."""

    name = "regcopy.tensor_map"

    source = operand_def(MemRefType)
    box = prop_def(DenseArrayBase.constr(i64))
    swizzle = prop_def(IntegerAttr[IntegerType])
    map = result_def(TensorMapType)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$source attr-dict `:` type($source)"

    def __init__(self, source: SSAValue, box: tuple[int, ...], swizzle: int):
        super().__init__(operands=[source], result_types=[TensorMapType()],
                         properties={"box": DenseArrayBase.from_list(i64, list(box)),
                                     "swizzle": IntegerAttr(swizzle, i64)})

    @property
    def box_sizes(self) -> tuple[int, ...]:
        return tuple(cast(tuple[int, ...], self.box.get_values()))

    @property
    def swizzle_bytes(self) -> int:
        return self.swizzle.value.data

    def verify_(self) -> None:
        t = cast(MemRefType, self.source.type)
        if memory_space(t) != MemSpace.GLOBAL:
            raise VerifyException(f"tensor_map describes a global buffer, got {t}")
        if not isinstance(self.source, BlockArgument):
            raise VerifyException("tensor_map's buffer must be a kernel argument (the runner "
                                  "encodes the map from the argument's pointer and extents)")
        box = self.box_sizes
        if len(box) != len(t.get_shape()) or not 1 <= len(box) <= MAX_TMA_RANK:
            raise VerifyException(f"box {list(box)} must have one size per dim of {t} "
                                  f"(1 to {MAX_TMA_RANK} dims)")
        if any(not 1 <= b <= MAX_TMA_BOX for b in box):
            raise VerifyException(f"box {list(box)}: each size must be in 1..{MAX_TMA_BOX}")
        if self.swizzle_bytes not in TMA_SWIZZLES:
            raise VerifyException(f"swizzle {self.swizzle_bytes} must be one of "
                                  f"{', '.join(map(str, TMA_SWIZZLES))} (bytes)")


class _BarrierOp(IRDLOperation):
    """An op on the mbarrier ``barriers[index]``."""

    barriers = operand_def(MemRefType)
    index = operand_def(IndexType)

    def verify_(self) -> None:
        _barrier(self.barriers)


@irdl_op_definition
class MBarrierInitOp(_BarrierOp):
    """``mbarrier.init.shared::cta.b64 [B + 8i], count``."""

    name = "regcopy.mbarrier_init"
    count = prop_def(IntegerAttr[IntegerType])
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$barriers `[` $index `]` attr-dict `:` type($barriers)"
    traits = traits_def(MemoryWriteEffect())

    def __init__(self, barriers: SSAValue, index: SSAValue, count: int = 1):
        super().__init__(operands=[barriers, index],
                         properties={"count": IntegerAttr(count, i64)})


@irdl_op_definition
class FenceBarrierInitOp(IRDLOperation):
    """``fence.proxy.async.shared::cta``: barrier inits visible to the async proxy."""

    name = "regcopy.fence_barrier_init"
    assembly_format = "attr-dict"
    traits = traits_def(MemoryWriteEffect())

    def __init__(self) -> None:
        super().__init__()


@irdl_op_definition
class MBarrierArriveExpectTxOp(_BarrierOp):
    """``mbarrier.arrive.expect_tx.shared::cta.b64 _, [B + 8i], bytes``."""

    name = "regcopy.mbarrier_arrive_expect_tx"
    bytes = prop_def(IntegerAttr[IntegerType])
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$barriers `[` $index `]` attr-dict `:` type($barriers)"
    traits = traits_def(MemoryWriteEffect())

    def __init__(self, barriers: SSAValue, index: SSAValue, nbytes: int):
        super().__init__(operands=[barriers, index],
                         properties={"bytes": IntegerAttr(nbytes, i64)})

    @property
    def tx_bytes(self) -> int:
        return self.bytes.value.data


@irdl_op_definition
class MBarrierTryWaitParityOp(_BarrierOp):
    """A loop of ``mbarrier.try_wait.parity.shared::cta.b64`` until the phase completes."""

    name = "regcopy.mbarrier_try_wait_parity"
    barriers = operand_def(MemRefType)
    index = operand_def(IndexType)
    parity = operand_def(IndexType)
    assembly_format = "$barriers `[` $index `]` `,` $parity attr-dict `:` type($barriers)"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, barriers: SSAValue, index: SSAValue, parity: SSAValue):
        super().__init__(operands=[barriers, index, parity])


@irdl_op_definition
class TmaLoadOp(IRDLOperation):
    """``cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes``."""

    name = "regcopy.tma_load"

    map = operand_def(TensorMapType)
    coords = var_operand_def(IndexType)
    dst = operand_def(MemRefType)
    offset = operand_def(IndexType)
    barriers = operand_def(MemRefType)
    index = operand_def(IndexType)
    assembly_format = ("$map `[` $coords `]` `->` $dst `[` $offset `]` `,` $barriers `[` $index "
                       "`]` attr-dict `:` type($dst) `,` type($barriers)")
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, tmap: SSAValue, coords: list[SSAValue], dst: SSAValue, offset: SSAValue,
                 barriers: SSAValue, index: SSAValue):
        super().__init__(operands=[tmap, coords, dst, offset, barriers, index])

    @property
    def map_op(self) -> TensorMapOp | None:
        owner = self.map.owner
        return owner if isinstance(owner, TensorMapOp) else None

    def verify_(self) -> None:
        _barrier(self.barriers)
        t = _shared(self.dst, "tma_load's destination")
        if len(t.get_shape()) != 1:
            raise VerifyException(f"tma_load writes a flat (1-D) shared storage, got {t}; view "
                                  "the buffer with regcopy.storage")
        if (m := self.map_op) is None:
            return
        if len(self.coords) != len(m.box_sizes):
            raise VerifyException(f"tma_load takes {len(m.box_sizes)} coordinates (the map's "
                                  f"rank), got {len(self.coords)}")
        src = cast(MemRefType, m.source.type)
        if src.element_type != t.element_type:
            raise VerifyException(f"tma_load moves {src.element_type} elements into a "
                                  f"{t.element_type} buffer")


TMA_OPS = (TensorMapOp, MBarrierInitOp, FenceBarrierInitOp, MBarrierArriveExpectTxOp,
           MBarrierTryWaitParityOp, TmaLoadOp)
TMA_TYPES = (TensorMapType,)
