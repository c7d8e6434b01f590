"""The CPU interpreter's side of register ↔ register conversions.

* ``gpu.shuffle`` (``regcopy_dialect.gpu_shuffle``): warp-collective; the 32 lanes meet at
  the warp barrier (``warp_sync``), each deposits its value and offset, and each gets the
  value of its source lane (``shuffle_source``) and whether that lane was in range;
* ``vector.extract`` at static positions: the lane of the vector value (a tuple);
* the reference semantics of an un-lowered ``regcopy.copy`` between two ``local`` tiles
  (``run_reference_conversion``): every thread leaves a snapshot of its source registers,
  the CTA meets at its barrier, each thread fills every destination place it owns (every
  replica) from the snapshot of the source element's representative owner in its scope
  group, and the CTA meets again (so that no snapshot is replaced while read).

A kernel holding either op runs in barrier phases with its warps in lockstep
(``launch.uses_lockstep``, which ``launch.has_collectives`` asks). ``RegcopyFunctions`` registers
``run_shuffle`` and ``run_extract`` (a later registration of ``gpu.shuffle``, as the compute
ops' own, takes its place).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from regcopy_backend.interpreter.buffers import Buffer, runtime_region, check_region
from regcopy_backend.interpreter.once import computed_once
from regcopy_backend.interpreter.state import GpuState
from regcopy_passes.convert.plan import ConvertError, places
from xdsl.dialects import vector
from xdsl.dialects.builtin import MemRefType
from xdsl.interpreter import PythonValues
from xdsl.utils.exceptions import InterpretationError

from regcopy_dialect.gpu_shuffle import ShuffleOp, shuffle_source
from regcopy_dialect.layout import WARP, slice_region
from regcopy_dialect.regcopy import CopyOp, buffer_layout

Region = tuple[tuple[int, ...], tuple[int, ...]]


@computed_once
def conversion_table(src_t: MemRefType, src_region: Region, dst_t: MemRefType,
                     dst_region: Region, threads: int
                     ) -> dict[int, tuple[tuple[int, int, int], ...]]:
    """Per scope-local destination thread: ``(dst slot, src thread, src slot)`` for every
    destination place it owns (the source is the element's representative owner)."""
    try:
        src = places(slice_region(buffer_layout(src_t), src_t.get_shape(), *src_region),
                     threads)
        dst = places(slice_region(buffer_layout(dst_t), dst_t.get_shape(), *dst_region),
                     threads)
    except (ConvertError, ValueError) as e:
        raise InterpretationError(f"regcopy.copy between local tiles: {e}") from None
    table: dict[int, list[tuple[int, int, int]]] = {}
    for s_places, d_places in zip(src, dst, strict=True):
        p, s = s_places[0]
        for t, j in d_places:
            table.setdefault(t, []).append((j, p, s))
    return {t: tuple(v) for t, v in table.items()}


def run_reference_conversion(state: GpuState, op: CopyOp, src: Buffer, dst: Buffer,
                             dyn: Sequence[int]) -> None:
    """This thread's part of a local → local ``regcopy.copy`` (module doc), ``state`` the
    thread's ``GpuState``."""
    if state.barrier is None:
        raise InterpretationError("regcopy.copy between local tiles runs only in a launch() "
                                  "of its kernel (its CTA's threads together)")
    n_src = len(op.src_offsets)
    src_region = runtime_region(op, "src", dyn[:n_src])
    dst_region = runtime_region(op, "dst", dyn[n_src:])
    check_region(src_region, src.shape, "source")
    check_region(dst_region, dst.shape, "destination")
    th = state.thread
    block = th.block_dim[0] * th.block_dim[1] * th.block_dim[2]
    threads = op.scope.data.scope.threads(block)
    tid = th.linear_tid
    first = tid - tid % threads
    key = (id(op), th.block_id)
    with state.lock:
        snapshots = cast(dict[Any, dict[int, list[Any]]],
                         state.extra.setdefault("conversion", {}))
        snapshots.setdefault(key, {})[tid] = list(src.storage)
    state.barrier.wait(state.slot)
    table = conversion_table(src.type, src_region, dst.type, dst_region, threads)
    mine = snapshots[key]
    for j, p, s in table.get(tid - first, ()):
        if first + p not in mine:
            raise InterpretationError(
                f"regcopy.copy between local tiles: thread {tid} needs an element of thread "
                f"{first + p}, which did not reach the copy (every thread of the "
                f"{op.scope.data.value} scope must execute it together)")
        dst.storage[j] = mine[first + p][s]
    state.barrier.wait(state.slot)


def run_shuffle(state: GpuState, op: ShuffleOp, args: PythonValues) -> Any:
    """This lane's part of a ``gpu.shuffle`` (``state``: the lane's ``GpuState``): deposit
    ``(value, offset)`` at the warp barrier; each lane gets its source lane's value and
    whether that lane was in range."""
    value, offset, width = args
    if width != WARP:
        raise InterpretationError(f"gpu.shuffle of width {width}: the regcopy targets "
                                  f"shuffle whole warps (width {WARP})")
    if state.warp is None:
        raise InterpretationError("gpu.shuffle is warp-collective: it runs only in a "
                                  "launch() of the kernel (its warps in lockstep)")
    mode = op.mode.data

    def execute(lanes: Sequence[Any]) -> list[tuple[Any, bool]]:
        out = []
        for lane, (_, off) in enumerate(lanes):
            source, valid = shuffle_source(mode, lane, off)
            out.append((lanes[source][0], valid))
        return out

    return state.warp.meet(state.thread.linear_tid % WARP, op, (value, offset), execute)


def run_extract(op: vector.ExtractOp, args: PythonValues) -> tuple[Any]:
    """``vector.extract`` at one static position of a 1-D vector value (a tuple)."""
    vec, *dynamic = args
    positions = list(op.static_position.get_values())
    if dynamic or len(positions) != 1:
        raise InterpretationError("vector.extract is supported at one static position of a "
                                  "1-D vector")
    return (vec[positions[0]],)
