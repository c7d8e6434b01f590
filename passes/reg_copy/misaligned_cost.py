"""The cost model of a misaligned copy: which form moves a copy's vectors when only a
runtime extent decides their alignment (the fallback of a versioned copy, ``bounds``). Stores
are described below; loads are weighed the same way, in the L1's 128-byte wavefronts instead
of L2 sectors, and realigned only where their predicated form is the bound
(``choose_misaligned_form``).

Two forms store the same ``n``-element vectors of a thread, each starting ``k`` elements past
an ``n``-aligned address (``k`` a multiple of the proven granule ``g``, known at run time):

* **realigned**: one branch per class of ``k`` (``bounds.misalignment_classes``), each
  class storing its aligned pieces (``k = 0``: one wide store; ``n = 4``, ``k`` odd:
  32 + 64 + 32 bits), then, where a vector can straddle the row's end, ``n / tail - 1`` tail
  pieces under their own predicates. A warp whose lanes hold rows of different ``k`` runs
  every class it holds, one after the other (the branch diverges).
* **predicated**: ``n / g`` stores of ``g`` elements (the widest the proven alignment
  allows), each under its own predicate (its row and its last column): no branch, no tail
  pieces (an element-wide piece is wholly inside or wholly outside).
* **staged**: the same ``n / g`` transfers of ``g`` elements, each under its own predicate,
  but in lane order: each warp's vectors of a round pass through its own slice of shared
  memory (one ``n``-wide shared access a thread, a warp barrier), so that transfer ``j`` of
  lane ``l`` moves unit ``l + 32 j`` of the warp's vectors laid end to end: consecutive lanes
  on consecutive elements, as a plain masked copy (Triton's at a misaligned row) moves them.
  A transfer then touches the sectors of ``32 g`` elements, not of the warp's whole span.
  Only for a CTA-wide copy whose warps hold whole vectors (every lane owning data, ``n / g``
  dividing 32) and whose slices fit ``STAGE_SCRATCH_BYTES``.

Each is charged, per warp and per vector, with the time of its three limits, in SM clocks:

* **issue**: ``slots / ISSUE_PER_CLK``, the slots counted in instructions of the store side
  (``STORE`` a store, ``PIECE_PREDICATE`` the predicate a predicated piece adds,
  ``REALIGN_OVERHEAD`` for ``k`` and the branches, ``CLASS_TEST`` for each further test of
  the chain on ``k``; the figures are the sm_90 SASS counts of the two forms,
  ``test_misaligned_cost``);
* **sectors**: the L2 write sectors (32 bytes) its stores touch, ``/ SECTORS_PER_CLK``: a
  warp's store instruction touches the sectors of the bytes its active lanes span (lanes
  ``n`` elements apart, so a narrow store touches as many sectors as a wide one);
* **DRAM**: the bytes, ``/ DRAM_BYTES_PER_CLK`` (the same for both: a floor).

``time = max(issue, sectors, DRAM)``; the cheaper form wins, and on a tie (within 2%: at the
DRAM floor) the one further below its own limits (``max(issue, sectors)``).
``choose_misaligned_form`` is pure: the same inputs, the same choice; where it stages, rows
shorter than the tile's may keep the predicated form by a runtime test
(``short_rows.with_short_rows``).
Its inputs are the tile (elements a thread moves per row, rows a warp's lanes hold), the
element type and what is proven (the granule and the tail pieces' width).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import ceil

from regcopy_passes.core.bounds import misalignment_classes

ISSUE_PER_CLK = 4
"""Warp instructions an SM issues a clock (four schedulers)."""
DRAM_BYTES_PER_CLK = 18.4
"""An SM's share of the H200's HBM: 4.8 TB/s over 132 SMs at 1.98 GHz."""
SECTORS_PER_CLK = 1.44
"""L2 write sectors an SM's share of the L2 takes a clock: 2.5 x the DRAM's sector rate. On
the H200, misaligned rows stored as 32-bit stores (lanes 16 bytes apart: 4 x the sectors of
128-bit stores) ran at 0.62 x of 128-bit ones: 4 / 0.62 = 6.5 x the sectors in 1.6 x the
time, so the L2 takes about 2.5 sectors a DRAM sector's time."""
STORE = 1
"""Issue slots of one store instruction (``STG``)."""
PIECE_PREDICATE = 1
"""Issue slots a predicated piece adds: its row check and column check combined (``PLOP3``
or ``ISETP``; the column checks are made once when no round moves the column)."""
REALIGN_OVERHEAD = 9
"""Issue slots the realigned form spends on every vector besides its stores: ``k = e & (n -
1)`` (``LOP3``), the test ``k == 0`` (two ``ISETP``, the address being 64-bit) and its
branch, the vector's own branch, the reconvergence (``BSSY``/``BSYNC``) and two register
moves into the pieces' pairs (sm_90 SASS of the ``bench_ragged`` tiles, NVRTC 13)."""
CLASS_TEST = 3
"""Issue slots of each further test of the chain on ``k`` (two ``ISETP`` and a ``LOP3``).
ptxas if-converts the classes after ``k == 0`` into one block of predicated stores: a warp
with any misaligned row issues every such class's tests and stores (predicated off in the
lanes of other classes, so they touch no sector there); ``k == 0`` stays a branch."""
TAIL_PIECE = STORE + PIECE_PREDICATE
"""Issue slots of a straddling vector's tail piece: a store under its own predicate (issued
by every lane, though only the lane at a row's end has it true)."""
L1_WAVEFRONTS_PER_CLK = 1
"""Lines (128 bytes) an SM's L1 looks up a clock for a load instruction: a warp's load
touching the lines of its span takes one wavefront each. On the H200 this puts misaligned
rows read one element a transfer at 0.99 x (f32: 4 loads of 5 lines for 512 bytes, under
the DRAM floor), 0.70 x (bf16 rows of 8 a lane, against Triton) and 0.5 x (int8 rows of 16)
of aligned ones."""
SHARED_ACCESS = 1
"""Issue slots of one shared load or store of the staged form (``LDS``/``STS``)."""
STAGE_SYNC = 1
"""Issue slots per vector of the staged form's warp barriers (``WARPSYNC``, two a copy) and
its slice's address."""
STAGE_SCRATCH_BYTES = 16384
"""The most shared memory a staged copy's slices may take (a CTA's registers of the copy, one
slice a warp and round): 16 KiB keeps 8 CTAs of 256 threads on an SM (the aligned path of the
same kernel pays the allocation too)."""
STAGE_MARGIN = 0.1
"""The staged form wins only where it takes this share fewer clocks than the best other
form: its shared round trip and barrier add a latency this throughput model does not see
(a read's loads or a write's stores wait for the warp's barrier)."""
SECTOR = 32
LINE = 128
TIE = 0.02
FORMS = ("realigned", "predicated", "shuffled", "staged")
SHUFFLE = 2
"""Issue slots of one 32-bit word fetched from the group's previous lane (``SHFL`` and the
register move that places it)."""
MIN_GROUP = 8
"""The fewest lanes a row's consecutive vectors must span for the shuffled form
(``plan_bounds.row_group``): each group's lane 0 stores its two partial vectors as pieces."""


@dataclass(frozen=True)
class MisalignedTile:
    """What the model reads of a copy whose stores may be misaligned: ``n`` elements a thread
    moves per row and vector, ``rows_per_warp`` (distinct rows a warp's active lanes write in
    one round; ``lanes`` active lanes), the element's bits, the proven granule ``g`` (every
    vector starts a multiple of ``g`` elements past an ``n``-aligned address) and ``tail``
    (the width of a straddling vector's pieces in the realigned form; ``n``: none)."""

    n: int
    rows_per_warp: int
    element_bits: int
    granule: int
    tail: int
    lanes: int = 32
    reads: bool = False
    """A read (costs in L1 wavefronts, ``LINE`` bytes) rather than a write (L2 sectors)."""
    staging: str | None = "not a CTA-wide copy"
    """None where the staged form can move the copy, else why not (the remark says it)."""
    row: int = 0
    """The copy's row of the tile (elements of its innermost region size) where a warp
    holds whole rows of it (``short_rows``), else 0."""
    group: int = 0
    """Lanes holding a row's consecutive vectors (``plan_bounds.row_group``); the shuffled
    form moves writes with a group of ``MIN_GROUP`` lanes or more (0: none)."""

    @property
    def element_bytes(self) -> int:
        return self.element_bits // 8

    @property
    def row_bytes(self) -> int:
        """The bytes a warp's lanes write in one row per vector (lanes ``n`` elements apart)."""
        return max(1, self.lanes // self.rows_per_warp) * self.n * self.element_bytes

    def sectors(self, rows: int, row_bytes: int | None = None) -> Fraction:
        """Expected sectors one store instruction touches when ``rows`` of the warp's rows are
        active, each writing ``row_bytes`` (default: the lanes' whole row): each row's span
        starts at a multiple of the granule's bytes, uniformly over a sector; the warp's rows
        lie next to each other (a tile fitted to its rows), so an instruction never touches
        more sectors than the warp's whole span, however its active rows interleave."""
        align = self.granule * self.element_bytes
        span = self.row_bytes if row_bytes is None else row_bytes
        unit = LINE if self.reads else SECTOR
        return min(_span_sectors(self.rows_per_warp * self.row_bytes, align, unit),
                   rows * _span_sectors(span, align, unit))


def _span_sectors(span: int, align: int, unit: int = SECTOR) -> Fraction:
    """``E[ceil((o + span) / unit)]`` over the offsets ``o`` in a ``unit`` (a sector, or a
    line for loads) that are multiples of ``align`` (``align >= unit``: the span starts on
    one)."""
    starts = range(0, unit, align) if align < unit else range(1)
    return Fraction(sum(ceil((o + span) / unit) for o in starts), len(starts))


@dataclass(frozen=True)
class FormCost:
    """One form's cost per warp and vector: issue slots, L2 sectors, and the clocks of the
    slowest of issue, sectors and DRAM."""

    issue: float
    sectors: float
    clocks: float

    def describe(self, unit: str = "sectors") -> str:
        return f"{self.clocks:.1f} clocks ({self.issue:.1f} issue slots, {self.sectors:.1f} {unit})"


@dataclass(frozen=True)
class MisalignedChoice:
    """The model's verdict: ``form`` (``"realigned"`` or ``"predicated"``) and both costs."""

    form: str
    realigned: FormCost
    predicated: FormCost
    tile: MisalignedTile
    forced: bool = False
    staged: FormCost | None = None
    """The staged form's cost (None where it cannot move the copy: ``tile.staging`` says why)."""
    shuffled: FormCost | None = None
    """The shuffled form's cost (None where it cannot move the copy: ``shuffles``)."""
    short: int = 0
    """Rows shorter than this many elements take the predicated form instead of the staged
    one, by a runtime test on the row length (``short_rows``; 0: none)."""
    asked: str = "misaligned-stores"
    """Who asked for a forced form (the remark's words): the pass option, or the copy's own
    ``{misaligned_stores}``."""

    def describe(self, element_type: str) -> str:
        """The remark's words: the choice, and the model's numbers for both forms."""
        t = self.tile
        how = f"as asked ({self.asked})" if self.forced else "by the cost model"
        rows = f"{t.rows_per_warp} row{'s' if t.rows_per_warp != 1 else ''} a warp"
        what, unit = ("loads", "wavefronts") if t.reads else ("stores", "sectors")
        staged = (f"staged {self.staged.describe(unit)}" if self.staged is not None
                  else f"not staged ({t.staging})")
        short = (f"; rows shorter than {self.short} elements predicated (a runtime test: "
                 f"there the staged form takes as many clocks or more)" if self.short else "")
        shuffled = (f"shuffled {self.shuffled.describe(unit)}, " if self.shuffled is not None
                    else "")
        return (f"misaligned {what} {self.form} {how}: {rows}, {t.n} × {element_type} a "
                f"thread a row, proven {t.granule}; per warp and vector realigned "
                f"{self.realigned.describe(unit)}, predicated {self.predicated.describe(unit)}, "
                f"{shuffled}{staged}{short}")


def _classes_run(tile: MisalignedTile) -> tuple[Fraction, Fraction, Fraction]:
    """Expected ``(further class tests, stores, sectors)`` of the realigned form for one
    warp's vector: over every misaligned row length (``N mod n``, a nonzero multiple of the
    granule) and every first row's misalignment, the rows' ``k`` are ``k0 + r * rho``. A
    warp with a row at ``k = 0`` issues its wide store; one with a misaligned row issues the
    if-converted block (``CLASS_TEST``): every further test and every misaligned class's
    pieces. Each piece touches the sectors of the rows of its own class."""
    n, g, rows = tile.n, tile.granule, tile.rows_per_warp
    classes = misalignment_classes(n, g)
    index = {k: i for i, (ks, _) in enumerate(classes) for k in ks}
    cases = tests = stores = sectors = Fraction(0)
    for rho in range(g, n, g):
        for k0 in range(0, n, g):
            held: dict[int, int] = {}
            for r in range(rows):
                c = index[(k0 + r * rho) % n]
                held[c] = held.get(c, 0) + 1
            cases += 1
            if 0 in held:
                stores += 1
                sectors += tile.sectors(held[0])
            if any(c != 0 for c in held):
                tests += len(classes) - 2
                stores += sum(len(pieces) for pieces in (p for _, p in classes[1:]))
                for c, count in held.items():
                    if c != 0:
                        sectors += len(classes[c][1]) * tile.sectors(count)
    return tests / cases, stores / cases, sectors / cases


def _slack(cost: FormCost, tile: MisalignedTile) -> float:
    """The clocks of the tighter of issue and sectors: on a tie at the DRAM floor, the form
    further below its own limits wins (the store's sectors share the L2 with the loads')."""
    rate = L1_WAVEFRONTS_PER_CLK if tile.reads else SECTORS_PER_CLK
    return max(cost.issue / ISSUE_PER_CLK, cost.sectors / rate)


def _floor(tile: MisalignedTile) -> float:
    """The DRAM clocks of a warp's vector: its bytes at the SM's share of HBM."""
    return tile.lanes * tile.n * tile.element_bytes / DRAM_BYTES_PER_CLK


def _clocks(issue: float, sectors: float, tile: MisalignedTile) -> float:
    rate = L1_WAVEFRONTS_PER_CLK if tile.reads else SECTORS_PER_CLK
    return max(issue / ISSUE_PER_CLK, sectors / rate, _floor(tile))


def realigned_cost(tile: MisalignedTile) -> FormCost:
    """The realigned form: ``k``, the chain's tests, the pieces of the classes held, the
    tail pieces (issued by every lane; active in one lane a row, the row's last, whose vector
    straddles the row's end in a tile fitted to its rows)."""
    tests, stores, sectors = _classes_run(tile)
    tail = 0
    if tile.tail < tile.n:
        tails = tile.n // tile.tail - 1
        tail = tails * TAIL_PIECE
        piece_bytes = tile.tail * tile.element_bytes
        sectors += tails * tile.sectors(tile.rows_per_warp, piece_bytes)
    issue = float(REALIGN_OVERHEAD + tests * CLASS_TEST + stores * STORE + tail)
    return FormCost(issue, float(sectors), _clocks(issue, float(sectors), tile))


def predicated_cost(tile: MisalignedTile) -> FormCost:
    """The predicated form: ``n / g`` stores, each with its predicate, every one touching
    the warp's whole span."""
    stores = tile.n // tile.granule
    issue = float(stores * (STORE + PIECE_PREDICATE))
    sectors = float(stores * tile.sectors(tile.rows_per_warp))
    return FormCost(issue, sectors, _clocks(issue, sectors, tile))


def staged_cost(tile: MisalignedTile) -> FormCost:
    """The staged form: ``u = n / g`` transfers of ``g`` elements in lane order, each with its
    predicate and its shared access, one ``n``-wide shared access and the barriers' share.
    Transfer ``j`` moves ``32 g`` consecutive elements of the warp's rows laid end to end:
    ``rows / u`` whole rows where the warp holds ``u`` rows or more, else a ``1 / u`` part
    of its span (one row's run of ``32 g`` elements)."""
    u = tile.n // tile.granule
    rows = tile.rows_per_warp
    if rows >= u:
        each = tile.sectors(rows // u)
    else:
        each = tile.sectors(1, tile.rows_per_warp * tile.row_bytes // u)
    sectors = float(u * each)
    issue = float(u * (STORE + PIECE_PREDICATE + SHARED_ACCESS) + SHARED_ACCESS + STAGE_SYNC)
    return FormCost(issue, sectors, _clocks(issue, sectors, tile))


def shuffles(tile: MisalignedTile) -> bool:
    """Whether the shuffled form can move the copy: a write of 8- to 32-bit elements whose
    vectors are whole 32-bit words, misaligned (granule below ``n``), lanes in groups of
    ``MIN_GROUP`` or more along a row."""
    return (not tile.reads and tile.group >= MIN_GROUP and tile.granule < tile.n
            and 8 <= tile.element_bits <= 32 and tile.n * tile.element_bits % 32 == 0)


def shuffled_cost(tile: MisalignedTile) -> FormCost:
    """The shuffled form (``emit_shuffled``): a warp's vector is ``n * bits / 32`` shuffled
    words, ``k`` and its chain of tests (one branch per ``k``: a warp runs one), one
    aligned store and the two tests around it, and the ``n / g`` granule pieces, each under
    its predicate, that each group's lane 0 stores (the warp issues them once for all its
    groups). The aligned stores touch the warp's span once; each piece one sector a group."""
    words = tile.n * tile.element_bits // 32
    pieces = tile.n // tile.granule
    tests = pieces - 2  # one branch per k, not per class of pieces
    issue = float(words * SHUFFLE + REALIGN_OVERHEAD + max(tests, 0) * CLASS_TEST
                  + (2 + pieces) * (STORE + PIECE_PREDICATE))
    groups = max(1, tile.lanes // tile.group)
    sectors = float(tile.sectors(tile.rows_per_warp) + pieces * groups)
    return FormCost(issue, sectors, _clocks(issue, sectors, tile))


def choose_misaligned_form(tile: MisalignedTile, force: str = "auto") -> MisalignedChoice:
    """The form of a misaligned copy's vectors: the staged form where it can move the copy
    (``tile.staging`` None) and takes ``STAGE_MARGIN`` fewer clocks than the realigned and
    predicated forms; else the one of fewer clocks among those and the shuffled form where
    it can move the copy (``shuffles``) (within ``TIE`` of the fewest: the one further below
    its issue and sector limits; on a tie there too, the first of realigned, predicated,
    shuffled); or ``force``
    (a form's name) when it names one: for stores, and for loads too when it is
    ``"staged"`` (a copy that cannot stage gets the model's choice of the others; loads
    under another forced form, the model's choice of realigned and predicated). A read is realigned only where its predicated loads are the bound (above the
    DRAM floor) and the realigned ones are cheaper: a read's branch on ``k`` waits for its
    loads before the next round issues, a latency this throughput model does not see (on
    the H200, f32 reads realigned so ran at 0.41-0.74 x of aligned rows below 200 columns,
    where the predicated loads sit under the floor)."""
    real, pred = realigned_cost(tile), predicated_cost(tile)
    staged = staged_cost(tile) if tile.staging is None else None
    shuf = shuffled_cost(tile) if shuffles(tile) else None
    if force == "staged" and staged is not None:
        return MisalignedChoice(force, real, pred, tile, True, staged, shuffled=shuf)
    if force == "shuffled" and shuf is not None:
        return MisalignedChoice(force, real, pred, tile, True, staged, shuffled=shuf)
    if force not in ("auto", "staged", "shuffled") and not tile.reads:
        return MisalignedChoice(force, real, pred, tile, True, staged, shuffled=shuf)
    costs = {"realigned": real, "predicated": pred}
    if tile.reads:  # realigned only where the predicated loads are the bound
        bound = pred.clocks > _floor(tile) * (1 + TIE)
        if not (bound and real.clocks < pred.clocks * (1 - TIE)):
            del costs["realigned"]
    best = min(c.clocks for c in costs.values())
    if staged is not None and force == "auto" and staged.clocks < best * (1 - STAGE_MARGIN):
        return MisalignedChoice("staged", real, pred, tile, False, staged, shuffled=shuf)
    if shuf is not None:
        costs["shuffled"] = shuf
        best = min(best, shuf.clocks)
    tied = [f for f in FORMS if f in costs and costs[f].clocks <= best * (1 + TIE)]
    form = min(tied, key=lambda f: _slack(costs[f], tile))
    return MisalignedChoice(form, real, pred, tile, False, staged, shuffled=shuf)


def static_issue(tile: MisalignedTile) -> tuple[int, int]:
    """``(realigned, predicated)``: the issue slots of each form's code for one vector, every
    instruction once (what the SASS holds, not what a warp runs): the realigned form's
    overhead, all its further tests, its wide store, every misaligned class's pieces and the
    tail pieces; the predicated form's stores with their predicates."""
    classes = misalignment_classes(tile.n, tile.granule)
    pieces = sum(len(p) for _, p in classes[1:])
    tail = (tile.n // tile.tail - 1) * TAIL_PIECE if tile.tail < tile.n else 0
    realigned = REALIGN_OVERHEAD + (len(classes) - 2) * CLASS_TEST + STORE + pieces + tail
    return realigned, tile.n // tile.granule * (STORE + PIECE_PREDICATE)
