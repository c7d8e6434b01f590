"""Planning of ``regcopy.copy_async`` (global -> shared) as per-thread ``cp.async`` chunks.

The region is read as one flat row-major index ``e`` (the same on both sides: their non-unit
sizes agree in order). A *chunk* is ``w`` consecutive values of ``e`` (``w * bytes(T)`` = 16, 8
or 4 bytes, the widths of ``cp.async``). A width is legal when, on both sides,

* the chunk is contiguous in memory: the innermost ``w`` region elements have stride 1
  (after merging contiguous iters), and ``w`` divides the innermost contiguous run;
* every chunk start is a multiple of ``w`` elements: the region base (static part and the
  divisibility of dynamic offsets) and the strides of the chunk-level iters all are;
* on a swizzled shared side, ``w`` divides the swizzle's contiguous unit ``2^M`` (the swizzle
  then moves whole chunks: ``swizzle(start + i) = swizzle(start) + i`` for ``i < w``).

The widest legal width wins. Chunk ``c`` (``0 <= c < C``, ``C = N / w``) goes to thread
``c mod T`` of the scope's ``T`` threads, in round ``c div T`` (consecutive threads take
consecutive chunks: coalesced reads). Chunk ``c``'s element offset on a side is
``base + sum_i ((c div q_i) mod e_i) * s_i`` over that side's *chunk layout* (the region's
iters with the inner ``w`` elements divided out).

A global buffer with runtime extents is planned on ``bounds``'s stand-in (``async_bounds``):
a width must also keep every chunk start in the real buffer a multiple of ``w`` (the offsets'
and row pitches' divisors); where only the runtime row pitches keep a wider width from being
proven, the plan is versioned (``AsyncPlan.fallback``: the proven plan, run when the
row-pitch tests fail).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, replace
from typing import Any

from regcopy_passes.async_copy.bounds import (
    AsyncBounds,
    async_bounds,
    optimistic,
    start_problem,
    version_tests,
)
from regcopy_passes.core.bounds import standin_slice
from regcopy_passes.core.dispatch import Rejected, check_copy_runs
from regcopy_passes.core.divisibility import divisibility
from xdsl.ir import SSAValue

from regcopy_dialect.async_ops import CP_ASYNC_BYTES, CopyAsyncOp
from regcopy_dialect.buffers import is_dynamic
from regcopy_dialect.layout import (
    Iter,
    Layout,
    LayoutError,
    Scope,
    Sliced,
    merge_contiguous,
    slice_region,
)
from regcopy_dialect.regcopy import buffer_layout, element_bits


@dataclass(frozen=True)
class AsyncPlan:
    """How one thread group moves a region with ``cp.async``: ``chunk`` elements (``nbytes``
    bytes) per instruction, ``chunks`` in all, ``rounds`` per thread over ``threads`` threads;
    ``g``/``s`` the sliced global and shared layouts and ``g_chunks``/``s_chunks`` their
    chunk layouts; ``narrowed_by`` why no wider width (None at 16 bytes)."""

    scope: Scope
    threads: int
    element_bytes: int
    chunk: int
    nbytes: int
    chunks: int
    g: Sliced
    s: Sliced
    g_chunks: Layout
    s_chunks: Layout
    narrowed_by: str | None
    element_type: str = ""
    bounds: AsyncBounds | None = None
    """A global side with runtime extents (``async_bounds``); None: static."""
    fallback: AsyncPlan | None = None
    """Versioned: the proven plan, run when ``bounds.tests`` fail at run time."""

    @property
    def rounds(self) -> int:
        return -(-self.chunks // self.threads)

    @property
    def guarded(self) -> bool:
        """Whether the last round has threads without a chunk (``C mod T != 0``)."""
        return self.chunks % self.threads != 0

    def describe(self) -> str:
        """``cp.async.cg 16 bytes (8 × f16), 2 chunks/thread``."""
        kind = "cg" if self.nbytes == 16 else "ca"
        per = self.rounds
        head = (f"cp.async.{kind} {self.nbytes} bytes ({self.chunk} × {self.element_type}), "
                f"{per} chunk{'' if per == 1 else 's'}/thread")
        return head + (", guarded" if self.guarded else "")


def chunk_layout(layout: Layout, w: int) -> Layout | str:
    """``layout`` (over the region, row-major) with its inner ``w`` elements divided out, or
    why the inner ``w`` elements are not one contiguous, stride-1 run (``w = 1``: every
    element is a chunk, at any stride)."""
    merged = merge_contiguous(Layout(tuple(i for i in layout.iters if i.extent > 1)))
    iters = list(merged.iters)
    if not iters:
        return "the region has one element" if w > 1 else Layout(())
    if w == 1:  # one element is a contiguous run whatever the strides (a column copy)
        return Layout(tuple(iters))
    inner = iters[-1]
    if inner.stride != 1:
        return f"the innermost region dim has stride {inner.stride}, not 1"
    if inner.extent % w:
        return f"the contiguous run of {inner.extent} elements is not a multiple of {w}"
    iters[-1] = Iter(inner.extent // w, w)
    return Layout(tuple(i for i in iters if i.extent > 1))


def _alignment(sliced: Sliced, chunks: Layout, divisors: dict[Hashable, int]) -> int:
    """The largest divisor provable for every chunk start: gcd of the base's divisibility and
    the chunk strides (0: every start is 0)."""
    from math import gcd

    d = sliced.base.divisibility(divisors)
    for it in chunks.iters:
        d = gcd(d, it.stride)
    return d


def _width_problem(g: Sliced, s: Sliced, w: int, total: int,
                   divisors: dict[Hashable, int], bounds: AsyncBounds | None = None,
                   assume: frozenset[int] = frozenset()
                   ) -> tuple[str | None, Layout, Layout]:
    if bounds is not None and (problem := start_problem(bounds.ext, w, assume)):
        return problem, Layout(()), Layout(())
    if total % w:
        return f"the region's {total} elements are not a multiple of {w}", Layout(()), Layout(())
    layouts = []
    for side, sl in (("global", g), ("shared", s)):
        cl = chunk_layout(sl.layout.without_swizzle(), w)
        if isinstance(cl, str):
            return f"{side} side: {cl}", Layout(()), Layout(())
        align = _alignment(sl, cl, divisors)
        if align and align % w:
            return (f"{side} side: chunk starts are multiples of {align} elements only, not "
                    f"of {w}", Layout(()), Layout(()))
        layouts.append(cl)
    sw = s.layout.swizzle
    if sw is not None and sw.chunk % w:
        return (f"the shared swizzle {sw} keeps runs of {sw.chunk} elements contiguous, "
                f"fewer than {w}", Layout(()), Layout(()))
    return None, layouts[0], layouts[1]


def plan_async(op: CopyAsyncOp) -> AsyncPlan:
    """Plan ``op`` (raises ``Rejected`` with the reason)."""
    scope, block = check_copy_runs(op)
    bits = element_bits(op.src_type.element_type) or 0
    if bits % 8:
        raise Rejected(f"element type {op.src_type.element_type} is not whole bytes")
    eb = bits // 8
    try:
        sides = []
        for side in ("src", "dst"):
            t = op.src_type if side == "src" else op.dst_type
            offsets, sizes = op.region(side)
            if side == "src" and is_dynamic(t):  # the stand-in (async_bounds)
                sides.append(standin_slice(sizes))
                continue
            sides.append(slice_region(buffer_layout(t), t.get_shape(), offsets, sizes))
    except LayoutError as e:
        raise Rejected(f"a side does not slice cleanly to its region: {e}") from None
    g, s = sides
    if g.layout.swizzle is not None:
        raise Rejected(f"the global side is swizzled ({g.layout.swizzle}); cp.async reads "
                       "plain global memory")
    syms = [sym for side in (g, s) for sym, _ in side.base.terms]
    divisors = {sym: divisibility(sym) for sym in syms if isinstance(sym, SSAValue)}
    total = g.layout.size
    bounds = async_bounds(op) if is_dynamic(op.src_type) else None
    head = (scope, scope.threads(block), eb, g, s, divisors, str(op.src_type.element_type))
    proven = _widest(head, total, bounds, frozenset())
    if isinstance(proven, str):
        raise Rejected("no cp.async width fits (4, 8 or 16 bytes, contiguous and aligned on "
                       f"both sides): {proven}")
    if bounds is None:
        return proven
    wide = _widest(head, total, bounds, optimistic(bounds.ext))
    if isinstance(wide, str) or wide.chunk <= proven.chunk:
        return proven
    tests = version_tests(bounds.ext, wide.chunk)
    assert tests, (bounds, wide.chunk)
    return replace(wide, bounds=replace(bounds, tests=tests), fallback=proven)


def _widest(head: tuple[Any, ...], total: int, bounds: AsyncBounds | None,
            assume: frozenset[int]) -> AsyncPlan | str:
    """The widest legal width's plan (``assume``: the row pitches assumed aligned), or why
    none is legal."""
    scope, threads, eb, g, s, divisors, element_type = head
    why_not: list[str] = []
    for nbytes in CP_ASYNC_BYTES[::-1]:
        if nbytes % eb:
            continue
        w = nbytes // eb
        problem, gc, sc = _width_problem(g, s, w, total, divisors, bounds, assume)
        if problem is None:
            narrowed = None if not why_not else "; ".join(why_not)
            return AsyncPlan(scope, threads, eb, w, nbytes, total // w, g, s, gc, sc, narrowed,
                             element_type, bounds)
        why_not.append(f"not {nbytes} bytes: {problem}")
    return "; ".join(why_not)
