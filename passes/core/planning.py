"""The lowering plan of an accepted register copy, one function a step:

1. ``align``: both sides canonical over the same region, S's swizzle stripped;
2. ``inherit_partition``: S grouped by R's iters (the partition);
3. ``drop_thread_iters``: the thread pairs split from the register pairs;
4. ``make_atoms`` / ``make_thread_atoms``: the per-thread loop nest and the thread digits;
5. ``choose_vector_width``: the widest vector both sides allow;
6. ``split``: the atoms split into the vector (inner) and the rounds (outer);
7. ``merge_outer`` and ``round_offsets``: the rounds and each round's offsets;
8. ``plan_decode`` and ``thread_offsets``: the thread's coordinates and its S share (the
   thread base).

``partition_of`` runs steps 1-4 and 8's decode (acceptance needs them), ``plan_copy`` steps
5-7; ``emit_thread``, ``emit_rounds`` and ``emit_copy`` write the result as IR.

Everything here is pure: it works on the layout algebra and on ``Affine`` offsets whose
symbols are opaque keys (the pass uses SSA values). Names: **R** is the ``local`` side, **S**
the other one.

An *atom* ``(extent, s_stride, r_step)`` is one level of the per-thread loop nest: moving one
step along it moves ``s_stride`` elements in S and ``r_step`` registers in R. A *thread atom*
``(extent, t_stride, s_stride)`` is one digit of the thread index ``t``: the thread's
coordinate on it is ``(t // t_stride) % extent`` and contributes ``coordinate * s_stride`` to
the thread's S base. A *replica atom* (``replica``) is a thread digit of R's replicas: it
has ``s_stride`` 0 (every replica moves the same elements into the same register slots) and
counts towards ownership for a load, but not for a store, where only replica 0 writes.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from math import gcd, prod

from regcopy_dialect.index_math import INT_MATH, IndexMath, V
from regcopy_dialect.layout import (
    Affine,
    Iter,
    Layout,
    Scope,
    Sliced,
    canonicalize,
    group,
    merge_contiguous,
    peel,
    thread_origin,
)
from regcopy_dialect.radix import place_digit, suffix_product
from regcopy_dialect.xor_map import XorMap


@dataclass(frozen=True)
class Atom:
    extent: int
    s_stride: int
    r_step: int


@dataclass(frozen=True)
class ThreadAtom:
    extent: int
    t_stride: int
    s_stride: int
    replica: bool = False


@dataclass(frozen=True)
class Aligned:
    """Step 1's output: both sides over the same logical region, canonical, S unswizzled."""

    r: Layout
    s: Layout
    swizzle: XorMap | None


@dataclass(frozen=True)
class VectorChoice:
    """Step 5's output: ``n`` elements a transfer, and why a wider width was refused."""

    n: int
    narrowed_by: str | None


@dataclass(frozen=True)
class ThreadDecode:
    """How a thread recovers its coordinates on the thread atoms from its scope-local index
    ``t`` (step 8), exactly mirrored by ``emit_thread``:

    ``x = t + shift`` (``shift = P - origin`` with ``P >= origin`` a multiple of every
    ``t_stride * extent``, so that ``x >= 0`` and ``x`` decodes like ``t - origin`` for
    ``t >= origin``); then, atom by atom in ``order``, ``q = r // t_stride`` and
    ``c = q % extent`` (the ``% extent`` only where ``mod`` says it can matter), where ``r``
    is ``x`` (``chained`` False) or what the previous atom left, ``r % t_stride`` (``chained``
    True: a greedy mixed-radix decode for gapped or non-nested strides). The thread owns data
    exactly when ``origin + sum(c * t_stride) == t`` (checked for every thread when planned)."""

    origin: int = 0
    shift: int = 0
    chained: bool = False
    order: tuple[int, ...] = ()
    mod: tuple[bool, ...] = ()


@dataclass(frozen=True)
class Partition:
    """What acceptance establishes and planning consumes (computed once, by
    ``partition_of``): both sides aligned (step 1), R's iters paired with S's groups and split
    into the thread atoms and the register atoms (steps 2-4), the scope's thread count, and
    the thread decode (step 8), None when no decode recovers the owners (``decode_reason``
    says why)."""

    aligned: Aligned
    thread_atoms: tuple[ThreadAtom, ...]
    atoms: tuple[Atom, ...]
    threads: int
    decode: ThreadDecode | None
    decode_reason: str | None = None
    store_once: bool = False
    """R is replicated and the copy's source: only replica 0 writes (see ``CopyPlan``)."""


@dataclass(frozen=True)
class CopyPlan:
    """All a rewrite needs: thread atoms, bases, vector width, outer atoms (the rounds)."""

    thread_atoms: tuple[ThreadAtom, ...]
    outer: tuple[Atom, ...]
    n: int
    s_base: Affine
    r_base: Affine
    swizzle: XorMap | None
    threads: int
    narrowed_by: str | None
    s_base_divisibility: int = 1
    """Provable divisor of ``s_base`` (the copy's S slice offset, dynamic parts included; 0
    for the constant 0). The thread share adds multiples of the thread atoms' S strides."""
    decode: ThreadDecode | None = None
    """How a thread decodes its coordinates on ``thread_atoms`` (step 8); None: the
    independent ``(t // ts) % e`` decode from origin 0 (see ``thread_decode``)."""
    store_once: bool = False
    """Out of a replicated R: a thread takes part only as replica 0 (its replica
    coordinates all 0), so each element is written once (``thread_offsets``'s ``writers``)."""

    @property
    def replicas(self) -> int:
        """Owners of each element: the product of the replica atoms' extents."""
        return prod(a.extent for a in self.thread_atoms if a.replica)

    @property
    def thread_decode(self) -> ThreadDecode:
        if self.decode is not None:
            return self.decode
        return _decode_variant(self.thread_atoms, 0, self.threads, chained=False)

    def thread_share(self, t: int) -> tuple[int, bool]:
        """Thread ``t``'s (scope-local) S offset share and whether it owns data, exactly as
        the lowered IR computes them (``thread_share`` with this plan's decode)."""
        return thread_share(self.thread_atoms, t, self.thread_decode, self.store_once)

    @property
    def rounds(self) -> int:
        return prod(a.extent for a in self.outer)

    def describe_replicas(self) -> str:
        """The remark's words on R's replicas: ``""`` without, else e.g. ``", 2 replicas
        (each loads)"`` or ``", 2 replicas (replica 0 stores)"``."""
        if self.replicas == 1:
            return ""
        return f", {self.replicas} replicas " + \
            ("(replica 0 stores)" if self.store_once else "(each loads)")

    @property
    def guarded(self) -> bool:
        """Whether some threads of the scope take no part (they own nothing, or, with
        ``store_once``, are replicas other than 0) and must be guarded out."""
        taking_part = [a for a in self.thread_atoms if not (a.replica and self.store_once)]
        return prod(a.extent for a in taking_part) < self.threads


# ---- step 1 -----------------------------------------------------------------------------------


def align(r: Sliced, s: Sliced, scope: Scope) -> Aligned:
    """Step 1. Canonicalize both sliced layouts (drop extent-1 iters, fuse R's thread axes up
    to the exec scope, merge contiguous neighbours) and strip S's swizzle."""
    return Aligned(canonicalize(r.layout, scope), canonicalize(s.layout.without_swizzle()),
                   s.layout.swizzle)


# ---- steps 2 and 3 ----------------------------------------------------------------------------


def inherit_partition(aligned: Aligned) -> list[tuple[Iter, tuple[Iter, ...]]]:
    """Step 2. Group S by R's extents (S group k covers the logical digits of R iter k) and
    order the pairs like R: thread iters first, then by register stride descending (stable).
    R is *not* re-canonicalized after the permutation (that would fuse iters and drop S
    groups, TIRx PR #19896)."""
    s_groups = group(aligned.s, aligned.r.extents)
    pairs = list(zip(aligned.r.iters, s_groups, strict=True))
    return sorted(pairs, key=lambda p: (0, 0) if p[0].is_thread else (1, -p[0].stride))


def drop_thread_iters(pairs: Sequence[tuple[Iter, tuple[Iter, ...]]]
                      ) -> tuple[list[tuple[Iter, tuple[Iter, ...]]],
                                 list[tuple[Iter, tuple[Iter, ...]]]]:
    """Step 3. Split the pairs into thread pairs (the partition) and register pairs (the
    per-thread work)."""
    return ([p for p in pairs if p[0].is_thread], [p for p in pairs if not p[0].is_thread])


# ---- step 4 -----------------------------------------------------------------------------------


def _expand(r_iter: Iter, s_group: tuple[Iter, ...]) -> list[tuple[int, int, int]]:
    """``(extent_j, s_stride_j, r_stride * product of the later S extents)`` per S iter."""
    out: list[tuple[int, int, int]] = []
    for j, s_it in enumerate(s_group):
        later = prod(i.extent for i in s_group[j + 1:])
        out.append((s_it.extent, s_it.stride, r_iter.stride * later))
    return out


def make_atoms(register_pairs: Sequence[tuple[Iter, tuple[Iter, ...]]]) -> tuple[Atom, ...]:
    """Step 4. One atom per S iter of each kept R iter's group, outer to inner."""
    return tuple(Atom(e, s, r) for r_it, grp in register_pairs for e, s, r in _expand(r_it, grp))


def make_thread_atoms(thread_pairs: Sequence[tuple[Iter, tuple[Iter, ...]]]
                      ) -> tuple[ThreadAtom, ...]:
    """Step 4 for the thread pairs: a thread iter split like its S group."""
    return tuple(ThreadAtom(e, t, s) for r_it, grp in thread_pairs for e, s, t in _expand(r_it, grp))


# ---- steps 5 and 6 ----------------------------------------------------------------------------


def split(atoms: Sequence[Atom], n: int) -> tuple[tuple[Atom, ...], tuple[Atom, ...]] | None:
    """Step 6. Consume atoms from the inner end until their extents multiply to ``n``; an
    atom that overshoots splits into ``(ext/f, s*f, r*f)`` (outer) and ``(f, s, r)`` (inner).
    Returns ``(outer, inner)``, or None when ``n`` does not divide the atoms cleanly. This is
    the layout algebra's ``peel`` from the inner end, on atoms instead of iters."""
    peeled = peel(atoms, n, _cut_atom, from_inner=True)
    return (peeled.rest, peeled.taken) if peeled.complete else None


def _cut_atom(a: Atom, f: int) -> tuple[Atom, Atom]:
    """``(E, s, r) -> (E/f, s*f, r*f), (f, s, r)``: the same map, one digit more."""
    return Atom(a.extent // f, a.s_stride * f, a.r_step * f), Atom(f, a.s_stride, a.r_step)


def _contiguous(inner: Sequence[Atom]) -> tuple[bool, bool]:
    """Whether the inner atoms are contiguous in S and in R (strides chain 1, e, e*e', ...)."""
    s_ok = r_ok = True
    run = 1
    for a in reversed(inner):
        s_ok = s_ok and a.s_stride == run
        r_ok = r_ok and a.r_step == run
        run *= a.extent
    return s_ok, r_ok


class ValueName(str):
    """The name of a dynamic offset as a remark prints it (``%k``), and what kind of value it
    is: ``"argument"`` (a kernel argument), ``"loop"`` (an ``scf.for`` induction variable),
    ``"value"`` (an op result) or ``"block argument"``; ``promise`` says what would prove it a
    multiple of ``m``."""

    kind: str

    def __new__(cls, text: str, kind: str = "value") -> ValueName:
        self = super().__new__(cls, text)
        self.kind = kind
        return self

    def promise(self, m: int) -> str:
        """The change that makes this value provably a multiple of ``m``."""
        wrap = (f"wrap it: {self}_{m} = regcopy.multiple_of {self}, {m} : index"
                if self.startswith("%") else f"wrap it in regcopy.multiple_of (..., {m})")
        if self.kind == "argument":
            return f"add {{regcopy.divisibility = {m} : i64}} to kernel argument {self}"
        if self.kind == "loop":
            return f"make the loop's lower bound and step multiples of {m}, or {wrap}"
        return wrap


def _lift(n: int, element_bits: int | None) -> str:
    """``"128-bit transfers"`` (or ``"8-element transfers"`` when the width is unknown)."""
    return f"{n * element_bits}-bit transfers" if element_bits else f"{n}-element transfers"


def _next_multiple(x: int, n: int) -> int:
    return -(-x // n) * n


def width_problem(n: int, atoms: Sequence[Atom], thread_atoms: Sequence[ThreadAtom],
                  s_base: Affine, r_base: Affine, swizzle: XorMap | None,
                  divisor_of: Mapping[Hashable, int], describe: Mapping[Hashable, str],
                  element_bits: int | None = None) -> str | None:
    """Step 5's test of one width ``n``: None when accepted, else the first reason against,
    followed (after ``"; "``) by the change that would lift it where one exists."""
    if n == 1:
        return None
    lift = _lift(n, element_bits)
    parts = split(atoms, n)
    if parts is None:
        return f"the per-thread atoms {[(a.extent, a.s_stride, a.r_step) for a in atoms]} " \
               f"do not split into {n}-element runs"
    outer, inner = parts
    s_ok, r_ok = _contiguous(inner)
    if not s_ok:
        return f"S is not contiguous over {n} elements; the memory side (S) must hold each " \
               f"thread's {n} consecutive register elements at consecutive addresses for {lift}"
    if not r_ok:
        return f"R registers are not contiguous over {n} elements (register gaps); a " \
               f"register tile whose innermost register stride is 1 would allow {lift}"
    for a in outer:
        if a.extent > 1 and (a.s_stride % n or a.r_step % n):
            hint = (f"; an S stride of {_next_multiple(a.s_stride, n)} there (a padded row "
                    f"pitch) would allow {lift}" if a.s_stride % n else "")
            return f"outer atom (extent {a.extent}, S stride {a.s_stride}, R step {a.r_step}) " \
                   f"is not a multiple of {n}{hint}"
    for t in thread_atoms:
        if t.extent > 1 and t.s_stride % n:
            return f"S stride {t.s_stride} multiplied by a thread coordinate is not a " \
                   f"multiple of {n}; an S stride of {_next_multiple(t.s_stride, n)} there " \
                   f"(a padded row pitch) would allow {lift}"
    for side, base in (("S", s_base), ("R", r_base)):
        if base.divisibility(divisor_of) % n == 0:
            continue
        if base.const % n:
            return f"{side} base offset {base.const} is not a multiple of {n}; a region " \
                   f"starting at a multiple of {n} elements would allow {lift}"
        for sym, coeff in base.terms:
            d = coeff * divisor_of.get(sym, 1)
            if d % n:
                name = describe.get(sym, str(sym))
                need = n // gcd(n, coeff)
                promise = name.promise(need) if isinstance(name, ValueName) else \
                    f"promise it is a multiple of {need} (regcopy.multiple_of)"
                return f"{side} offset {name} (provably a multiple of " \
                       f"{divisor_of.get(sym, 1)}) times stride {coeff} is not a multiple of " \
                       f"{n}; for {lift}, {promise}"
    if swizzle is not None and n > swizzle.chunk:
        return f"{n} elements exceed the swizzle chunk of {swizzle.chunk}"
    return None


def choose_vector_width(candidates: Sequence[int], atoms: Sequence[Atom],
                        thread_atoms: Sequence[ThreadAtom], s_base: Affine, r_base: Affine,
                        swizzle: XorMap | None, divisor_of: Mapping[Hashable, int],
                        describe: Mapping[Hashable, str],
                        element_bits: int | None = None) -> VectorChoice:
    """Step 5. The widest candidate ``n`` (elements, widest first) that passes
    ``width_problem``, falling back to 1; remembers why the widest candidate failed."""
    first_problem: str | None = None
    for n in [*candidates, 1]:
        problem = width_problem(n, atoms, thread_atoms, s_base, r_base, swizzle, divisor_of,
                                describe, element_bits)
        if problem is None:
            return VectorChoice(n, first_problem)
        if first_problem is None:
            first_problem = f"{n}-wide refused: {problem}"
    raise AssertionError("n = 1 is always accepted")


def width_candidates(element_bits: int, max_vector_bits: int) -> list[int]:
    """Element counts of the 128/64/32/16/8-bit widths that are a whole number of elements
    and at most ``max_vector_bits``, widest first."""
    return [bits // element_bits for bits in (128, 64, 32, 16, 8)
            if bits <= max_vector_bits and bits % element_bits == 0 and bits >= element_bits]


# ---- step 7 -----------------------------------------------------------------------------------


def merge_outer(outer: Sequence[Atom]) -> tuple[Atom, ...]:
    """Merge neighbouring outer atoms contiguous in both S and R (fewer div/mod per round)
    and drop extent-1 atoms; the rounds' offsets are unchanged."""
    lay_s = merge_contiguous(Layout(tuple(Iter(a.extent, a.s_stride) for a in outer
                                          if a.extent > 1)))
    lay_r = merge_contiguous(Layout(tuple(Iter(a.extent, a.r_step) for a in outer
                                          if a.extent > 1)))
    if lay_s.extents != lay_r.extents:  # merged differently on the two sides: keep as is
        return tuple(a for a in outer if a.extent > 1)
    return tuple(Atom(s.extent, s.stride, r.stride)
                 for s, r in zip(lay_s.iters, lay_r.iters, strict=True))


def round_offsets(m: IndexMath[V], outer: Sequence[Atom], f: V | int
                  ) -> tuple[V | int, V | int]:
    """Step 7. Decode round ``f`` row-major over the outer atoms (last fastest), digit
    ``c_i = (f // Q_i) % extent_i`` (``radix.place_digit``, no ``%`` on the outermost digit,
    ``f < rounds``): ``ds(f) = sum(c_i * s_stride_i)``, ``dr(f) = sum(c_i * r_step_i)``.
    Written once over ``IndexMath``: on integers here, as IR in the pass."""
    ds: V | int = 0
    dr: V | int = 0
    places = suffix_product([a.extent for a in outer])
    for k in range(len(outer) - 1, -1, -1):
        a = outer[k]
        c = place_digit(m, f, places[k], a.extent, k == 0, shifts=False)
        ds = m.add(ds, m.mul(c, a.s_stride))
        dr = m.add(dr, m.mul(c, a.r_step))
    return ds, dr


def round_deltas(outer: Sequence[Atom], f: int) -> tuple[int, int]:
    """``round_offsets`` on integers: ``(ds(f), dr(f))``."""
    ds, dr = round_offsets(INT_MATH, outer, f)
    return int(ds), int(dr)


# ---- step 8 -----------------------------------------------------------------------------------


def _decode_variant(thread_atoms: Sequence[ThreadAtom], origin: int, threads: int,
                    chained: bool) -> ThreadDecode:
    """The decode of one style, with ``% extent`` kept only where ``q`` can reach ``extent``
    (from the range of ``x`` or of the previous remainder)."""
    span = 1
    for a in thread_atoms:
        span = span * a.t_stride * a.extent // gcd(span, a.t_stride * a.extent)
    shift = -(-origin // span) * span - origin
    order = tuple(sorted(range(len(thread_atoms)), key=lambda k: -thread_atoms[k].t_stride))
    top = shift + threads - 1  # the largest x
    mod = [False] * len(thread_atoms)
    bound = top
    for k in order:
        a = thread_atoms[k]
        mod[k] = bound // a.t_stride >= a.extent
        if chained:
            bound = min(bound, a.t_stride - 1)
    return ThreadDecode(origin, shift, chained, order, tuple(mod))


def thread_coordinates(m: IndexMath[V], thread_atoms: Sequence[ThreadAtom],
                       dec: ThreadDecode, t: V | int, skip: frozenset[int] = frozenset()
                       ) -> tuple[V | int, ...]:
    """The coordinates thread ``t`` decodes (see ``ThreadDecode``), in atom order; those of
    the atoms in ``skip`` are left 0 (only for an independent decode, where no coordinate
    depends on another)."""
    assert not (skip and dec.chained)
    coords: list[V | int] = [0] * len(thread_atoms)
    r = m.add(t, dec.shift)
    for k in dec.order:
        if k in skip:
            continue
        a = thread_atoms[k]
        q = m.div(r, a.t_stride)
        coords[k] = m.rem(q, a.extent) if dec.mod[k] else q
        if dec.chained:
            r = m.rem(r, a.t_stride) if a.t_stride > 1 else 0
    return tuple(coords)


def thread_offsets(m: IndexMath[V], thread_atoms: Sequence[ThreadAtom], dec: ThreadDecode,
                   t: V | int, writers: bool = False, owned: bool = True
                   ) -> tuple[V | int, V | int]:
    """Step 8, written once over ``IndexMath``: thread ``t``'s S share ``sum(c * s_stride)``
    over its decoded coordinates, and ``origin + sum(c * t_stride)``, which equals ``t``
    exactly when ``t`` owns data. With ``writers`` the replica atoms are left out of the
    sum: it equals ``t`` exactly when ``t`` owns data as replica 0 (the decoded coordinates
    of an owner are unique, the t_strides positive, so a non-zero replica coordinate moves
    the sum off ``t``) -- one comparison guards out both non-owners and other replicas.
    A replica coordinate only feeds the sum; with ``writers``, or without ``owned`` (nobody
    reads the sum: the copy is not guarded), it is not decoded where the decode allows it."""
    offset: V | int = 0
    recon: V | int = dec.origin
    needed = owned and not writers
    skip = frozenset() if needed or dec.chained else \
        frozenset(k for k, a in enumerate(thread_atoms) if a.replica)
    for c, a in zip(thread_coordinates(m, thread_atoms, dec, t, skip), thread_atoms,  # type: ignore[arg-type]  # mypy binds V to V | int (see IndexMath)
                    strict=True):
        offset = m.add(offset, m.mul(c, a.s_stride))
        if not (writers and a.replica):
            recon = m.add(recon, m.mul(c, a.t_stride))
    return offset, recon


def thread_share(thread_atoms: Sequence[ThreadAtom], t: int,
                dec: ThreadDecode | None = None, writers: bool = False) -> tuple[int, bool]:
    """``thread_offsets`` on integers: thread ``t``'s S share and whether it takes part
    (owns data; with ``writers``, as replica 0)."""
    dec = dec if dec is not None else _decode_variant(thread_atoms, 0, t + 1, False)
    offset, recon = thread_offsets(INT_MATH, thread_atoms, dec, t, writers)
    return int(offset), recon == t


def owner_threads(thread_atoms: Sequence[ThreadAtom], origin: int) -> list[int]:
    """``origin + sum(c * t_stride)`` over all coordinates (with repeats if not injective)."""
    owners = [origin]
    for a in thread_atoms:
        owners = [o + c * a.t_stride for o in owners for c in range(a.extent)]
    return owners


def plan_decode(thread_atoms: Sequence[ThreadAtom], origin: int,
                threads: int) -> ThreadDecode | str:
    """Step 8's decode: the independent ``(t // ts) % e`` per atom if it is exact, else the
    chained (greedy) one; exact means that, over the scope's ``threads``, the threads whose
    decoded coordinates re-encode to themselves are exactly the owners. Returns the reason
    when neither is exact (or the owners repeat or fall outside the scope)."""
    atoms = [a for a in thread_atoms if a.extent > 1]
    if len(atoms) != len(thread_atoms):
        raise ValueError("plan_decode expects thread atoms of extent > 1")
    count = prod(a.extent for a in atoms)
    if count > threads:  # (before listing them: a replicate<2^31> would not fit in memory)
        return f"{count} thread coordinates for the scope's {threads} threads"
    owners = owner_threads(atoms, origin)
    if len(set(owners)) != len(owners):
        return "two thread coordinates map to one thread"
    if not all(0 <= o < threads for o in owners):
        return f"owner threads reach {max(owners)}, outside the scope's {threads} threads"
    wanted = set(owners)
    for chained in (False, True):
        dec = _decode_variant(atoms, origin, threads, chained)
        if all(thread_share(atoms, t, dec)[1] == (t in wanted) for t in range(threads)):
            return dec
    shown = sorted(wanted)
    listed = ", ".join(map(str, shown[:12])) + (", ..." if len(shown) > 12 else "")
    return f"the owner threads {{{listed}}} cannot be decoded from the thread index by " \
           "division and remainder"


def decode_problem(thread_atoms: Sequence[ThreadAtom], origin: int = 0,
                   threads: int | None = None) -> str | None:
    """Why no ``ThreadDecode`` recovers the owners of ``thread_atoms`` (None when one
    does); ``threads`` defaults to the span of the owners."""
    atoms = [a for a in thread_atoms if a.extent > 1]
    if threads is None:
        threads = max(owner_threads(atoms, origin)) + 1
    dec = plan_decode(atoms, origin, threads)
    return dec if isinstance(dec, str) else None


# ---- the whole plan ---------------------------------------------------------------------------


def replica_atoms(aligned: Aligned) -> tuple[ThreadAtom, ...]:
    """Step 4 for R's replicas (fused like its thread iters by ``align``): one thread atom
    ``(extent, stride, 0)`` each -- a replica moves the owner, not the S offset."""
    return tuple(ThreadAtom(i.extent, i.stride, 0, replica=True)
                 for i in aligned.r.replicas if i.extent > 1)


def partition_of(r: Sliced, s: Sliced, scope: Scope, threads: int,
                 store: bool = False) -> Partition:
    """Steps 1-4 and step 8's decode, once: what ``dispatch.accept`` checks and
    ``plan_copy`` consumes (``store``: R is the source). Raises ``LayoutError`` when S
    cannot be grouped by R. R's replicas join the thread atoms (``replica_atoms``), so the
    decode recovers a thread's replica coordinates as well as its element coordinates."""
    aligned = align(r, s, scope)
    thread_pairs, register_pairs = drop_thread_iters(inherit_partition(aligned))
    thread_atoms = tuple(a for a in make_thread_atoms(thread_pairs) if a.extent > 1)
    thread_atoms += replica_atoms(aligned)
    once = store and any(a.replica for a in thread_atoms)
    decode = plan_decode(thread_atoms, thread_origin(r.thread_base), threads)
    if isinstance(decode, str):
        return Partition(aligned, thread_atoms, make_atoms(register_pairs), threads, None, decode,
                         once)
    return Partition(aligned, thread_atoms, make_atoms(register_pairs), threads, decode,
                     store_once=once)


def plan_copy(part: Partition, r_base: Affine, s_base: Affine, element_bits: int,
              max_vector_bits: int, divisor_of: Mapping[Hashable, int],
              describe: Mapping[Hashable, str]) -> CopyPlan:
    """Steps 5-7 on an accepted copy's ``Partition`` (whose decode exists: acceptance
    refused the copy otherwise): the widest vector, the split, the merged rounds."""
    assert part.decode is not None, part.decode_reason
    swizzle = part.aligned.swizzle
    choice = choose_vector_width(width_candidates(element_bits, max_vector_bits), part.atoms,
                                 part.thread_atoms, s_base, r_base, swizzle, divisor_of,
                                 describe, element_bits)
    parts = split(part.atoms, choice.n)
    assert parts is not None
    return CopyPlan(part.thread_atoms, merge_outer(parts[0]), choice.n, s_base, r_base,
                    swizzle, part.threads, choice.narrowed_by,
                    s_base.divisibility(divisor_of), part.decode, part.store_once)
