"""``copy_async`` from a global buffer with runtime extents: what the chunk plan may assume,
which dims are checked, the versioning, and the remark notes. Pure (the emitter is
``emit_async_bounds``); the rules are the bounds-checked register copies' (``bounds``).

The global side is planned on ``bounds``'s **stand-in** (a static row-major buffer whose dim
``i >= 1`` has a power of two ``Q_i > s_i`` elements, the region at 0), so the chunk layout
names, per chunk iter, one dim and a step along it (``bounds.dim_of``); the emitter rebuilds
``sum((o_i + coord_i) * stride_i)`` with the runtime strides. The stand-in proves only what
lies inside the tile: a chunk start in the real buffer is a multiple of
``bounds.alignment(ext)`` (the offsets' and the row pitches' provable divisors), which must be
a multiple of the chunk width ``w``. Where assuming the row pitches multiples of anything
would allow a wider chunk, the copy is **versioned**: ``stride_i % w == 0`` (runtime) selects
the wide plan, else the proven one.

A chunk is ``w`` consecutive elements of the innermost dim starting at a multiple of ``w``,
so it is wholly inside, straddles the innermost extent ``E`` (``col < E < col + w``), or is
wholly outside (it cannot straddle when ``E`` is provably a multiple of ``w``: the size is
then ``bytes`` or 0). One predicate per chunk: the row coordinates ``<u`` their extents and
``col <u E``; inside, the source size is ``min(E - col, w) * bytes(T)`` (the hardware
zero-fills the rest of the ``w`` elements); outside, it is 0 and the global address is the
buffer's base (a valid address; nothing is read).
"""

from __future__ import annotations

from dataclasses import dataclass

from regcopy_passes.core.bounds import Extents, alignment, pow2_part, stride_tests
from regcopy_passes.reg_copy.plan_bounds import extents_of

from regcopy_dialect.async_ops import CopyAsyncOp


@dataclass(frozen=True)
class AsyncBounds:
    """A dynamic global side: its extents, the dims checked (none under ``{in_bounds}``),
    and the row-pitch tests that select this plan (empty: the proven plan)."""

    ext: Extents
    checked: tuple[int, ...]
    tests: tuple[int, ...] = ()


def async_bounds(op: CopyAsyncOp) -> AsyncBounds:
    """What the pass knows of ``op``'s dynamic source (the proven plan's bounds)."""
    ext = extents_of(op, "src")  # type: ignore[arg-type]  # same region API as regcopy.copy
    checked = () if op.in_bounds else tuple(i for i in range(ext.rank) if ext.dynamic(i))
    return AsyncBounds(ext, checked)


def optimistic(ext: Extents) -> frozenset[int]:
    """Every row pitch assumed a multiple of anything (the wide plan's assumption)."""
    return frozenset(range(ext.rank - 1))


def start_problem(ext: Extents, w: int, assume: frozenset[int] = frozenset()) -> str | None:
    """Why a chunk of ``w`` elements may start misaligned in the real buffer (None: it
    cannot): the offsets and row pitches prove only ``alignment(ext)``."""
    d = alignment(ext, assume)
    if d == 0 or pow2_part(d) % w == 0:
        return None
    unit = "element" if pow2_part(d) == 1 else "elements"
    return (f"global side: chunk starts in {ext.name} are provably multiples of {pow2_part(d)} "
            f"{unit} only, not of {w} ({_promise_hint(ext)})")


def _promise_hint(ext: Extents) -> str:
    """Which promise would prove wider chunk starts."""
    if ext.strided:
        return (f"stride divisors {list(ext.stride_divisors or ())}: a "
                "regcopy.stride_divisibility promise on the row stride lifts this")
    return (f"extent divisors {list(ext.divisors)}: a regcopy.divisibility promise on the "
            "row length lifts this")


def version_tests(ext: Extents, w: int) -> tuple[int, ...]:
    """The row pitches tested ``% w == 0`` at run time to select the wide plan."""
    return stride_tests(ext, w)



def may_straddle(ext: Extents, w: int, tests: tuple[int, ...] = ()) -> bool:
    """Whether a chunk of ``w`` elements may straddle the innermost extent ``E``: it cannot
    when ``E`` is provably a multiple of ``w`` (chunks start at multiples of ``w``), or is
    tested so (the row pitch of dim ``rank - 2`` of a row-major buffer is ``E``; a strided
    buffer's is its own stride)."""
    return ext.divisors[-1] % w != 0 and ((ext.rank - 2) not in tests or ext.strided)


def bounds_notes(b: AsyncBounds, element_bytes: int, w: int) -> tuple[str, ...]:
    """The remark notes of the checks and the zero fill (chunks of ``w`` elements)."""
    if not b.checked:
        return ("in bounds: {in_bounds} (no checks, full source size)",)
    dims = ", ".join(str(i) for i in b.checked)
    s = "s" if len(b.checked) > 1 else ""
    notes = [f"bounds-checked: one predicate per chunk (extent{s} {dims} of {b.ext.name}), "
             "never per element"]
    last = b.ext.rank - 1
    if last in b.checked and may_straddle(b.ext, w, b.tests):
        notes.append(f"a chunk straddling extent {last} keeps its width: the source size "
                     f"(elements inside × {element_bytes} bytes) zero-fills the rest")
    elif last in b.checked:
        why = (f"divisible by {b.ext.divisors[-1]}" if b.ext.divisors[-1] % w == 0
               else f"tested a multiple of {w}")
        notes.append(f"no chunk straddles extent {last} ({why}): each is wholly inside or "
                     "outside")
    notes.append(f"a chunk outside reads 0 bytes, its address clamped to {b.ext.name}'s base")
    return tuple(notes)
