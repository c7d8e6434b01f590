"""Short rows of a staged misaligned copy: where a warp holds whole rows of the tile and a row
of the buffer is shorter than the tile's, the DRAM floor shrinks with the row while the issue
stays, so the staged form's extra instructions can cost more than its lane order saves. The
model weighs both forms there with two things the whole-row costs of ``misaligned_cost``
leave out: the whole vector's issue (its loads and index math too, ``vector_issue``) and
each store instruction's sectors priced by its span (``store_clocks``: an instruction of
few sectors streams through the L2 faster). ``short_rows`` gives the row length below which
the copy takes the predicated form, by a runtime test on the row length. Its inputs are the
tile's (``MisalignedTile``: elements a thread moves per row, rows a warp holds, the tile's
row) and the row length.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from regcopy_passes.reg_copy.misaligned_cost import (
    ISSUE_PER_CLK,
    L1_WAVEFRONTS_PER_CLK,
    LINE,
    SECTOR,
    SECTORS_PER_CLK,
    FormCost,
    MisalignedChoice,
    MisalignedTile,
    _floor,
    _span_sectors,
    predicated_cost,
    staged_cost,
)

LOAD_ISSUE = 2
"""Issue slots of each of a vector's ``n / g`` predicated loads (``LDG`` and its predicate):
the short-row weighing counts a vector's whole issue, loads included."""
VECTOR_OVERHEAD = 24
"""Issue slots a vector spends besides its loads' and its stores' own: its share of the
thread's index math and the rounds' addresses and row checks (sm_90 SASS of the 64 x 64 and
1024 x 4 ``bench_ragged`` kernels, 32-bit index math: 40 and 42 instructions a vector on
the predicated path, 56 and 58 on the staged one; ``test_short_rows``)."""
STAGE_ADDRESS = 2.5
"""Issue slots each staged transfer adds beside its store, predicate and shared load: its
own row check and 64-bit address (a predicated vector's stores share one address)."""
SPAN_SECTORS = 21
"""The knee of the L2's price of a store sector, in sectors: a sector of an instruction that
touches ``s`` sectors costs ``(SPAN_SECTORS + s) / (SPAN_SECTORS + s_512)`` of
``1 / SECTORS_PER_CLK`` (``s_512``: a warp's 512 bytes). Fitted to predicated f32 stores on
the H200 (lanes 16 bytes apart, ``ab.txt`` of smalln3_b2): 0.83x of aligned rows where a
warp's store spans 136-168 bytes (64 x 64, N = 17..21), 0.79x at 264-272 (64 x 64, 128 x 32),
0.70x at 360, 0.63x at 456-512 (64 x 64, 128 x 32, 32 x 256): an instruction's sectors
stream through the L2 faster the fewer they are."""


def store_clocks(sectors: Fraction, unit: int = SECTOR) -> float:
    """Clocks of one store instruction's ``sectors`` in the L2: ``1 / SECTORS_PER_CLK`` each at
    a warp's 512-byte span, less for fewer (``SPAN_SECTORS``); loads' wavefronts, and stores
    at a full warp's span, keep the plain rates (``_clocks``)."""
    if unit != SECTOR:
        return float(sectors) / L1_WAVEFRONTS_PER_CLK
    full = float(_span_sectors(512, 4))
    return float(sectors) * (SPAN_SECTORS + float(sectors)) / (SPAN_SECTORS + full) \
        / SECTORS_PER_CLK


def vector_issue(tile: MisalignedTile) -> float:
    """Issue slots every form spends on a vector besides its stores: its ``n / g`` loads and
    ``VECTOR_OVERHEAD``. Only the short-row weighing counts them: there the DRAM floor shrinks
    with the row and the whole vector's issue can be the bound."""
    return tile.n // tile.granule * LOAD_ISSUE + VECTOR_OVERHEAD


def short_row_costs(tile: MisalignedTile, live: int) -> tuple[FormCost, FormCost]:
    """``(predicated, staged)`` per warp and vector when the buffer's rows hold only ``live``
    of the tile row's ``tile.row`` elements (the copy's region starting at a row's first
    column; the warp's ``r`` rows then lie end to end in memory, ``live`` elements each).
    The DRAM floor shrinks to the ``live / row`` share of the vector; the issue slots do not
    (a warp issues every transfer while one lane's is inside), and they count the whole
    vector (``vector_issue``, loads included; the staged transfers' ``STAGE_ADDRESS``).
    Predicated: transfer ``j`` (elements ``j g`` of each vector) is inside for some lane iff
    ``j g < live``, and spans the warp's rows from there: ``(r live - j g)`` elements.
    Staged: transfer ``j`` moves units ``32 j ..`` of the warp's rows laid end to end: where
    a row holds 32 units or more, one row's columns ``[c, c + 32 g)``, inside for
    ``min(32 g, live - c)`` elements; else ``32 / units`` whole rows, ``live`` elements
    each. Each transfer's sectors cost ``store_clocks`` (fewer sectors an instruction, each
    cheaper)."""
    eb, g, n, r = tile.element_bytes, tile.granule, tile.n, tile.rows_per_warp
    align, unit = g * eb, (LINE if tile.reads else SECTOR)
    floor = _floor(tile) * live / tile.row
    pred = [_span_sectors((r * live - j * g) * eb, align, unit)
            for j in range(n // g) if j * g < live]
    units = tile.row // g
    staged: list[Fraction] = []
    for j in range(n // g):
        if units >= 32:
            inside = min(32 * g, live - (32 * j % units) * g)
            if inside > 0:
                staged.append(_span_sectors(inside * eb, align, unit))
        else:
            staged.append(_span_sectors(32 // units * live * eb, align, unit))
    base = vector_issue(tile)
    costs = []
    for issue, each in ((base + predicated_cost(tile).issue, pred),
                        (base + staged_cost(tile).issue + n // g * STAGE_ADDRESS, staged)):
        clocks = max(issue / ISSUE_PER_CLK, sum(store_clocks(s, unit) for s in each), floor)
        costs.append(FormCost(issue, float(sum(each, Fraction(0))), clocks))
    return costs[0], costs[1]


def short_rows(tile: MisalignedTile) -> int:
    """The row length ``T`` below which a staged copy's rows take the predicated form: the
    first misaligned row length (a multiple of the granule, not of ``n``) shorter than the
    tile's row at which the staged form takes fewer clocks than the predicated one
    (``short_row_costs``; no ``STAGE_MARGIN``: the staged form's own instructions are
    counted there), where some shorter one does not; 0 where none does, or where a warp does
    not hold whole rows of the tile (``tile.row`` 0). On the H200: 1024 x 4 f32 (``T`` =
    3) at N = 1: predicated 3960 GB/s, staged 2960, at N = 3 staged 3958, predicated 3688;
    64 x 64 (``T`` = 25) at N = 17..21: predicated 3028-3201, staged 2715-3032, at N = 23
    3216 against 3203, from N = 25 staged ahead (3319 against 3207)."""
    if not tile.row:
        return 0
    kept = 0
    for live in range(tile.granule, tile.row, tile.granule):
        if live % tile.n == 0:
            continue  # an aligned row: the wide path
        pred, staged = short_row_costs(tile, live)
        if staged.clocks < pred.clocks:
            return live if kept else 0
        kept = live
    return tile.row if kept else 0


def with_short_rows(choice: MisalignedChoice) -> MisalignedChoice:
    """``choice`` with its short-row threshold (``short_rows``) where the model staged the
    copy; a forced or unstaged choice as it is (no runtime test)."""
    if choice.form != "staged" or choice.forced:
        return choice
    return replace(choice, short=short_rows(choice.tile))
