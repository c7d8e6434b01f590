"""CUDA for the ops of register ↔ register conversions, registered on ``CudaPrinter`` where
it prints them in no other way (``register``):

* ``gpu.shuffle`` (``regcopy_dialect.gpu_shuffle``) of a 32-bit integer or float over a whole
  warp: ``__shfl_sync(0xffffffffu, value, offset, 32)`` (``__shfl_xor_sync``,
  ``__shfl_up_sync``, ``__shfl_down_sync`` for the other modes); its ``valid`` result is not
  printed (a use of it is an error);
* ``vector.extract`` of one 32-bit lane of a 4-, 8- or 16-byte vector (``uint32_t``,
  ``uint2``, ``uint4`` in the printer's transfer types): the lane reinterpreted as its type.
"""

from __future__ import annotations

from typing import cast

from regcopy_backend.cuda.printer import CudaPrinter
from regcopy_backend.cuda.types import vector_bytes
from xdsl.dialects import vector
from xdsl.dialects.builtin import VectorType

from regcopy_dialect.gpu_shuffle import ShuffleMode, ShuffleOp, shuffle_width_error

SHFL = {ShuffleMode.IDX: "__shfl_sync", ShuffleMode.XOR: "__shfl_xor_sync",
        ShuffleMode.UP: "__shfl_up_sync", ShuffleMode.DOWN: "__shfl_down_sync"}
LANES = {8: ".x .y", 16: ".x .y .z .w"}


def print_shuffle(self: CudaPrinter, op: ShuffleOp) -> None:
    if (error := shuffle_width_error(op)) is not None:
        raise self.fail(op, error)
    if op.valid.uses:
        raise self.fail(op, "uses the valid result; the CUDA target prints the shuffled value "
                        "only (shuffle whole warps in idx or xor mode)")
    t = self.ctype(op.value.type, op)
    if t not in ("int", "unsigned int", "float"):
        raise self.fail(op, f"shuffles a {op.value.type}; the CUDA target shuffles 32-bit "
                        "integers and floats")
    fn = SHFL[op.mode.data]
    result = op.shuffle_result
    self.line(f"const {t} {self.define(result)} = {fn}(0xffffffffu, {self.val(op.value)}, "
              f"{self.val(op.offset)}, 32);")


def print_extract(self: CudaPrinter, op: vector.ExtractOp) -> None:
    source = cast(VectorType, op.vector.type)
    positions = list(op.static_position.get_values())
    size = vector_bytes(source)
    lane_bits = source.element_type
    t = self.ctype(op.result.type, op)
    if op.dynamic_position or len(positions) != 1 or t not in ("int", "float") or \
            size not in (4, 8, 16) or lane_bits != op.result.type:
        raise self.fail(op, "is supported by the CUDA target for one i32 or f32 lane of a "
                        "4-, 8- or 16-byte vector, at a constant position")
    value = self.val(op.vector)
    lane = value if size == 4 else f"{value}{LANES[size].split()[positions[0]]}"
    rhs = f"__int_as_float((int){lane})" if t == "float" else f"(int){lane}"
    self.assign(op, rhs)


def register() -> None:
    """Register both printers on ``CudaPrinter`` where it has none for the op (the compute
    ops print ``gpu.shuffle`` themselves, with its ``valid`` result: theirs is kept)."""
    registry = CudaPrinter.__dict__["print_op"].dispatcher.registry
    for op, fn in ((ShuffleOp, print_shuffle), (vector.ExtractOp, print_extract)):
        if op not in registry:
            CudaPrinter.__dict__["print_op"].register(op, fn)


register()
