"""``regcopy.wgmma`` and ``regcopy.wgmma_async`` on the CPU interpreter.

A warpgroup's wgmma is evaluated one warp at a time: warp ``w`` of the warpgroup owns rows
``16 w .. 16 w + 15`` of the accumulator, and (A in registers) the same rows of A, so the
warp's 32 lanes meet (warp-collective, as at ``mma.sync``) and compute their 16 rows. The
arithmetic is ``mma``'s ``accumulate``: per k16 step, products added into the f32
accumulator in ascending k, each addition rounded to f32 (integer-valued data is exact).

* ``regcopy.wgmma`` (the reference): A and B are read by logical index from the shared
  regions (through the buffers' layouts, swizzle included) or, for A in registers, from the
  lane and slot its layout gives.
* ``regcopy.wgmma_async`` (lowered): shared operands are read the way the hardware reads
  them: the byte address ``base + step start + canonical_offset(descriptor, mn, k)`` put
  through the descriptor's swizzle mode; A in registers through the fragment rule.

The interpreter performs an ``{async}`` wgmma at its issue: it does not model a later write
to the shared operands before the ``wgmma_wait`` (a race on the GPU).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import product
from typing import Any, cast

import numpy as np
from regcopy_backend.interpreter.async_copy import _in_flight, check_landed
from regcopy_backend.interpreter.buffers import Buffer, layout_of
from regcopy_backend.interpreter.mma import accumulate, decode
from regcopy_backend.interpreter.once import computed_once
from regcopy_backend.interpreter.regcopy import gpu_state
from xdsl.dialects.builtin import MemRefType
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    register_impls,
)
from xdsl.ir import Operation
from xdsl.utils.exceptions import InterpretationError

from regcopy_dialect.element_types import element_info
from regcopy_dialect.layout import WARP
from regcopy_dialect.wgmma_layouts import (
    Descriptor,
    a_cell,
    accumulator_cell,
    canonical_offset,
    k_step,
)
from regcopy_dialect.setmaxnreg_op import SetMaxNRegOp
from regcopy_dialect.wgmma_ops import WgmmaAsyncOp, WgmmaOp, WgmmaWaitOp

Lane = tuple[int, tuple[Any, ...]]  # (warp of the warpgroup, the lane's operands)


@lru_cache(maxsize=64)
def _rows(w: int, n: int) -> tuple[tuple[int, int, int, int], ...]:
    """``(row, column, lane, element)`` of warp ``w``'s accumulator cells."""
    return tuple((r - 16 * w, c, lane, i) for lane in range(WARP) for i in range(n // 2)
                 for r, c in [accumulator_cell(32 * w + lane, i)])


def _finish(w: int, n: int, a: np.ndarray, b: np.ndarray, c_of: Callable[[int, int], Any],
            put: Callable[[int, int, float], None]) -> None:
    """``C[16w.., :] += a @ b`` (a 16 x K, b K x N) on the warp's lanes."""
    cells = _rows(w, n)
    cur = np.zeros((16, n))
    for r, c, lane, i in cells:
        cur[r, c] = c_of(lane, i)
    new = accumulate(a, b, cur, "f32", 16)  # the K step matters for f16 accumulators only
    for r, c, lane, i in cells:
        put(lane, i, float(np.float32(new[r, c])))


def _bits(t: Any) -> int:
    return element_info(t).bits  # type: ignore[union-attr, no-any-return]


def _registers_a(w: int, k: int, t: Any, slot: Callable[[int, int, int], int],
                 lanes: Sequence[Buffer]) -> np.ndarray:
    """Warp ``w``'s 16 x K slice of A from its lanes; ``slot(step, lane, i)``."""
    bits = _bits(t)
    ks = k_step(bits)
    a = np.zeros((16, k))
    for s in range(k // ks):
        values, places = [], []
        for lane in range(WARP):
            for i in range(128 // bits):
                r, c = a_cell(32 * w + lane, i, bits)
                values.append(lanes[lane].storage[slot(s, lane, i)])
                places.append((r - 16 * w, s * ks + c))
        for v, (r, c) in zip(decode(values, t), places, strict=True):
            a[r, c] = v
    return a


def run_wgmma(op: WgmmaOp, lanes: Sequence[Lane]) -> list[None]:
    """The reference: a warp's 16 rows of an un-lowered wgmma."""
    w = lanes[0][0]
    ta, tb, tc = (cast(MemRefType, v.type) for v in (op.a, op.b, op.c))
    args = lanes[0][1]
    dyn = iter(args[3:])
    regions = {}
    for side in ("a", "b"):
        region = op.region(side)
        if region is not None:
            offs = [int(next(dyn)) if not isinstance(o, int) else o for o in region[0]]
            regions[side] = (offs, region[1])

    def shared(buf: Buffer, side: str, rows: tuple[int, int], cols: tuple[int, int],
               swap: bool = False) -> list[Any]:
        storage = buf.storage
        places = _tile_offsets(buf.type, len(storage), tuple(regions[side][0]), rows, cols,
                               swap)
        return [storage[i] for i in places]

    n = tc.get_shape()[1]
    k = regions["a"][1][-1] if "a" in regions else ta.get_shape()[1]
    if "a" in regions:
        raw = shared(args[0], "a", (16 * w, 16), (0, k))
        a = decode(raw, ta.element_type).reshape(16, k)
    else:
        layout = layout_of(ta)

        bits = _bits(ta.element_type)

        def a_slot(s: int, lane: int, i: int) -> int:
            r, c = a_cell(32 * w + lane, i, bits)
            return layout.apply(r * k + s * k_step(bits) + c)[1]
        a = _registers_a(w, k, ta.element_type, a_slot, [x[1][0] for x in lanes])
    raw = shared(args[1], "b", (0, k), (0, n), bool(op.transpose_b))
    b = decode(raw, tb.element_type).reshape(k, n)
    slots = _accumulator_slots(tc, w, n)

    def c_slot(lane: int, i: int) -> int:
        return slots[lane, i]

    def put(lane: int, i: int, v: float) -> None:
        lanes[lane][1][2].storage[c_slot(lane, i)] = v

    _finish(w, n, a, b, lambda lane, i: lanes[lane][1][2].storage[c_slot(lane, i)], put)
    return [None] * WARP


@computed_once
def _tile_offsets(t: MemRefType, size: int, start: tuple[int, ...], rows: tuple[int, int],
                  cols: tuple[int, int], swap: bool) -> tuple[int, ...]:
    """Storage offsets (``Buffer.offset``, its errors included) of the cells ``(start[-2] + r,
    start[-1] + c)`` of a ``size``-element buffer of type ``t``, ``r`` in ``rows`` (first,
    count) outer, ``c`` in ``cols`` inner; ``swap``: of ``(start[-2] + c, start[-1] + r)``.
    A pure function of the type and the region: computed once per tile."""
    probe = Buffer(t, [None] * size)
    out: list[int] = []
    for r in range(rows[0], rows[0] + rows[1]):
        for c in range(cols[0], cols[0] + cols[1]):
            index = list(start)
            index[-2] += c if swap else r
            index[-1] += r if swap else c
            out.append(probe.offset(index))
    return tuple(out)


@computed_once
def _accumulator_slots(tc: MemRefType, w: int, n: int) -> dict[tuple[int, int], int]:
    """The register slot (of the local accumulator ``tc``) of element ``i`` of lane ``lane``
    of warp ``w``'s accumulator fragment (``accumulator_cell`` through the tile's layout)."""
    layout = layout_of(tc)
    return {(lane, i): layout.apply(r * n + c)[1] for lane in range(WARP) for i in range(n // 2)
            for r, c in [accumulator_cell(32 * w + lane, i)]}


def _descriptor_read(buf: Buffer, base: int, starts: Sequence[int], d: Descriptor,
                     mn_extent: int, k: int, e: int) -> np.ndarray:
    """``mn_extent x k`` values read through descriptor ``d`` as the hardware does."""
    storage = buf.storage
    places, misaligned = _descriptor_places(base, tuple(starts), d, mn_extent, k, e)
    values = [storage[i] for i in places]  # an offset out of range fails here, in order
    if misaligned is not None:
        raise InterpretationError(f"descriptor address {misaligned} is not element-aligned")
    return np.array(values, dtype=object).reshape(mn_extent, k)


@computed_once
def _descriptor_places(base: int, starts: tuple[int, ...], d: Descriptor, mn_extent: int,
                       k: int, e: int) -> tuple[tuple[int, ...], int | None]:
    """The storage offsets ``_descriptor_read`` reads, row-major, up to the first byte
    address that is not element-aligned, and that address (None: all are aligned). A pure
    function of the descriptor and the addresses: computed once per operand tile."""
    swz = d.swizzle.swizzle(e)
    ks = k_step(8 * e)
    out: list[int] = []
    for mn in range(mn_extent):
        for kk in range(k):
            byte = base * e + starts[kk // ks] + canonical_offset(d, mn, kk % ks, e)
            if byte % e:
                return tuple(out), byte
            elem = byte // e
            out.append(swz.apply(elem) if swz is not None else elem)
    return tuple(out), None


def run_wgmma_async(op: WgmmaAsyncOp, lanes: Sequence[Lane]) -> list[None]:
    """A warp's 16 rows of a lowered wgmma, shared operands read through the descriptors."""
    w = lanes[0][0]
    args = lanes[0][1]
    ta, tb = (cast(MemRefType, v.type).element_type for v in (op.a, op.b))
    e = element_info(tb).bits // 8  # type: ignore[union-attr]
    n, steps = op.n.value.data, op.steps()
    k = steps * k_step(8 * e)
    b_base = int(args[-1])
    b_starts = cast(Sequence[int], op.b_starts.get_values())
    d_b = Descriptor.decode(op.b_desc.value.data, "b_mn_major" not in op.attributes)
    braw = _descriptor_read(args[1], b_base, b_starts, d_b, n, k, e)
    b = decode(list(braw.ravel()), tb).reshape(n, k).T
    if op.a_desc is not None:
        a_base = int(args[3])
        a_starts = cast(Sequence[int], op.a_starts.get_values())  # type: ignore[union-attr]
        d_a = Descriptor.decode(op.a_desc.value.data, "a_mn_major" not in op.attributes)
        araw = _descriptor_read(args[0], a_base, a_starts, d_a, 64, k, e)
        a = decode(list(araw[16 * w:16 * w + 16].ravel()), ta).reshape(16, k)
    else:
        words = cast(Sequence[int], op.a_regs.get_values())  # type: ignore[union-attr]
        per = 32 // _bits(ta)  # elements a word
        a = _registers_a(w, k, ta, lambda s, lane, i: words[4 * s + i // per] + i % per,
                         [x[1][0] for x in lanes])
    c_regs = cast(Sequence[int], op.c_regs.get_values())

    def put(lane: int, i: int, v: float) -> None:
        lanes[lane][1][2].storage[c_regs[i]] = v

    _finish(w, n, a, b, lambda lane, i: lanes[lane][1][2].storage[c_regs[i]], put)
    return [None] * WARP


def _check_landed(interp: Interpreter, op: WgmmaOp, args: PythonValues) -> None:
    """Refuse to read a shared region whose async copies have not landed for this thread
    (its own ``async_wait``, then a barrier for other threads' copies)."""
    dyn = iter(args[3:])
    for k, side in enumerate(("a", "b")):
        region = op.region(side)
        if region is None:
            continue
        offs = [int(next(dyn)) if not isinstance(o, int) else o for o in region[0]]
        buf = args[k]
        if not _in_flight(interp, buf):
            continue
        check_landed(interp, op, buf, list(_region_offsets(buf.type, len(buf.storage),
                                                           tuple(offs), tuple(region[1]))))


@computed_once
def _region_offsets(t: MemRefType, size: int, start: tuple[int, ...], sizes: tuple[int, ...]
                    ) -> tuple[int, ...]:
    """Storage offsets (``Buffer.offset``, its errors included) of the box ``start`` +
    ``sizes`` of a ``size``-element buffer of type ``t``, row-major: a pure function of the
    type and the box, computed once per region (every thread of a warpgroup checks it)."""
    probe = Buffer(t, [None] * size)
    boxes = product(*(range(o, o + z) for o, z in zip(start, sizes, strict=True)))
    return tuple(probe.offset(list(i)) for i in boxes)


def _meet(interp: Interpreter, op: Operation, args: PythonValues, execute: Any) -> tuple[()]:
    state = gpu_state(interp)
    if state.warp is None:
        raise InterpretationError(f"{op.name} is warpgroup-collective: it runs only in a "
                                  "launch() of the kernel")
    tid = state.thread.linear_tid
    state.warp.meet(tid % WARP, op, (tid // WARP % 4, tuple(args)), execute)
    return ()


@register_impls
class WgmmaFunctions(InterpreterFunctions):
    """``regcopy.wgmma``, ``regcopy.wgmma_async`` and ``regcopy.wgmma_wait``."""

    @impl(WgmmaOp)
    def run_wgmma(self, interp: Interpreter, op: WgmmaOp, args: PythonValues):
        _check_landed(interp, op, args)
        return _meet(interp, op, args, lambda lanes: run_wgmma(op, lanes))

    @impl(WgmmaAsyncOp)
    def run_wgmma_async(self, interp: Interpreter, op: WgmmaAsyncOp, args: PythonValues):
        return _meet(interp, op, args, lambda lanes: run_wgmma_async(op, lanes))

    @impl(WgmmaWaitOp)
    def run_wgmma_wait(self, interp: Interpreter, op: WgmmaWaitOp, args: PythonValues):
        return ()  # the interpreter completes a wgmma at its issue (module doc)

    @impl(SetMaxNRegOp)
    def run_setmaxnreg(self, interp: Interpreter, op: SetMaxNRegOp, args: PythonValues):
        return ()  # registers are not modelled: the reallocation changes no value
