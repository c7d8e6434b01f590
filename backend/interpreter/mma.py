"""``regcopy.mma`` and ``regcopy.mma_sync`` on the CPU interpreter: warp-collective (the 32
lanes meet, ``warp_sync``), then one evaluation for the whole warp.

Semantics (``accumulate``), per instruction: the products ``A[i, k] * B[k, j]`` (exact in f32
for every supported input type) are added into the f32 accumulator (i32 for 8-bit integers,
wrapping) in ascending k, each addition rounded to f32; an f16 accumulator is read as f32 and
rounded back to f16 after each instruction. tf32 operands are f32 values whose low 13
mantissa bits the instruction ignores. Integer-valued data whose partial sums fit in 24 bits
is therefore exact, and equal to what the tensor cores compute.

* ``regcopy.mma`` (un-lowered, the reference): each element of A, B, C is read from the lane
  and register slot its layout gives it (``owners``); the tiles are multiplied one instruction
  K step at a time in ascending k, which for f32/i32 accumulators is one ascending sum.
* ``regcopy.mma_sync`` (lowered): each instruction's fragments are read from the lanes'
  storages at its listed word offsets through the PTX fragment rule (``fragment_cell``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any, cast

import numpy as np
from regcopy_backend.interpreter.buffers import Buffer, layout_of
from regcopy_backend.interpreter.regcopy import gpu_state
from regcopy_backend.host_data import as_float64, numpy_dtype
from xdsl.dialects.builtin import MemRefType
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    register_impls,
)
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import InterpretationError

from regcopy_dialect.element_types import element_info
from regcopy_dialect.layout import WARP
from regcopy_dialect.mma_fragments import (
    MmaShape,
    Operand,
    fragment_cell,
    fragment_elements,
)
from regcopy_dialect.mma_ops import MmaOp, MmaSyncOp, type_name


def decode(values: Sequence[Any], t: Attribute) -> np.ndarray:
    """Interpreter values of element type ``t`` as float64 (raw bits decoded; tf32: the low
    13 mantissa bits of an f32 dropped)."""
    a = np.array(values, dtype=numpy_dtype(t))
    if type_name(t) == "f32":
        return (a.astype(np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).view(
            np.float32).astype(np.float64)
    return as_float64(a, t)


def accumulate(a: np.ndarray, b: np.ndarray, c: np.ndarray, c_type: str, k_step: int
               ) -> np.ndarray:
    """``c + a @ b`` as the module doc says: ``a`` is ``M x K``, ``b`` ``K x N`` (float64
    values), ``c`` ``M x N`` in ``c_type`` (f32, f16 or i32), ``k_step`` the instruction's K."""
    if c_type == "i32":
        acc = c.astype(np.int64) + a.astype(np.int64) @ b.astype(np.int64)
        return ((acc + 2**31) % 2**32 - 2**31).astype(np.int32)
    out = c.astype(np.float32)
    for k0 in range(0, a.shape[1], k_step):
        for k in range(k0, k0 + k_step):
            out = (out + np.outer(a[:, k], b[k, :]).astype(np.float32)).astype(np.float32)
        if c_type == "f16":
            out = out.astype(np.float16).astype(np.float32)
    return out


def encode(c: np.ndarray, c_type: str) -> list[Any]:
    """Accumulator values back to interpreter values (floats or ints)."""
    if c_type == "i32":
        return [int(v) for v in c.ravel()]
    if c_type == "f16":
        return [float(v) for v in c.astype(np.float16).ravel()]
    return [float(v) for v in c.astype(np.float32).ravel()]


@lru_cache(maxsize=256)
def owners(t: MemRefType) -> tuple[tuple[int, int], ...]:
    """``(lane, register slot)`` of every element of the local tile ``t``, row-major."""
    layout = layout_of(t)
    out = []
    for index in range(layout.size):
        axes, slot = layout.apply(index)
        out.append((axes.get("laneid", 0), slot))
    return tuple(out)


def gather(t: MemRefType, lanes: Sequence[Buffer]) -> np.ndarray:
    """The logical tile ``t`` (float64 values) from the 32 lanes' registers."""
    values = [lanes[lane].storage[slot] for lane, slot in owners(t)]
    return decode(values, t.element_type).reshape(t.get_shape())


def run_mma(op: MmaOp, lanes: Sequence[tuple[Buffer, Buffer, Buffer]]) -> list[None]:
    """Execute an un-lowered ``regcopy.mma`` for a warp (``lanes[l]``: lane ``l``'s A, B, C)."""
    ta, tb, tc = op.types()
    plan = op.plan()
    a = gather(ta, [x[0] for x in lanes])
    b = gather(tb, [x[1] for x in lanes])
    if op.transpose_b:
        b = b.T
    c_type = type_name(tc.element_type)
    c_now = np.array([lanes[lane][2].storage[slot] for lane, slot in owners(tc)])
    c_new = encode(accumulate(a, b, c_now.reshape(tc.get_shape()), c_type, plan.shape.k),
                   c_type)
    for (lane, slot), v in zip(owners(tc), c_new, strict=True):
        lanes[lane][2].storage[slot] = v
    return [None] * WARP


@lru_cache(maxsize=64)
def _cells(shape: MmaShape, operand: Operand) -> tuple[np.ndarray, np.ndarray, int]:
    """Rows and columns (``fragment_cell``) of every fragment element of the instruction
    tile, lane-major (lane 0's elements first), and the elements a lane holds."""
    n = fragment_elements(shape, operand)
    cells = [fragment_cell(shape, operand, lane, i) for lane in range(WARP) for i in range(n)]
    return (np.array([r for r, _ in cells], dtype=np.intp),
            np.array([c for _, c in cells], dtype=np.intp), n)


def _fragment(shape: MmaShape, operand: Operand, t: Attribute, words: Sequence[int],
              lanes: Sequence[Buffer]) -> tuple[list[Any], np.ndarray, np.ndarray, list[int]]:
    """One instruction's operand: its values, lane-major, with their rows and columns in its
    tile (``_cells``) and each value's register slot."""
    per_word = max(1, 32 // element_info(t).bits)  # type: ignore[union-attr]
    rows, cols, n = _cells(shape, operand)
    slots = [words[i // per_word] + i % per_word for i in range(n)]
    values = [lane.storage[slot] for lane in lanes for slot in slots]
    return values, rows, cols, slots


def run_mma_sync(op: MmaSyncOp, lanes: Sequence[tuple[Buffer, Buffer, Buffer]]) -> list[None]:
    """Execute a lowered ``regcopy.mma_sync`` for a warp, instruction by instruction."""
    shape = op.shape
    ta, tb, tc = op.element_types()
    c_type = type_name(tc)
    for words_a, words_b, words_c in op.instructions():
        tiles = []
        for operand, t, words, k in ((Operand.A, ta, words_a, 0), (Operand.B, tb, words_b, 1)):
            values, rows, cols, _ = _fragment(shape, operand, t, words, [x[k] for x in lanes])
            tile = np.zeros((shape.m, shape.k) if operand is Operand.A else (shape.k, shape.n))
            tile[rows, cols] = decode(values, t)
            tiles.append(tile)
        accumulators = [x[2] for x in lanes]
        values, rows, cols, slots = _fragment(shape, Operand.C, tc, words_c, accumulators)
        cur = np.zeros((shape.m, shape.n), dtype=np.int64 if c_type == "i32" else np.float64)
        cur[rows, cols] = values
        new = iter(encode(accumulate(tiles[0], tiles[1], cur, c_type, shape.k)[rows, cols],
                          c_type))
        for buffer in accumulators:
            storage = buffer.storage
            for slot in slots:
                storage[slot] = next(new)
    return [None] * WARP


def _meet(interp: Interpreter, op: Operation, args: PythonValues, execute: Any) -> tuple[()]:
    state = gpu_state(interp)
    if state.warp is None:
        raise InterpretationError(f"{op.name} is warp-collective: it runs only in a launch() "
                                  "of the kernel (its warps in lockstep)")
    operand = tuple(cast(Buffer, a) for a in args)
    state.warp.meet(state.thread.linear_tid % WARP, op, operand, execute)
    return ()


@register_impls
class MmaFunctions(InterpreterFunctions):
    """``regcopy.mma`` and ``regcopy.mma_sync``."""

    @impl(MmaOp)
    def run_mma(self, interp: Interpreter, op: MmaOp, args: PythonValues):
        return _meet(interp, op, args, lambda lanes: run_mma(op, lanes))

    @impl(MmaSyncOp)
    def run_mma_sync(self, interp: Interpreter, op: MmaSyncOp, args: PythonValues):
        return _meet(interp, op, args, lambda lanes: run_mma_sync(op, lanes))
