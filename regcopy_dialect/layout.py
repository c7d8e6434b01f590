"""The layout algebra: pure Python, no xDSL imports.

A *layout* maps a logical index of a tile to where its element lives. It is a flat list of
*iters* ``extent : stride[@axis]``, outermost first. A flat logical index ``l`` in
``[0, prod(extents))`` is decoded row-major over the extents (last iter fastest) into digits
``c_k``; then

* the memory offset is ``sum(c_k * stride_k)`` over the iters without an axis (a register slot
  for a ``local`` buffer, an element offset otherwise), passed through the swizzle if any;
* the value of thread axis ``a`` is ``sum(c_k * stride_k)`` over the iters on ``a``.

A ``local`` layout may also carry *replicas* (``replicate<...>``): iters on thread axes only
that index no logical element. With replica digits ``r_j`` the element's owners are every
thread whose axis values are its own plus ``sum(r_j * stride_j)`` over the replica iters on
that axis; replica ``r = 0`` is the *representative* (``replica_shifts``).

Every function here is pure and every value type immutable, in the spirit of CUTLASS's pycute
and TIRx's ``layout.py``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from itertools import product
from math import gcd, prod
from typing import Generic, Protocol, TypeVar, cast

from regcopy_dialect.index_math import INT_MATH
from regcopy_dialect.radix import idx2crd, swizzle
from regcopy_dialect.xor_map import XorMap


class LayoutError(ValueError):
    """A layout operation that has no answer (grouping or slicing that does not fit)."""


# --------------------------------------------------------------------------------------------
# Thread axes
# --------------------------------------------------------------------------------------------


WARP = 32
"""Threads in a warp (lanes)."""

WARPGROUP_WARPS = 4
"""Warps in a warpgroup (a warpgroup has ``WARPGROUP_WARPS * WARP`` = 128 threads)."""


class Scope(IntEnum):
    """Execution scopes, ordered by width: thread < warp < warpgroup < cta."""

    THREAD = 0
    WARP = 1
    WARPGROUP = 2
    CTA = 3

    def threads(self, block: int) -> int:
        """Number of threads in one group of this scope (a CTA has ``block`` threads)."""
        return {Scope.THREAD: 1, Scope.WARP: WARP, Scope.WARPGROUP: WARPGROUP_WARPS * WARP,
                Scope.CTA: block}[self]

    @property
    def fused_axis(self) -> str | None:
        """The thread axis that indexes a thread inside one group of this scope: the axis of
        ``THREAD_AXES`` counting single threads within this scope (``laneid`` for a warp,
        ``tid_in_wg`` for a warpgroup, ``tx`` for a CTA; none for a thread)."""
        return next((a.name for a in THREAD_AXES.values()
                     if a.scope is self and a.subscope is Scope.THREAD), None)


@dataclass(frozen=True)
class ThreadAxis:
    """A thread axis: the index of a ``subscope`` group inside its ``scope`` group.

    For a thread with index ``t`` inside a group of a scope at least as wide as ``scope``,
    the axis value is ``(t // unit) % period`` with ``unit`` the threads of one ``subscope``
    group and ``period = threads(scope) / unit`` (unbounded for cta-scope axes).
    """

    name: str
    scope: Scope
    subscope: Scope

    @property
    def unit(self) -> int:
        return self.subscope.threads(1)

    @property
    def period(self) -> int | None:
        if self.scope is Scope.CTA:
            return None
        return self.scope.threads(1) // self.unit

    def value(self, t: int) -> int:
        """The axis value of the thread with scope-local index ``t``."""
        q = t // self.unit
        return q if self.period is None else q % self.period


THREAD_AXES: dict[str, ThreadAxis] = {
    a.name: a
    for a in (
        ThreadAxis("laneid", Scope.WARP, Scope.THREAD),
        ThreadAxis("tid_in_wg", Scope.WARPGROUP, Scope.THREAD),
        ThreadAxis("wid_in_wg", Scope.WARPGROUP, Scope.WARP),
        ThreadAxis("tx", Scope.CTA, Scope.THREAD),
        ThreadAxis("warpid", Scope.CTA, Scope.WARP),
        ThreadAxis("wgid", Scope.CTA, Scope.WARPGROUP),
    )
}


# --------------------------------------------------------------------------------------------
# Value types
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Iter:
    """One iter ``extent : stride[@axis]``; ``axis is None`` means the memory axis."""

    extent: int
    stride: int
    axis: str | None = None

    @property
    def is_thread(self) -> bool:
        return self.axis is not None

    def __str__(self) -> str:
        return f"{self.extent}:{self.stride}" + (f"@{self.axis}" if self.axis else "")


@dataclass(frozen=True)
class Swizzle(XorMap):
    """``swizzle<M,B,S>``: ``phys(m) = (g(m >> M) << M) | (m & (2^M - 1))`` with
    ``g(x) = x ^ ((x & ((2^B - 1) << S)) >> S)``. Chunks of ``2^M`` elements stay contiguous.
    One instance of the general XOR map (``xor_map``): offset bit ``M+S+j`` flips bit ``M+j``."""

    m_base: int
    bits: int
    shift: int

    def apply(self, m: int) -> int:
        """``m ^ (((m >> (M + S)) & (2^B - 1)) << M)``, the same as ``phys`` above: bits
        ``[M, M+B)`` of ``m`` XORed with bits ``[M+S, M+S+B)`` (``radix.swizzle`` on
        integers, the one definition of the map)."""
        return swizzle(INT_MATH, m, self)

    @property
    def bases(self) -> tuple[tuple[int, int], ...]:
        """``(M+S+j, 2^(M+j))`` for ``j < B``: the map's XOR bases."""
        top = self.m_base + self.shift
        return tuple((top + j, 1 << (self.m_base + j)) for j in range(self.bits))

    @property
    def read_end(self) -> int:
        """``M + S + B``."""
        return self.m_base + self.shift + self.bits

    @property
    def chunk(self) -> int:
        """Elements that the swizzle keeps contiguous (``2^M``)."""
        return 1 << self.m_base

    def __str__(self) -> str:
        return f"swizzle<{self.m_base},{self.bits},{self.shift}>"


@dataclass(frozen=True)
class Affine:
    """``const + sum(coeff * sym)``: an offset whose symbols are opaque hashable keys."""

    const: int = 0
    terms: tuple[tuple[Hashable, int], ...] = ()

    def __add__(self, other: Affine | int) -> Affine:
        if isinstance(other, int):
            return Affine(self.const + other, self.terms)
        return Affine(self.const + other.const, self.terms + other.terms)

    def scaled(self, k: int) -> Affine:
        return Affine(self.const * k, tuple((s, c * k) for s, c in self.terms))

    @property
    def is_static(self) -> bool:
        return not self.terms

    def divisibility(self, divisor_of: Mapping[Hashable, int]) -> int:
        """The largest ``d`` for which ``self % d == 0`` is provable, given each symbol's
        divisibility; ``0`` means the offset is the constant 0 (divisible by anything)."""
        d = self.const
        for sym, coeff in self.terms:
            d = gcd(d, coeff * divisor_of.get(sym, 1))
        return abs(d)


@dataclass(frozen=True)
class Layout:
    """A flat list of iters, outermost first, an optional swizzle of the memory offset and
    the replica iters (thread axes only, no logical extent: see the module doc)."""

    iters: tuple[Iter, ...]
    swizzle: XorMap | None = None
    replicas: tuple[Iter, ...] = ()

    # ---- shape and printing ----------------------------------------------------------------
    @property
    def size(self) -> int:
        return prod(i.extent for i in self.iters)

    @property
    def extents(self) -> tuple[int, ...]:
        return tuple(i.extent for i in self.iters)

    @property
    def thread_iters(self) -> tuple[Iter, ...]:
        return tuple(i for i in self.iters if i.is_thread)

    @property
    def memory_iters(self) -> tuple[Iter, ...]:
        return tuple(i for i in self.iters if not i.is_thread)

    @property
    def owner_iters(self) -> tuple[Iter, ...]:
        """Every iter that moves the owner thread: the thread iters, then the replicas."""
        return self.thread_iters + self.replicas

    @property
    def replica_count(self) -> int:
        """Owners of each element: ``prod`` of the replica extents (1 without replicas)."""
        return prod(i.extent for i in self.replicas)

    def __str__(self) -> str:
        text = iters_text(self.iters)
        if self.replicas:
            text += f", replicate<{iters_text(self.replicas)}>"
        return text + (f", {self.swizzle}" if self.swizzle else "")

    # ---- evaluation ------------------------------------------------------------------------
    def digits(self, index: int) -> tuple[int, ...]:
        """Row-major digits of the flat logical ``index`` over the extents
        (``radix.idx2crd`` of ``index mod size``)."""
        return tuple(int(c) for c in idx2crd(INT_MATH, index % self.size, self.extents))

    def apply(self, index: int) -> tuple[dict[str, int], int]:
        """``index -> (thread-axis values, memory offset)``; the swizzle is applied."""
        axes: dict[str, int] = {}
        mem = 0
        for it, c in zip(self.iters, self.digits(index), strict=True):
            if it.axis is None:
                mem += c * it.stride
            else:
                axes[it.axis] = axes.get(it.axis, 0) + c * it.stride
        return axes, self.swizzle.apply(mem) if self.swizzle else mem

    def span(self) -> int:
        """Elements of linear storage the memory part needs: ``sum((e-1)*s) + 1``, rounded up
        to whole swizzle periods (a swizzle may move an offset up to ``2^(M+B)``)."""
        span = sum((i.extent - 1) * i.stride for i in self.memory_iters) + 1
        if self.swizzle is None:
            return span
        period = self.swizzle.period
        return -(-span // period) * period

    # ---- structural operations ------------------------------------------------------------
    def storage(self) -> Layout:
        """The memory part alone (for ``local``: one thread's registers, thread axes and
        replicas dropped)."""
        return Layout(self.memory_iters, self.swizzle)

    def without_swizzle(self) -> Layout:
        return Layout(self.iters, replicas=self.replicas)

    def without_replicas(self) -> Layout:
        """The representative's layout: replica ``r = 0`` alone."""
        return Layout(self.iters, self.swizzle)


def iters_text(iters: Sequence[Iter]) -> str:
    """``extents:strides`` as the attribute writes it (parentheses unless one iter)."""
    ext = ",".join(str(i.extent) for i in iters)
    st = ",".join(f"{i.stride}@{i.axis}" if i.axis else str(i.stride) for i in iters)
    return f"{ext}:{st}" if len(iters) == 1 else f"({ext}):({st})"


def replica_shifts(layout: Layout) -> tuple[dict[str, int], ...]:
    """The thread-axis shift of every replica, row-major over the replica digits ``r``
    (the representative ``r = 0``, all shifts 0, first): ``shift_a(r) = sum(r_j * s_j)``
    over the replica iters on axis ``a``. Thread ``t`` owns an element exactly when ``t``'s
    axis values are the element's owner values plus one of these shifts."""
    out: list[dict[str, int]] = []
    for digits in product(*(range(i.extent) for i in layout.replicas)):
        shift = {i.axis: 0 for i in layout.replicas if i.axis is not None}
        for c, it in zip(digits, layout.replicas, strict=True):
            assert it.axis is not None
            shift[it.axis] += c * it.stride
        out.append(shift)
    return tuple(out)


def replica_of(layout: Layout, owner: Mapping[str, int], axis: Callable[[str], int]
               ) -> int | None:
    """Which replica (its row-major index in ``replica_shifts``) the thread whose axis values
    ``axis`` gives is of an element whose representative has the thread-axis values ``owner``
    (axes absent from ``owner`` are 0); None when the thread owns no copy of the element.
    At most one replica matches: the layout is injective modulo replicas."""
    names = list(dict.fromkeys([*owner, *(i.axis for i in layout.replicas if i.axis)]))
    values = {a: axis(a) for a in names}
    for k, shift in enumerate(replica_shifts(layout)):
        if all(values[a] == owner.get(a, 0) + shift.get(a, 0) for a in names):
            return k
    return None


# --------------------------------------------------------------------------------------------
# Pure functions on layouts
# --------------------------------------------------------------------------------------------


def drop_unit_iters(iters: Iterable[Iter]) -> tuple[Iter, ...]:
    """Drop extent-1 iters (they contribute nothing to any offset)."""
    return tuple(i for i in iters if i.extent != 1)


class Radix(Protocol):
    """A digit of a row-major mixed radix: anything with an ``extent`` (an ``Iter``, or the
    lowering's atoms)."""

    @property
    def extent(self) -> int: ...


R = TypeVar("R", bound=Radix)


@dataclass(frozen=True)
class Peeled(Generic[R]):
    """``peel``'s result: ``taken`` (in radix order) and the ``rest``; ``complete`` when the
    taken extents multiply to the factor asked for. When not, ``rest``'s end on the peeled
    side is the digit that straddles the factor (if ``rest`` is not empty)."""

    taken: tuple[R, ...]
    rest: tuple[R, ...]
    complete: bool


def peel(digits: Sequence[R], need: int, cut: Callable[[R, int], tuple[R, R]],
         from_inner: bool = False) -> Peeled[R]:
    """Take digits from one end of a row-major mixed radix (the outer end, or the inner end
    ``from_inner``) until their extents multiply to ``need``.

    A digit of extent ``E`` with ``need % E == 0`` is taken whole. One with ``E % need ==
    0`` is cut: ``cut(d, f)`` splits it into an outer digit of extent ``E/f`` and an inner
    one of extent ``f`` with the same map (``(E, s) -> (E/f, s*f), (f, s)``); the part on
    the peeled side, of extent ``need``, is taken and the other stays. Any other digit
    straddles ``need``: the result is not ``complete``. ``group`` (outer end, one dim at a
    time) and the lowering's split of the vector width (inner end) are this one algorithm."""
    rest = list(reversed(digits)) if from_inner else list(digits)  # peeled end first
    taken: list[R] = []
    while need > 1 and rest:
        d = rest[0]
        if need % d.extent == 0:
            taken.append(rest.pop(0))
            need //= d.extent
        elif d.extent % need == 0:
            outer, inner = cut(d, need if from_inner else d.extent // need)
            taken.append(inner if from_inner else outer)
            rest[0] = outer if from_inner else inner
            need = 1
        else:
            break
    if from_inner:
        return Peeled(tuple(reversed(taken)), tuple(reversed(rest)), need == 1)
    return Peeled(tuple(taken), tuple(rest), need == 1)


def cut_iter(it: Iter, f: int) -> tuple[Iter, Iter]:
    """``(E, s) -> (E/f, s*f), (f, s)`` on the iter's axis: the same map, one digit more."""
    return Iter(it.extent // f, it.stride * f, it.axis), Iter(f, it.stride, it.axis)


def group(layout: Layout, shape: Sequence[int]) -> tuple[tuple[Iter, ...], ...]:
    """Split the iters into consecutive groups whose extent products are ``shape``'s dims
    (``peel`` from the outer end, one dim at a time).

    An iter ``(E, s)`` that straddles a boundary where the dim still needs a factor ``r``
    (``E % r == 0``) splits into ``(r, s * E/r)`` ending this group and ``(E/r, s)`` opening
    the next, as TIRx's ``group`` does. The logical map is unchanged.
    """
    if layout.size != prod(shape):
        raise LayoutError(f"layout {layout} has {layout.size} elements, shape "
                          f"{list(shape)} has {prod(shape)}")
    pending: Sequence[Iter] = drop_unit_iters(layout.iters)
    groups: list[tuple[Iter, ...]] = []
    for dim in shape:
        part = peel(pending, dim, cut_iter)
        if not part.complete:
            raise LayoutError(f"layout {layout} cannot be grouped against shape "
                              f"{list(shape)}: iter {part.rest[0] if part.rest else '(none)'} "
                              f"straddles dim {dim}")
        groups.append(part.taken)
        pending = part.rest
    return tuple(groups)


@dataclass(frozen=True)
class Sliced:
    """A layout restricted to a region: iters over the region (row-major over its sizes) and
    the base, i.e. where the region's first element lives."""

    layout: Layout
    base: Affine = field(default_factory=Affine)
    thread_base: tuple[tuple[str, int], ...] = ()


def _slice_group(members: tuple[Iter, ...], offset: int, size: int) -> tuple[tuple[Iter, ...], dict[str | None, int]] | None:
    """Slice one dim's group (a mixed radix) to ``[offset, offset + size)``; None if the range
    is not a clean sub-box: ``size = m * Q`` with ``Q`` the product of the inner iters from
    some ``j`` on, ``offset % Q == 0``, and digit ``j`` of ``offset`` plus ``m`` fits in ``E_j``."""
    inner = 1
    for j in range(len(members) - 1, -1, -1):
        ext = members[j].extent
        if size % inner == 0 and size // inner <= ext:
            m = size // inner
            if offset % inner != 0 or (offset // inner) % ext + m > ext:
                return None
            if offset // inner // ext >= prod(i.extent for i in members[:j]):
                return None
            kept = (Iter(m, members[j].stride, members[j].axis),) + members[j + 1:]
            base: dict[str | None, int] = {}
            digits = Layout(members).digits(offset)
            for it, c in zip(members, digits, strict=True):
                base[it.axis] = base.get(it.axis, 0) + c * it.stride
            return kept, base
        inner *= ext
    return ((), {}) if size == 1 and offset == 0 else None


def slice_region(layout: Layout, shape: Sequence[int], offsets: Sequence[int | Hashable],
                 sizes: Sequence[int]) -> Sliced:
    """Restrict ``layout`` (of a buffer of ``shape``) to the box ``offsets``/``sizes``.

    A static offset is sliced per dim by ``_slice_group``. A symbolic offset (any non-int
    hashable) is allowed on a dim whose group is at most one memory iter ``(E, s)``: it adds
    ``sym * s`` to the base. The swizzle is kept: it acts on the full offset, base included.
    """
    groups = group(layout.without_swizzle(), shape)
    iters: list[Iter] = []
    base = Affine()
    thread_base: dict[str, int] = {}
    for d, (members, off, size) in enumerate(zip(groups, offsets, sizes, strict=True)):
        if not isinstance(off, int):
            if len(members) > 1 or (members and members[0].is_thread):
                kind = "a thread dim" if members and members[0].is_thread else "not one memory iter"
                raise LayoutError(f"dynamic offset on dim {d} of layout {layout}, whose dim is "
                                  f"{kind}")
            stride = members[0].stride if members else 0
            kept: tuple[Iter, ...] = (Iter(size, stride),) if members else ()
            iters.extend(kept)
            base = base + Affine(0, ((off, stride),))
            continue
        sliced = _slice_group(members, off, size)
        if sliced is None:
            raise LayoutError(f"region [{off}, {off + size}) of dim {d} does not slice cleanly "
                              f"through iters {' '.join(map(str, members)) or '(none)'} of "
                              f"layout {layout}")
        kept, part = sliced
        iters.extend(kept)
        for axis, value in part.items():
            if axis is None:
                base = base + value
            elif value:
                thread_base[axis] = thread_base.get(axis, 0) + value
    return Sliced(Layout(tuple(iters), layout.swizzle, layout.replicas), base,
                  tuple(sorted(thread_base.items())))


def fuse_thread_axes(layout: Layout, scope: Scope) -> Layout:
    """Rewrite every thread iter onto the scope's own axis (``laneid`` for a warp,
    ``tid_in_wg`` for a warpgroup, ``tx`` for a CTA): ``s@a -> (s * unit(a))@fused``, the
    replicas alike.

    This is the map ``laneid + 32*wid_in_wg = tid_in_wg`` and its kin; it is exact when each
    element has one owner per replica (see ``owner_counts``)."""
    fused = scope.fused_axis

    def fuse(its: Sequence[Iter]) -> tuple[Iter, ...]:
        return tuple(it if it.axis is None or fused is None
                     else Iter(it.extent, it.stride * THREAD_AXES[it.axis].unit, fused)
                     for it in its)

    return Layout(fuse(layout.iters), layout.swizzle, fuse(layout.replicas))


def _merge(iters: Iterable[Iter]) -> tuple[Iter, ...]:
    out: list[Iter] = []
    for it in iters:
        if out and out[-1].axis == it.axis and out[-1].stride == it.extent * it.stride:
            out[-1] = Iter(out[-1].extent * it.extent, it.stride, it.axis)
        else:
            out.append(it)
    return tuple(out)


def merge_contiguous(layout: Layout) -> Layout:
    """Merge neighbours on the same axis when ``outer.stride == inner.extent * inner.stride``
    (in the iters, and in the replicas)."""
    return Layout(_merge(layout.iters), layout.swizzle, _merge(layout.replicas))


def canonicalize(layout: Layout, scope: Scope | None = None) -> Layout:
    """Drop extent-1 iters, fuse thread axes up to ``scope`` (when given), merge contiguous
    neighbours. The logical map (with fused axes read as the scope-local thread index) is
    unchanged."""
    lay = Layout(drop_unit_iters(layout.iters), layout.swizzle,
                 drop_unit_iters(layout.replicas))
    if scope is not None:
        lay = fuse_thread_axes(lay, scope)
    return merge_contiguous(lay)


# --------------------------------------------------------------------------------------------
# Injectivity and ownership
# --------------------------------------------------------------------------------------------

_ENUMERATION_LIMIT = 1 << 20
_OWNER_ENUMERATION_LIMIT = 1 << 16


def _sums(iters: Sequence[Iter]) -> Iterable[int]:
    for digits in product(*(range(i.extent) for i in iters)):
        yield sum(c * i.stride for c, i in zip(digits, iters, strict=True))


def is_injective(iters: Sequence[Iter]) -> bool:
    """Whether ``digits -> sum(c_k * s_k)`` is one-to-one.

    Sorted by stride, split the iters where the larger strides share a divisor ``D`` that
    exceeds the span of the smaller ones: then the map is injective iff both parts are (the
    larger part with its strides divided by ``D``). Parts that split no further are enumerated
    (up to 2^20 points; beyond that the layout is taken as not injective)."""
    its = sorted(drop_unit_iters(iters), key=lambda i: i.stride)
    if not its:
        return True
    if its[0].stride == 0:
        return False
    span = 0
    for k in range(len(its) - 1):
        span += (its[k].extent - 1) * its[k].stride
        d = 0
        for it in its[k + 1:]:
            d = gcd(d, it.stride)
        if d > span:
            upper = [Iter(i.extent, i.stride // d) for i in its[k + 1:]]
            return is_injective(its[:k + 1]) and is_injective(upper)
    if len(its) == 1:
        return True
    if prod(i.extent for i in its) > _ENUMERATION_LIMIT:
        return False
    seen = Counter(_sums(its))
    return all(n == 1 for n in seen.values())


def axis_overflow(layout: Layout) -> tuple[str, int, int] | None:
    """``(axis, max value, period)`` of the first bounded thread axis whose values exceed its
    range (e.g. ``laneid`` reaching 32), replicas counted, else None."""
    for name in dict.fromkeys(i.axis for i in layout.owner_iters):
        assert name is not None
        period = THREAD_AXES[name].period
        top = sum((i.extent - 1) * i.stride for i in layout.owner_iters if i.axis == name)
        if period is not None and top >= period:
            return name, top, period
    return None


def thread_map_injective(layout: Layout) -> bool:
    """Whether distinct thread coordinates, replica digits included, give distinct
    thread-axis value tuples (the element's owners and its replicas are all distinct)."""
    its = drop_unit_iters(layout.owner_iters)
    by_axis: dict[str | None, list[Iter]] = {}
    for it in its:
        by_axis.setdefault(it.axis, []).append(it)
    return all(is_injective(group_) for group_ in by_axis.values())


@dataclass(frozen=True)
class Ownership:
    """Who owns the elements of a (sliced) register layout among one scope group's threads.

    ``fewest``/``most``: the fewest and most owners of an element (replicas count: a layout
    with replicas wants ``replica_count`` owners everywhere); ``fused_exact``: whether every
    (element, replica) with exactly one owner ``t`` has ``t == sum(value_a * unit(a))`` over
    its thread-axis values (the fused, scope-local index that the lowering decodes);
    ``owners``: the owner threads (scope-local), empty when not enumerated."""

    fewest: int
    most: int
    fused_exact: bool = True
    owners: frozenset[int] = frozenset()


def ownership(layout: Layout, scope: Scope, block: int,
              base: Sequence[tuple[str, int]] = (), axes: Iterable[str] = ()) -> Ownership:
    """The ownership of ``layout``'s elements (see ``Ownership``).

    Thread ``t`` (scope-local index) owns an element when every constrained thread axis has
    the element's value at ``t`` (``ThreadAxis.value``), or the value of one of its replicas
    (``replica_shifts``). The constrained axes are the layout's own (replicas included),
    those of ``base`` (the values a slice pinned, ``Sliced.thread_base``) and ``axes`` (axes
    of the unsliced layout that a slice pinned to 0); an element's value on axis ``a`` is
    ``base[a] + sum(c_k * stride_k)`` over the iters on ``a``. Axes left out are
    unconstrained, which replicates the element over them. Without enumerating, ``(0, 0)``
    when the layout has more than 2^16 thread coordinates and more than threads."""
    start = dict(base)
    names = list(dict.fromkeys([*(i.axis for i in layout.owner_iters if i.axis is not None),
                                *start, *axes]))
    nthreads = scope.threads(block)
    if prod(i.extent for i in layout.owner_iters) > max(nthreads, _OWNER_ENUMERATION_LIMIT):
        return Ownership(0, 0, False)  # far more thread coordinates than threads
    by_values: dict[tuple[int, ...], list[int]] = {}
    for t in range(nthreads):
        by_values.setdefault(tuple(THREAD_AXES[a].value(t) for a in names), []).append(t)
    its = [i for i in layout.thread_iters if i.extent > 1]
    shifts = [tuple(sh.get(a, 0) for a in names) for sh in replica_shifts(layout)]
    counts: list[int] = []
    exact = True
    owners: set[int] = set()
    for digits in product(*(range(i.extent) for i in its)):
        key = [start.get(a, 0) for a in names]
        for c, it in zip(digits, its, strict=True):
            key[names.index(cast(str, it.axis))] += c * it.stride  # a thread iter
        mine: set[int] = set()
        for shift in shifts:
            values = tuple(k + d for k, d in zip(key, shift, strict=True))
            who = by_values.get(values, [])
            mine.update(who)
            fused = sum(v * THREAD_AXES[a].unit for a, v in zip(names, values, strict=True))
            exact = exact and (len(who) != 1 or who[0] == fused)
        counts.append(len(mine))
        owners.update(mine)
    return Ownership(min(counts), max(counts), exact, frozenset(owners))


def thread_origin(base: Sequence[tuple[str, int]]) -> int:
    """The fused scope-local index ``sum(value_a * unit(a))`` of the thread values a slice
    pinned (``Sliced.thread_base``): the owner of the region's first element."""
    return sum(v * THREAD_AXES[a].unit for a, v in base)


def owner_counts(layout: Layout, scope: Scope, block: int) -> tuple[int, int]:
    """``(fewest, most)`` owners of an element among the scope's threads (``ownership``
    without a slice base)."""
    o = ownership(layout, scope, block)
    return o.fewest, o.most
