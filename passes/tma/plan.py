"""Planning a global -> shared copy as one Hopper bulk tensor copy (TMA, ``transfer=tma``).

A TMA load moves a *box* of a row-major global tensor into shared memory, densely, in one
instruction issued by one thread; the hardware zero-fills the elements of the box that lie
outside the tensor's extents. What the instruction needs is described by a *tensor map*
(``CUtensorMap``, built on the host by ``cuTensorMapEncodeTiled``), in TMA's order: dimension 0
is the innermost (fastest) one. ``plan_tma`` derives it from the copy, purely:

* rank ``r`` (1..5), global dims ``extent[r-1-i]`` and global strides in bytes
  ``stride_i = e * prod(extent[r-i:])`` for ``i = 1 .. r-1`` (``e`` the element size), each a
  multiple of 16 bytes (provably: static extents or ``regcopy.divisibility`` promises);
* box dims: the region sizes, innermost first, each in ``[1, 256]``; the inner box row
  ``box[0] * e`` a multiple of 16 bytes, and its first column ``offset[r-1] * e`` provably a
  multiple of 16 bytes (constant, ``regcopy.multiple_of``, divisibility promises);
* the swizzle mode, read off the shared destination's layout: the box must occupy the shared
  region densely (row-major over the region) and its swizzle must be the one TMA applies.

TMA's swizzles act on the byte address of shared memory: mode ``32B``/``64B``/``128B`` XORs the
16-byte-chunk bits ``[4, 4+b)`` with bits ``[7, 7+b)``, ``b = 1, 2, 3``. regcopy's
``swizzle<M,B,S>`` XORs element-offset bits ``[M, M+B)`` with ``[M+S, M+S+B)``. With
``e = 2^k`` bytes, element offset bit ``j`` is address bit ``j + k``, so the two maps agree
exactly when ``M = 4 - k``, ``B = b`` and ``S = 3`` (``tma_swizzle``); any other swizzle is
refused. Because TMA swizzles absolute addresses, the destination must start on a whole
swizzle period (``2^(7+b)`` bytes: 256/512/1024) and unswizzled boxes on 128 bytes.

A refusal is a one-line reason (``str``), which the pass turns into a fallback to ``cp.async``
with a remark (or an error under ``strict``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from math import prod

from regcopy_dialect.layout import Sliced, Swizzle
from regcopy_dialect.xor_map import XorMap

MAX_RANK = 5
MAX_BOX = 256
STRIDE_ALIGN = 16
BOX_ROW_ALIGN = 16
BOX_START_ALIGN = 16
"""Bytes the box's first global column must provably be a multiple of: an H200 faults
("illegal instruction") on an f16 box starting 4 or 6 bytes into a 16-byte chunk."""
SHARED_ALIGN = 128
"""Bytes an unswizzled TMA destination in shared memory must be aligned to."""


class SwizzleMode(IntEnum):
    """``CUtensorMapSwizzle``: the value is the swizzle span in bytes (0: none)."""

    NONE = 0
    B32 = 32
    B64 = 64
    B128 = 128

    @property
    def bits(self) -> int:
        """``b``: how many 16-byte-chunk bits the mode XORs (0, 1, 2, 3)."""
        return {0: 0, 32: 1, 64: 2, 128: 3}[int(self)]

    @property
    def period(self) -> int:
        """Bytes after which the pattern repeats (``2^(7+b)``); the destination's alignment."""
        return SHARED_ALIGN if self is SwizzleMode.NONE else 1 << (7 + self.bits)

    @property
    def driver_name(self) -> str:
        """The ``CUtensorMapSwizzle`` enumerator."""
        return "CU_TENSOR_MAP_SWIZZLE_" + ("NONE" if self is SwizzleMode.NONE else
                                          f"{int(self)}B")

    def __str__(self) -> str:
        return "none" if self is SwizzleMode.NONE else f"{int(self)}B"


def _log2(x: int) -> int | None:
    return x.bit_length() - 1 if x > 0 and x & (x - 1) == 0 else None


def tma_swizzle(mode: SwizzleMode, element_bytes: int) -> Swizzle | None:
    """The regcopy ``swizzle<4-k, b, 3>`` equal to TMA mode ``mode`` for ``2^k``-byte
    elements (None for ``NONE``)."""
    k = _log2(element_bytes)
    if k is None or k > 4:
        raise ValueError(f"no TMA swizzle for {element_bytes}-byte elements")
    return None if mode is SwizzleMode.NONE else Swizzle(4 - k, mode.bits, 3)


def swizzle_mode(swz: XorMap | None, element_bytes: int) -> SwizzleMode | str:
    """The TMA mode whose byte-address swizzle equals ``swz`` on ``element_bytes`` elements
    (a ``swizzle<M,B,S>`` or an ``xor<...>`` list: the same XOR bases), or the reason none
    does."""
    if swz is None or not swz.bases:
        return SwizzleMode.NONE
    for mode in (SwizzleMode.B32, SwizzleMode.B64, SwizzleMode.B128):
        tma = tma_swizzle(mode, element_bytes)
        if tma is not None and tma.bases == tuple(sorted(swz.bases)):
            return mode
    k = _log2(element_bytes) or 0
    wanted = ", ".join(f"{tma_swizzle(m, element_bytes)} ({m})"
                       for m in (SwizzleMode.B32, SwizzleMode.B64, SwizzleMode.B128))
    if not isinstance(swz, Swizzle):
        return (f"layout is not a TMA swizzle: {swz} on {element_bytes}-byte elements is not "
                f"one of TMA's; TMA swizzles are {wanted}")
    return (f"layout is not a TMA swizzle: {swz} on {element_bytes}-byte elements XORs bytes "
            f"bits [{swz.m_base + k}, {swz.m_base + swz.bits + k}) with bits "
            f"[{swz.m_base + swz.shift + k}, {swz.m_base + swz.shift + swz.bits + k}); "
            f"TMA swizzles are {wanted}")


@dataclass(frozen=True)
class TmaRequest:
    """What ``plan_tma`` reads from a copy (all outermost-first, as in the IR).

    ``global_shape``: the global buffer's extents (None: a runtime extent) and
    ``global_divisibility`` its per-dim promise (1 = none; ignored for static extents);
    ``box``: the global region's sizes; ``shared``: the shared side sliced to its region;
    ``shared_base_divisibility``: the largest ``d`` with the shared base provably ``% d == 0``,
    in elements (0: the base is 0); ``start_divisibility`` the same for the box's first
    global column (the innermost region offset)."""

    element_bits: int
    global_shape: tuple[int | None, ...]
    box: tuple[int, ...]
    shared: Sliced
    shared_base_divisibility: int = 0
    global_divisibility: tuple[int, ...] = ()
    start_divisibility: int = 0


@dataclass(frozen=True)
class TmaPlan:
    """A tensor map and its use, in TMA order (dimension 0 innermost).

    ``global_dims`` (None: taken at launch from the argument), ``global_strides`` in bytes
    for dims ``1 .. rank-1`` (None: at launch), ``box_dims``, ``swizzle``; ``box_bytes`` is
    what the mbarrier expects (``arrive.expect_tx``); ``shared_alignment`` the destination's
    required alignment in bytes."""

    element_bytes: int
    global_dims: tuple[int | None, ...]
    global_strides: tuple[int | None, ...]
    box_dims: tuple[int, ...]
    swizzle: SwizzleMode

    @property
    def rank(self) -> int:
        return len(self.box_dims)

    @property
    def box_bytes(self) -> int:
        return self.element_bytes * prod(self.box_dims)

    @property
    def shared_alignment(self) -> int:
        return self.swizzle.period

    @property
    def data_type(self) -> str:
        """The ``CUtensorMapDataType`` enumerator: the unsigned type of the element's size
        (a copy moves bits; the out-of-bounds fill is zero for every type)."""
        return f"CU_TENSOR_MAP_DATA_TYPE_UINT{8 * self.element_bytes}"

    def coordinates(self, offsets: Sequence[object]) -> tuple[object, ...]:
        """The box's start coordinates in TMA order from the region offsets (outermost
        first); out-of-range (even negative) coordinates are legal: those elements fill 0."""
        return tuple(reversed(tuple(offsets)))

    def describe(self) -> str:
        dims = "x".join("?" if d is None else str(d) for d in reversed(self.global_dims))
        box = "x".join(map(str, reversed(self.box_dims)))
        return (f"TMA box {box} of {dims} ({self.box_bytes} bytes, swizzle {self.swizzle}, "
                f"shared aligned to {self.shared_alignment})")


def global_layout(element_bytes: int, shape: Sequence[int | None],
                  divisibility: Sequence[int]) -> tuple[tuple[int | None, ...], str | None]:
    """Global strides in bytes of a row-major ``shape`` in TMA order (dims 1..rank-1), and
    the reason one is not provably a multiple of 16 bytes (None when all are)."""
    rank = len(shape)
    div = tuple(divisibility) + (1,) * (rank - len(divisibility))
    strides: list[int | None] = []
    proven = element_bytes  # what the stride is provably a multiple of
    dynamic = False
    for d in range(rank - 1, 0, -1):  # stride of dim d-1 (outermost-first) = e * prod(d:)
        ext = shape[d]
        dynamic |= ext is None
        proven *= div[d] if ext is None else ext
        strides.append(None if dynamic else proven)
        if proven % STRIDE_ALIGN:
            if dynamic:
                return (), (f"global stride not a multiple of 16 bytes: dim {d - 1} steps a "
                            f"runtime extent product only provably a multiple of {proven} "
                            f"bytes (promise regcopy.divisibility on the dynamic dims)")
            return (), (f"global stride not a multiple of 16 bytes: dim {d - 1} steps "
                        f"{proven} bytes")
    return tuple(strides), None


def _dense_box(shared: Sliced) -> str | None:
    """Why the shared region is not the box laid out densely row-major (None if it is)."""
    iters = [it for it in shared.layout.iters if it.extent != 1]
    if any(it.is_thread for it in iters):
        return "shared region has a thread axis"
    expect = 1
    for it in reversed(iters):
        if it.stride != expect:
            got = " ".join(map(str, iters)) or "(none)"
            return (f"shared region is not a dense row-major box: iters {got} (TMA writes the "
                    f"box densely; give the destination a row-major layout over the region)")
        expect *= it.extent
    return None


def plan_tma(req: TmaRequest) -> TmaPlan | str:
    """The tensor map and use of a global -> shared copy, or the reason TMA cannot do it.

    Checks, first failing wins: element size, rank, box dims, inner box bytes, box
    start column, global strides, dense destination, swizzle mode, inner box vs swizzle span, destination
    alignment."""
    if req.element_bits % 8 or _log2(req.element_bits // 8) is None:
        return f"element type of {req.element_bits} bits (TMA moves 1, 2, 4 or 8-byte elements)"
    e = req.element_bits // 8
    rank = len(req.box)
    if len(req.global_shape) != rank:
        return f"region rank {rank} differs from the global buffer's {len(req.global_shape)}"
    if not 1 <= rank <= MAX_RANK:
        return f"rank {rank} (TMA tensors have 1 to {MAX_RANK} dims)"
    for d, size in enumerate(req.box):
        if not 1 <= size <= MAX_BOX:
            return f"box extent {size} on dim {d} (TMA boxes are 1..{MAX_BOX} per dim)"
    inner = req.box[-1] * e
    if inner % BOX_ROW_ALIGN:
        return f"box inner extent {req.box[-1]} is {inner} bytes, not a multiple of 16 bytes"
    start = req.start_divisibility
    if start and (start * e) % BOX_START_ALIGN:
        return (f"box starts at a global column only provably a multiple of {start * e} "
                f"bytes ({start} elements); TMA needs the box start {BOX_START_ALIGN}-byte "
                f"aligned (start tiles on a multiple of {BOX_START_ALIGN // e} elements or "
                "wrap the column in regcopy.multiple_of)")
    strides, problem = global_layout(e, req.global_shape, req.global_divisibility)
    if problem:
        return problem
    problem = _dense_box(req.shared)
    if problem:
        return problem
    mode = swizzle_mode(req.shared.layout.swizzle, e)
    if isinstance(mode, str):
        return mode
    if mode is not SwizzleMode.NONE and inner != int(mode):
        return (f"box inner extent {req.box[-1]} is {inner} bytes; the {mode} swizzle needs "
                f"rows of exactly {int(mode)} bytes ({int(mode) // e} elements)")
    d = req.shared_base_divisibility
    if d and (d * e) % mode.period:
        return (f"shared destination offset is only provably a multiple of {d * e} bytes; "
                f"TMA with swizzle {mode} needs {mode.period}")
    return TmaPlan(e, tuple(reversed(req.global_shape)), strides,
                   tuple(reversed(req.box)), mode)
