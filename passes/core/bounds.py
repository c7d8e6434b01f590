"""Bounds of a copy on a dynamic global buffer: the stand-in the planner works on, the
vector width the runtime strides allow (proven, or versioned on a runtime test), the width
of a ragged tail, and the remark notes. Pure: the emitter is ``emit_bounds``.

A buffer ``memref<?x?xT>`` has runtime extents ``E_i`` and row-major strides
``stride_i = E_{i+1} * ... * E_{k-1}``. The planner needs static strides, so it plans the copy
on a **stand-in**: a static row-major buffer whose dim ``i >= 1`` has ``Q_i > s_i`` elements
(``s_i`` the region's size; ``Q_i`` a power of two, so no two dims ever merge), the region at
offset 0. Every S stride of the plan (``T_i * c``, ``T_i`` the stand-in stride of dim ``i``,
``0 <= c < Q_i``) then names one dim and a step ``c`` along it: ``project`` splits the plan's
atoms per dim, and the emitter recombines ``(o_i + coord_i) * stride_i`` with the runtime
strides and checks ``o_i + coord_i`` against ``E_i``.

The stand-in is offset 0, so the planner proves only what lies inside the tile; what the
runtime strides and the region offsets allow is ``alignment``: the gcd of
``d(o_{k-1})``, ``d(o_i) * d(stride_i)`` and (for a dim the tile spans, ``s_i > 1``)
``d(stride_i)``, with ``d`` the provable divisor (0 for the constant 0, a multiple of
anything). The width is capped to its power-of-two part. Where assuming ``stride_i % n == 0``
for the strides that fall short would allow a wider ``n``, the copy is **versioned**: the
runtime test picks the wide plan, else the proven one ("predicated": each narrow vector
under its own predicate), or the wide plan **realigned**, as ``misaligned_cost`` picks: the
same ``n``-wide vectors, each of whose start is a multiple of the proven width ``g`` only; a
vector at element offset ``e``, ``k = e mod n`` (a multiple of ``g``), is moved as
``aligned_pieces(k, n)``: runs of ``w`` elements (``w`` a power of two, ``g <= w <= n``) each
starting at a multiple of ``w``, one branch per class of ``k`` (``misalignment_classes``).
(The model weighs issue slots, L2 sectors or L1 wavefronts and DRAM bytes: a warp along one
row realigns its stores, one over many rows predicates them; a read is realigned only where
its one-element loads are the bound, as for rows of 16- and 8-bit elements. On the H200,
32-bit loads of misaligned f32 rows ran at 0.99x of 128-bit ones, 32-bit stores at 0.62x;
with realigned stores an 8 x 1024 tile of misaligned rows runs at 0.95x or more of aligned
ones for 160 of 161 row lengths when a row band's column tiles run side by side:
docs/runtime.md.)

A vector covers ``n`` consecutive elements of the innermost dim, starting at a multiple of
``n`` (the tile's plan and the cap make it so). It is in bounds iff its first and last
elements are: one predicate a vector. Where the innermost extent is provably a multiple of
``w < n`` only, a vector may straddle it: it is then done as ``n / w`` pieces of ``w``, each
predicated on its own (each is wholly inside or wholly outside).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from math import gcd, prod

from regcopy_passes.core.planning import Atom, CopyPlan, ThreadAtom
from xdsl.dialects.builtin import DYNAMIC_INDEX

from regcopy_dialect.layout import Iter, Layout, Sliced, slice_region
from regcopy_dialect.radix import suffix_product


def pow2_part(d: int) -> int:
    """The largest power of two dividing ``d``; 0 for 0 (a multiple of anything)."""
    return d & -d


def standin_shape(sizes: Sequence[int]) -> tuple[int, ...]:
    """The stand-in buffer's shape: ``s_0``, then ``Q_i``, the least power of two above
    ``s_i`` (strictly: neighbouring dims never merge)."""
    return (sizes[0], *(1 << s.bit_length() for s in sizes[1:]))


def standin_slice(sizes: Sequence[int]) -> Sliced:
    """The stand-in buffer (row-major over ``standin_shape``) sliced to the region at 0."""
    shape = standin_shape(sizes)
    layout = Layout(tuple(Iter(e, s) for e, s in zip(shape, suffix_product(shape))))
    return slice_region(layout, shape, [0] * len(sizes), sizes)


def dim_of(stride: int, sizes: Sequence[int]) -> tuple[int, int]:
    """``(i, c)``: the stand-in stride ``stride`` is ``c`` steps along dim ``i``."""
    strides = suffix_product(standin_shape(sizes))
    for i, t in enumerate(strides):
        if stride >= t:
            assert stride % t == 0, (stride, sizes)
            return i, stride // t
    raise AssertionError(f"stride {stride} of the stand-in of {sizes}")


def project(plan: CopyPlan, sizes: Sequence[int], dim: int) -> CopyPlan:
    """``plan`` with every S stride replaced by its step along ``dim`` (0 off it): run
    through the same round and thread math, it gives the coordinate on ``dim``. Replica
    atoms stay replicas, so that a store out of a replicated R is still guarded to replica 0."""
    def step(s: int) -> int:
        i, c = dim_of(s, sizes) if s else (dim, 0)
        return c if i == dim else 0

    return replace(plan,
                   thread_atoms=tuple(ThreadAtom(a.extent, a.t_stride, step(a.s_stride),
                                                 a.replica)
                                      for a in plan.thread_atoms),
                   outer=tuple(Atom(a.extent, step(a.s_stride), a.r_step) for a in plan.outer))


@dataclass(frozen=True)
class Extents:
    """What the pass knows of the dynamic buffer: each dim's static size (``DYNAMIC_INDEX``
    when runtime) and provable divisor (the size itself when static), the region."""

    shape: tuple[int, ...]
    divisors: tuple[int, ...]
    offsets_div: tuple[int, ...]
    """Provable divisor of each region offset (0: the constant 0)."""
    sizes: tuple[int, ...]
    name: str = "%S"
    stride_divisors: tuple[int, ...] | None = None
    """A ``strided<[...]>`` buffer's provable stride divisors (a static stride itself, a
    ``?`` one's ``regcopy.stride_divisibility`` entry, else 1); None: row-major."""
    offset_names: tuple[str, ...] = ()
    """How a remark names each region offset (a ``planning.ValueName`` for a dynamic one)."""

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def strided(self) -> bool:
        """Whether the strides are the buffer's own (``strided<[...]>``), not the extents'."""
        return self.stride_divisors is not None

    def dynamic(self, i: int) -> bool:
        return self.shape[i] == DYNAMIC_INDEX

    def stride_divisor(self, i: int) -> int:
        """Provable divisor of ``stride_i``: the product of the later extents' divisors, or
        the strided buffer's own (``stride_divisors``)."""
        if self.stride_divisors is not None:
            return self.stride_divisors[i]
        return prod(self.divisors[i + 1:])

    def spans(self, i: int) -> bool:
        """Whether ``stride_i`` enters the offsets (a row dim with a size or offset)."""
        return i < self.rank - 1 and (self.sizes[i] > 1 or self.offsets_div[i] != 0)


def alignment(ext: Extents, assume: frozenset[int] = frozenset()) -> int:
    """Provable divisor of every vector's start offset in the real buffer, assuming the
    strides ``stride_i`` (``i`` in ``assume``) multiples of anything; 0: of anything."""
    d = ext.offsets_div[-1]
    for i in range(ext.rank - 1):
        sd = 0 if i in assume else ext.stride_divisor(i)
        d = gcd(d, ext.offsets_div[i] * sd)
        if ext.sizes[i] > 1:
            d = gcd(d, sd)
    return d


def narrowing(ext: Extents, n: int, element_bits: int) -> str | None:
    """Why vectors of ``n`` elements cannot be proven aligned on the real buffer apart from
    the row strides (which versioning tests at run time): the first region offset, times
    its row stride, that is not provably a multiple of ``n``, and the promise that would
    make it one; None when every offset is."""
    last = ext.rank - 1
    for i in (last, *range(last)):
        d = ext.offsets_div[i]
        sd = 1 if i == last else ext.stride_divisor(i)
        if d == 0 or (d * sd) % n == 0:
            continue
        name = ext.offset_names[i] if i < len(ext.offset_names) else f"#{i}"
        need = n // gcd(n, sd)
        promise = name.promise(need) if hasattr(name, "promise") else \
            f"promise it is a multiple of {need} (regcopy.multiple_of)"
        where = "column offset" if i == last else \
            f"row offset (dim {i}, row stride {stride_name(ext, i)} provably a multiple of " \
            f"{sd})"
        return (f"{n}-wide refused: {where} {name} (provably a multiple of {d}) is not a "
                f"multiple of {need}; for {n * element_bits}-bit transfers, {promise}")
    return None


def stride_tests(ext: Extents, n: int) -> tuple[int, ...]:
    """The dims ``i`` whose ``stride_i % n == 0`` is not proven but needed for width ``n``."""
    return tuple(i for i in range(ext.rank - 1)
                 if ext.spans(i) and ext.stride_divisor(i) % n)


def cap_bits(d: int, element_bits: int, max_vector_bits: int) -> int:
    """The widest transfer (bits) an alignment of ``d`` elements allows, within the option."""
    if d == 0:
        return max_vector_bits
    return min(max_vector_bits, pow2_part(d) * element_bits)


def aligned_pieces(k: int, n: int) -> tuple[tuple[int, int], ...]:
    """``((p, w), ...)``: ``[0, n)`` cut into runs that are aligned in memory when element 0
    lies at ``k`` past a multiple of ``n`` (``n`` a power of two, ``0 <= k < n``): from
    ``p = 0``, each ``w`` is the largest power of two that divides ``k + p`` (``n`` when
    ``n`` does) and fits in ``n - p``. ``aligned_pieces(1, 4) == ((0, 1), (1, 2), (3, 1))``."""
    out: list[tuple[int, int]] = []
    p = 0
    while p < n:
        a = (k + p) % n
        w = pow2_part(a) if a else n
        while w > n - p:
            w //= 2
        out.append((p, w))
        p += w
    return tuple(out)


def misalignment_classes(n: int, granule: int
                         ) -> tuple[tuple[tuple[int, ...], tuple[tuple[int, int], ...]], ...]:
    """``((ks, pieces), ...)``: the misalignments ``k`` of an ``n``-vector (multiples of
    ``granule``) grouped by their ``aligned_pieces``, in order of their first ``k`` (``k = 0``,
    one whole vector, first). For ``n = 4``, granule 1: ``((0,), ((0, 4),))``,
    ``((1, 3), ((0, 1), (1, 2), (3, 1)))``, ``((2,), ((0, 2), (2, 2)))``."""
    classes: dict[tuple[tuple[int, int], ...], list[int]] = {}
    for k in range(0, n, granule):
        classes.setdefault(aligned_pieces(k, n), []).append(k)
    return tuple((tuple(ks), pieces) for pieces, ks in classes.items())


@dataclass(frozen=True)
class BoundedPath:
    """One way to run the copy: its plan (on the stand-in), the width ``w`` of a straddling
    vector's pieces (``w == plan.n``: no vector straddles), the stride tests that select it
    (empty: the fallback), and ``realign``: 0 when every vector start is a multiple of
    ``plan.n``, else the granule ``g`` its starts are proven multiples of (the vectors are
    realigned at run time, see the module docstring); ``staged``: 0, else that granule, the
    vectors moving through shared memory as transfers of ``staged`` elements in lane order
    (``misaligned_cost``)."""

    plan: CopyPlan
    tail: int
    tests: tuple[int, ...] = ()
    realign: int = 0
    staged: int = 0
    short: int = 0
    """Staged paths: rows shorter than ``short`` elements take the next path (the proven
    plan, predicated) instead, by a runtime test on the row length (0: none)."""
    shuffled: int = 0
    """0, else the granule: the vectors realigned across lanes by warp shuffles, each lane
    storing one aligned vector (``emit_shuffled``)."""


@dataclass(frozen=True)
class BoundedTransfer:
    """Vector transfers on a dynamic global buffer: one path, or a versioned pair (wide
    first, selected by ``stride_i % n == 0`` for each ``i`` of its tests, then the proven
    one), the dims checked (none under ``{in_bounds}``), the padding of reads."""

    paths: tuple[BoundedPath, ...]
    element_bits: int
    element_type: str
    checked: tuple[int, ...]
    padding: Hashable = None
    misaligned: str | None = None
    """The cost model's words on a write's misaligned form (``misaligned_cost``), if any."""
    narrowed_by: str | None = None
    """Why even the widest path's vectors are narrower than the tile allows (``narrowing``)."""
    reads: bool = False
    """Whether the copy reads the dynamic buffer (else it writes it)."""
    kind = "vector"

    @property
    def n(self) -> int:
        return self.paths[0].plan.n

    @property
    def instructions(self) -> int:
        return self.paths[0].plan.rounds

    def describe(self) -> str:
        """``vec 4 × f32 (128 bits), 8 rounds`` (the wide path's, when versioned)."""
        plan = self.paths[0].plan
        rounds = f"{plan.rounds} round{'s' if plan.rounds != 1 else ''}"
        return f"vec {plan.n} × {self.element_type} ({plan.n * self.element_bits} bits), " \
               f"{rounds}"


def tail_width(ext: Extents, path_n: int, tests: Sequence[int]) -> int:
    """The pieces of a straddling vector: ``gcd(n, d(E_{k-1}))`` (power-of-two part), or
    ``n`` when the innermost extent is static or tested a multiple of ``n`` (a row-major
    buffer's row stride is that extent; a strided buffer's is not)."""
    last = ext.rank - 1
    if not ext.dynamic(last) or ((last - 1) in tests and not ext.strided):
        return path_n
    return max(1, min(path_n, pow2_part(gcd(path_n, ext.divisors[last]))))


def fixed_dims(t: BoundedTransfer, sizes: Sequence[int]) -> tuple[int, ...]:
    """The checked dims along which no round moves a thread (every outer atom of the first
    path's plan, projected on the dim, has step 0): on such a dim ``i`` all the thread's
    elements sit at one coordinate ``o_i + coord_i`` (past it, on the innermost dim, where
    the vector runs), so when that coordinate is outside extent ``i`` none of them is in
    bounds, in any round or path. Empty when every path has one round (nothing to skip that
    the vector's own predicate does not)."""
    plan = t.paths[0].plan
    if all(p.plan.rounds == 1 for p in t.paths):
        return ()
    return tuple(i for i in t.checked
                 if all(a.s_stride == 0 for a in project(plan, sizes, i).outer))


def describe_paths(ext: Extents, t: BoundedTransfer) -> tuple[str, ...]:
    """The remark notes: what is checked and how, the tails, the versioning."""
    if not t.checked:  # no checks, but the widths may still be versioned or realigned
        return (*([f"narrowed: {t.narrowed_by}"] if t.narrowed_by else []),
                "in bounds: {in_bounds} (no checks)", *_width_notes(ext, t))
    dims = ", ".join(str(i) for i in t.checked)
    plural_dims = "s" if len(t.checked) > 1 else ""
    notes = [f"bounds-checked: one predicate per vector (extent{plural_dims} {dims} of {ext.name})"]
    if t.narrowed_by:
        notes.insert(0, f"narrowed: {t.narrowed_by}")
    if (fixed := fixed_dims(t, ext.sizes)) and not t.paths[0].staged:
        plural = len(fixed) > 1
        where = " of the wide path" if t.paths[-1].staged else \
            " of the wide and short-row paths" if any(p.short for p in t.paths) else ""
        notes.append(f"a thread whose first element is outside extent{'s' if plural else ''} "
                     f"{', '.join(map(str, fixed))} of {ext.name} skips its rounds{where} (no round "
                     "moves it along "
                     f"{'those dims' if plural else f'dim {fixed[0]}'})")
    last = ext.rank - 1
    for p in t.paths:
        if p.tail < p.plan.n and last in t.checked:
            why = (f"extent {last} divisible by {p.tail}" if p.tail > 1
                   else f"extent {last} has no divisibility promise")
            notes.append(f"ragged tail split to vec {p.tail} ({why})")
    return (*notes, *_width_notes(ext, t))


def _width_notes(ext: Extents, t: BoundedTransfer) -> list[str]:
    """The notes of a versioned or realigned copy (with or without bounds checks)."""
    et = t.element_type
    notes: list[str] = []
    if len(t.paths) == 1 and (only := t.paths[0]).realign:
        n, g = only.plan.n, only.realign
        notes.append(f"vec {n} × {et} realigned at run time (the static strides of "
                     f"{ext.name} prove {g}: a vector off {_an(n * t.element_bits // 8)}-byte "
                     f"boundary is stored as its aligned pieces, vec {g} to vec {n}, one "
                     "branch per misalignment)")
    if len(t.paths) == 1 and ((only := t.paths[0]).staged or only.shuffled):
        n, g = only.plan.n, only.staged or only.shuffled
        how, words = _lane_form_words(only, n, g, et, t.element_bits)
        notes.append(f"vec {n} × {et} {how} (the static strides of {ext.name} prove {g}: "
                     f"{words})")
    if len(t.paths) >= 2 and (t.paths[1].shuffled or t.paths[1].staged):
        wide, other = t.paths[:2]
        n = wide.plan.n
        g = other.shuffled or other.staged
        test = " and ".join(f"{stride_name(ext, i)} % {n} == 0" for i in wide.tests)
        how, words = _lane_form_words(other, n, g, et, t.element_bits)
        notes.append(f"versioned on {test}: vec {n} × {et}, else vec {n} × {et} {how} "
                     f"({_proves(ext, g)}: {words})")
        if other.short:
            notes.append(f"rows shorter than {other.short} elements ({ext.name} extent "
                         f"{ext.rank - 1} < {other.short}, tested at run time) not staged: "
                         f"vec {g} × {et}, each under its own predicate")
    elif len(t.paths) == 2:
        wide, other = t.paths
        n, g = wide.plan.n, other.plan.n if not other.realign else other.realign
        test = " and ".join(f"{stride_name(ext, i)} % {n} == 0" for i in wide.tests)
        proves = f"extent divisors {list(ext.divisors)} prove {g}" if not ext.strided else \
            f"stride divisors {list(ext.stride_divisors or ())} prove {g}"
        if other.realign:
            verb = "loaded" if t.reads else "stored"
            notes.append(f"versioned on {test}: vec {n} × {et}, else vec {n} × {et} realigned "
                         f"at run time ({proves}: a vector off {_an(n * t.element_bits // 8)}"
                         f"-byte boundary is {verb} as its aligned pieces, vec {g} to vec "
                         f"{n}, one branch per misalignment)")
        else:
            each = ", each under its own predicate" if t.misaligned else ""
            notes.append(f"versioned on {test}: vec {n} × {et} else vec {g} × {et}{each}, "
                         f"{other.plan.rounds} rounds ({proves})")
    if t.misaligned:
        notes.append(t.misaligned)
    return notes


def _proves(ext: Extents, g: int) -> str:
    """``extent divisors [..] prove g`` (or the stride divisors of a strided buffer)."""
    return f"extent divisors {list(ext.divisors)} prove {g}" if not ext.strided else \
        f"stride divisors {list(ext.stride_divisors or ())} prove {g}"


def _lane_form_words(path: BoundedPath, n: int, g: int, et: str, bits: int
                     ) -> tuple[str, str]:
    """``(how, words)`` of a staged or shuffled path's remark: what it does to a vector, and
    how its vectors move."""
    if path.shuffled:
        return "shuffled at run time", _shuffled_words(n, bits)
    return "staged through shared memory", _staged_words(n, g, et)


def _shuffled_words(n: int, bits: int) -> str:
    """How a shuffled vector moves."""
    return (f"each lane takes the previous lane's vector by {n * bits // 32} warp shuffles "
            "and stores one aligned vector, the first lane of each row's run the run's two "
            "partial ones as pieces, one branch per misalignment")


def _staged_words(n: int, g: int, et: str) -> str:
    """How a staged vector moves."""
    return (f"each warp's vectors pass through its own slice, moved as vec {g} × {et} in lane "
            f"order, {n // g} a vector, each under its own predicate")


def _an(number: int) -> str:
    """``a 16``, ``an 8``: the article a number's English name takes."""
    return f"{'an' if str(number).startswith('8') or number in (11, 18) else 'a'} {number}"


def stride_name(ext: Extents, i: int) -> str:
    """``%A extent 1`` (the row stride of a 2-D buffer), ``%A extents 1 * 2``; ``%A stride
    0`` for a strided buffer."""
    if ext.strided:
        return f"{ext.name} stride {i}"
    dims = list(range(i + 1, ext.rank))
    word = "extent" if len(dims) == 1 else "extents"
    return f"{ext.name} {word} {' * '.join(map(str, dims))}"


def bounded_key(ext: Extents, in_bounds: bool, padding: Hashable) -> Hashable:
    """What the bounded plan reads besides the types and regions (for ``plan_key``)."""
    return (ext.divisors, ext.offsets_div, ext.name, in_bounds, padding, ext.stride_divisors)


PlanAt = Callable[[int], CopyPlan]
"""``plan_at(max_vector_bits)``: the stand-in plan within a width cap."""


RealignTest = Callable[[CopyPlan, int, int, bool], "bool | str"]
"""``realign(wide_plan, granule, tail, writes)``: the form of a copy's misaligned vectors,
``misaligned_cost`` deciding: ``"realigned"`` (or True), ``"shuffled"``, ``"staged"``, else
predicated (the proven plan)."""


def choose_paths(plan_at: PlanAt, ext: Extents, element_bits: int,
                 max_vector_bits: int, writes: bool = False,
                 realign: RealignTest | None = None) -> tuple[BoundedPath, ...]:
    """The proven path and, where the runtime strides alone keep a wider width from being
    proven, the wide path before it (versioned); for a copy that ``writes`` the buffer the
    fallback is the wide plan realigned (granule: the proven width) instead, where
    ``realign`` says so (default: for writes), for reads and writes alike; else the proven
    plan, each of its narrow vectors under its own predicate."""
    proven = plan_at(cap_bits(alignment(ext), element_bits, max_vector_bits))
    proven_path = BoundedPath(proven, tail_width(ext, proven.n, ()))
    wide = plan_at(cap_bits(alignment(ext, runtime_strides(ext)), element_bits,
                            max_vector_bits))

    def misaligned_path(plan: CopyPlan, tail: int) -> BoundedPath | None:
        """``plan`` realigned or staged where ``realign`` says so (default: realigned for
        writes); None: predicated (the proven plan)."""
        form = realign(plan, proven.n, tail, writes) if realign is not None else writes
        if form is True or form == "realigned":
            return BoundedPath(plan, tail, (), proven.n)
        if form == "shuffled":
            return BoundedPath(plan, plan.n, (), shuffled=proven.n)
        return BoundedPath(plan, plan.n, (), 0, proven.n) if form == "staged" else None

    if wide.n > proven.n:  # a runtime test on the dynamic strides can pick the wide path
        tests = stride_tests(ext, wide.n)
        tail = min(tail_width(ext, wide.n, ()), proven.n)
        wide_path = BoundedPath(wide, tail_width(ext, wide.n, tests), tests)
        return (wide_path, misaligned_path(wide, tail) or proven_path)
    # static strides decide: no test (it would be constant); realign at run time where chosen
    full = plan_at(cap_bits(alignment(ext, frozenset(range(ext.rank - 1))), element_bits,
                            max_vector_bits))
    if full.n > proven.n:
        tail = min(tail_width(ext, full.n, ()), proven.n)
        if (path := misaligned_path(full, tail)) is not None:
            return (path,)
    return (proven_path,)


def runtime_strides(ext: Extents) -> frozenset[int]:
    """The dims ``i`` whose stride is a runtime value (a later extent is dynamic): only
    these can be tested at run time; a static stride's divisibility is known here."""
    return frozenset(i for i in range(ext.rank - 1)
                     if any(ext.dynamic(j) for j in range(i + 1, ext.rank)))
