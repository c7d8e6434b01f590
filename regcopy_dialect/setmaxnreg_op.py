"""``regcopy.setmaxnreg``: sm_90a register reallocation between the warpgroups of a CTA.

::

    regcopy.setmaxnreg {action = "dec", count = 40 : i64}    // this warpgroup gives registers up
    regcopy.setmaxnreg {action = "inc", count = 232 : i64}   // this warpgroup takes registers

``setmaxnreg.{inc|dec}.sync.aligned.u32 count``: every thread of the warpgroup that executes
it (all 128 together, as for ``regcopy.wgmma``) now holds ``count`` registers; ``dec``
releases registers to the SM's pool, ``inc`` blocks until the pool has them. A producer
warpgroup that only issues TMA copies decreases, consumer warpgroups that hold wgmma
accumulators increase. ``count`` is a multiple of 8 in 24..256. The kernel's
``#regcopy.launch`` must give ``min_blocks`` (``__launch_bounds__(block, min_blocks)``: ptxas
honours ``setmaxnreg`` only where the kernel's register budget is fixed, and silently drops it
otherwise). It changes no value: the CPU interpreter runs it as a no-op. A kernel with it
compiles for ``sm_90a``.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntAttr, IntegerAttr, IntegerType, StringAttr, i64
from xdsl.ir import Attribute, Operation
from xdsl.irdl import IRDLOperation, irdl_op_definition, prop_def, traits_def
from xdsl.irdl.operations import ParsePropInAttrDict
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

SETMAXNREG_ACTIONS = ("inc", "dec")
"""What ``regcopy.setmaxnreg`` does to the warpgroup's registers."""
SETMAXNREG_RANGE = (24, 256)
"""The register counts ``setmaxnreg`` accepts (multiples of 8)."""


def launch_of(op: Operation) -> Attribute | None:
    """The ``regcopy.launch`` of the kernel around ``op``, if any."""
    fn = op.parent_op()
    while fn is not None and "regcopy.launch" not in fn.attributes:
        fn = fn.parent_op()
    return fn.attributes.get("regcopy.launch") if fn is not None else None


@irdl_op_definition
class SetMaxNRegOp(IRDLOperation):
    """``regcopy.setmaxnreg {action = "inc"|"dec", count = N : i64}`` (module doc)."""

    name = "regcopy.setmaxnreg"
    action = prop_def(StringAttr)
    count = prop_def(IntegerAttr[IntegerType])
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, action: str, count: int):
        super().__init__(properties={"action": StringAttr(action),
                                     "count": IntegerAttr(count, i64)})

    def verify_(self) -> None:
        action, count = self.action.data, self.count.value.data
        if action not in SETMAXNREG_ACTIONS:
            raise VerifyException(f"action must be \"inc\" or \"dec\", got \"{action}\"")
        low, high = SETMAXNREG_RANGE
        if not (low <= count <= high and count % 8 == 0):
            raise VerifyException(f"count must be a multiple of 8 in {low}..{high}, got {count}")
        launch = launch_of(self)
        if launch is None:
            return
        block = getattr(launch, "block", None)
        if isinstance(block, IntAttr) and block.data % 128:
            raise VerifyException(f"setmaxnreg runs on whole warpgroups: the kernel's block of "
                                  f"{block.data} threads is not a multiple of 128")
        if getattr(launch, "min_blocks_per_sm", None) is None:
            raise VerifyException("setmaxnreg needs the kernel's register budget fixed at "
                                  "compile time (ptxas drops it otherwise): add min_blocks = 1 "
                                  "to the kernel's #regcopy.launch")


def setmaxnreg_ptx(op: SetMaxNRegOp) -> str:
    """The PTX instruction of ``op``."""
    return f"setmaxnreg.{op.action.data}.sync.aligned.u32 {op.count.value.data};"
