"""The misaligned-store cost model (``misaligned_cost``) and the two forms it picks between:
its numbers and choices, the rows a warp holds in the benchmark tiles, both forms run on the
CPU interpreter over row lengths and row/column offsets against the un-lowered copy, and the
SASS counts the model assumes (NVRTC and nvdisasm on the CPU)."""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest
from ragged_cases import THOROUGH, parse_unverified
from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_passes import lower
from regcopy_passes.reg_copy.misaligned_cost import (
    MisalignedTile,
    _span_sectors,
    choose_misaligned_form,
    predicated_cost,
    realigned_cost,
    static_issue,
)


def test_span_sectors_is_the_mean_over_start_offsets() -> None:
    """512 bytes from a 4-byte aligned start: 16 sectors from a sector start, 17 from the 7
    other starts (multiples of 4 in a sector)."""
    assert _span_sectors(512, 4) == Fraction(16 + 7 * 17, 8)
    assert _span_sectors(16, 16) == 1 and _span_sectors(16, 4) == Fraction(5 + 3 * 2, 8)


def test_one_row_a_warp_realigns_many_rows_predicate() -> None:
    """f32, nothing proven: a warp along one row (one k) keeps the realigned 128-bit pieces,
    whose sectors are fewer; a warp over 8 or more rows would run every class of k and
    touch every sector of its span in each, so it predicates 32-bit stores."""
    for rows in (1, 2, 4):
        assert choose_misaligned_form(MisalignedTile(4, rows, 32, 1, 1)).form == "realigned"
    for rows in (8, 16, 32):
        assert choose_misaligned_form(MisalignedTile(4, rows, 32, 1, 1)).form == "predicated"


def test_costs_count_what_the_sass_issues() -> None:
    """One row a warp, k uniform over 0..3: a quarter of the vectors take the wide store, the
    others the if-converted block (one further test, 2 + 3 stores); three tail pieces of 2
    slots; the predicated form 4 stores of 2 slots."""
    tile = MisalignedTile(4, 1, 32, 1, 1)
    assert realigned_cost(tile).issue == 9 + 0.75 * 3 + (0.25 + 0.75 * 5) + 3 * 2
    assert predicated_cost(tile).issue == 8
    assert static_issue(tile) == (9 + 3 + 1 + 5 + 6, 8)


def test_narrow_elements_realign_and_a_tie_keeps_the_slack() -> None:
    """bf16 and i8 rows of one warp: 8 or 16 one-element stores touch 8 or 16 times the
    sectors, so they realign. Rows promised a multiple of 2 (64-bit pieces): both forms sit
    at the DRAM floor, and the one further below its own limits (realigned) wins."""
    assert choose_misaligned_form(MisalignedTile(8, 1, 16, 1, 1)).form == "realigned"
    assert choose_misaligned_form(MisalignedTile(16, 1, 8, 1, 1)).form == "realigned"
    tie = choose_misaligned_form(MisalignedTile(4, 1, 32, 2, 2))
    assert tie.realigned.clocks == tie.predicated.clocks and tie.form == "realigned"


def test_forced_form_and_words() -> None:
    choice = choose_misaligned_form(MisalignedTile(4, 1, 32, 1, 1), "predicated")
    assert choice.form == "predicated" and choice.forced
    text = choice.describe("f32")
    assert text.startswith("misaligned stores predicated as asked (misaligned-stores): 1 row "
                           "a warp, 4 × f32 a thread a row, proven 1; per warp and vector "
                           "realigned 28.5 clocks")
    assert "predicated 46.9 clocks (8.0 issue slots, 67.5 sectors)" in text


@pytest.mark.parametrize("name, rows", [("1024x4", 32), ("512x8", 16), ("256x16", 8),
                                        ("128x32", 4), ("64x64", 4), ("NARROW_ROWS", 2),
                                        ("32x256", 1)])
def test_bench_tiles_rows_a_warp(name: str, rows: int) -> None:
    """The benchmark's tiles, as the pass sees them: rows a warp, and the form picked (the
    tiles of several rows a warp staged, their slices fitting 16 KiB; the 32 x 256 tile, one
    row a warp and 32 KiB of slices, shuffled: a warp's 32 lanes run along its row). The
    64 x 64 tile's warps hold 4 rows of a 32-column half; its earlier layout 2 whole rows."""
    from regcopy_bench import bench_ragged
    from regcopy_passes.lower_reg_copy import plan_for

    from regcopy_dialect.regcopy import CopyOp

    tile = getattr(bench_ragged, name, None) or next(
        t for t in (*bench_ragged.FITTED, bench_ragged.ROWS) if f"{t.rows}x{t.cols}" == name)
    module = parse_unverified(bench_ragged.kernel_text(tile, promised=False))
    store = [op for op in module.walk() if isinstance(op, CopyOp)][1]
    note = plan_for(store).transfer.misaligned  # type: ignore[union-attr]
    form = "staged" if rows >= 2 else "shuffled"
    assert note.startswith(f"misaligned stores {form} by the cost model: {rows} row")


KERNEL = """
func.func @k(%X: memref<?x?x{e}, #regcopy.mem<global>>, %Y: memref<?x?x{e}, #regcopy.mem<global>>,
             %r: index) attributes {{regcopy.launch = #regcopy.launch<block = 32, grid = [1]>}} {{
  %R = memref.alloca() : {t}
  regcopy.copy warp %X[%r, 0] [{rows}, {cols}] -> %R {pad} : memref<?x?x{e}, #regcopy.mem<global>> -> {t}
  regcopy.copy warp %R -> %Y[%r, 0] [{rows}, {cols}] : {t} -> memref<?x?x{e}, #regcopy.mem<global>>
  func.return
}}
"""
TILES = {"many_rows": ("f32", 32, 4, "(32,4):(1@laneid,1)"),
         "one_row": ("f32", 2, 128, "(2,32,4):(4,1@laneid,1)"),
         "bf16_row": ("bf16", 2, 256, "(2,32,8):(8,1@laneid,1)"),
         "i8_row": ("i8", 2, 512, "(2,32,16):(16,1@laneid,1)")}
"""Warp tiles: lanes in 32 rows (f32: predicated stores), lanes along one row (f32:
realigned stores; bf16, i8: realigned loads and stores)."""
DTYPES = {"f32": np.float32, "bf16": np.uint16, "i8": np.int8}


def _kernel(tile: str) -> str:
    e, rows, cols, layout = TILES[tile]
    t = f"memref<{rows}x{cols}x{e}, #regcopy.layout<{layout}>, #regcopy.mem<local>>"
    pad = "{padding = 0.5 : f32}" if e == "f32" else ""
    return KERNEL.format(e=e, t=t, rows=rows, cols=cols, pad=pad)


def _cases() -> list[tuple[str, str, int, int]]:
    ns = range(1, 20) if THOROUGH else (1, 3, 6, 7, 13, 130)
    rows = (0, 1, 2, 3) if THOROUGH else (1, 2)
    return [(tile, form, n, r) for tile in TILES for form in ("realigned", "predicated")
            for n in ns for r in rows]


@pytest.fixture(scope="module")
def modules() -> dict[tuple[str, str], object]:
    out: dict[tuple[str, str], object] = {}
    for tile in TILES:
        out[(tile, "reference")] = parse_unverified(_kernel(tile))
        for form in ("realigned", "predicated"):
            out[(tile, form)] = lower(parse_unverified(_kernel(tile)), misaligned_stores=form)
    return out


@pytest.mark.parametrize("tile, form, n, r", _cases())
def test_both_forms_equal_the_reference(modules, tile: str, form: str, n: int,
                                        r: int) -> None:
    """X (m x n) -> registers -> Y (m x n + 1: its rows start at other misalignments than
    X's) from row ``r``: the lowered copy, with its stores in either form (and its loads as
    the model picks: realigned for the bf16 and i8 rows), writes exactly what the un-lowered
    copy writes (the padding past X's end, nothing past Y's)."""
    dtype = DTYPES[TILES[tile][0]]
    m = r + TILES[tile][1] + 1
    x = (np.arange(1, m * n + 1) % 251).astype(dtype).reshape(m, n)
    y = np.full((m, n + 1), 7, dtype)
    want = run_on_cpu(modules[(tile, "reference")], "k", [x, y.copy(), np.int64(r)])[1]
    got = run_on_cpu(modules[(tile, form)], "k", [x, y.copy(), np.int64(r)])[1]
    np.testing.assert_array_equal(got, want)


def test_narrow_rows_of_one_warp_load_realigned() -> None:
    """bf16 and i8 rows along a warp, no promise: the loads' fallback is realigned (aligned
    pieces of up to 128 bits, one branch per misalignment), not one element a transfer:
    the SASS holds 128-bit loads in the fallback too, and 64- and 32-bit pieces."""
    from regcopy_backend.cuda.printer import print_cuda
    from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble

    for tile in ("bf16_row", "i8_row"):
        module = lower(parse_unverified(_kernel(tile)))
        sass = disassemble(compile_cuda(print_cuda(module)).cubin)
        loads = re.findall(r"LDG\.E(\.\w+)?\.CONSTANT", sass)
        # the aligned path's 2 and the k = 0 class's 2; pieces of 64 and 32 bits
        assert loads.count(".128") == 4 and loads.count(".64") >= 2 and "" in loads, loads


@pytest.mark.parametrize("name", ["32x256", "64x64"])
def test_sass_counts_match_the_model(name: str) -> None:
    """The model's counts in the SASS (sm_90) of the benchmark kernel, compiled with each
    form: the predicated form stores every vector as 4 predicated 32-bit STG; the realigned
    form keeps the k = 0 branch's STG.128 and if-converts the other classes into one block of
    predicated stores (2 x 64-bit, then 64 + 32 + 32 bits), then the 3 tail pieces; and the
    difference in instructions per vector is the model's static difference, within 3."""
    from regcopy_backend.cuda.printer import print_cuda
    from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
    from regcopy_bench import bench_ragged

    tile = next(t for t in (*bench_ragged.FITTED, bench_ragged.ROWS)
                if f"{t.rows}x{t.cols}" == name)
    vectors = tile.rows * tile.cols // 1024
    sass = {}
    for form in ("realigned", "predicated"):
        module = lower(parse_unverified(bench_ragged.kernel_text(tile, promised=False)),
                       misaligned_stores=form)
        sass[form] = disassemble(compile_cuda(print_cuda(module)).cubin)
    count = {f: len(re.findall(r"^\s+/\*[0-9a-f]+\*/\s+\S", s, re.MULTILINE)) for f, s in sass.items()}
    stg = {f: re.findall(r"(@!?P\d )?STG\.E(\.\d+)? ", s) for f, s in sass.items()}
    # (the aligned path's 128-bit stores are in both kernels)
    assert sum(1 for _, w in stg["predicated"] if w == "") == 4 * vectors
    assert not any(w == ".64" for _, w in stg["predicated"])
    assert sum(1 for _, w in stg["realigned"] if w == ".64") == 3 * vectors
    assert sum(1 for _, w in stg["realigned"] if w == "") == 5 * vectors
    block = re.findall(r"@(!?)P(\d) STG\.E\.64 .*\n.*@\1P\2 STG\.E\.64 .*\n"
                       r".*@(!?)P\2 STG\.E\.64 .*\n.*@\3P\2 STG\.E .*\n.*@\3P\2 STG\.E ",
                       sass["realigned"])
    assert len(block) == vectors
    model = MisalignedTile(4, 1, 32, 1, 1)
    realigned, predicated = static_issue(model)
    per_vector = (count["realigned"] - count["predicated"]) / vectors
    assert abs(per_vector - (realigned - predicated)) <= 3, per_vector


@pytest.mark.gpu
@pytest.mark.parametrize("form", ["realigned", "predicated", "staged"])
def test_both_forms_are_bit_exact_on_the_gpu(form: str) -> None:
    """The fitted 512 x 8 and the 32 x 256 benchmark kernels in each form (the 32 x 256 tile
    cannot stage: its staged run is the model's choice), on the GPU, at
    misaligned and aligned row lengths, M off the tile: Y equals X bit for bit."""
    from regcopy_backend.cuda.kernel_info import kernel_info, kernels
    from regcopy_backend.cuda.printer import print_cuda
    from regcopy_backend.runtime.runner import gpu_available, run_kernel
    from regcopy_bench import bench_ragged

    has_gpu, why = gpu_available()
    if not has_gpu:
        pytest.skip(why)
    rng = np.random.default_rng(34)
    for tile in (bench_ragged.FITTED[1], bench_ragged.ROWS):
        module = lower(parse_unverified(bench_ragged.kernel_text(tile, promised=False)),
                       misaligned_stores=form)
        source, info = print_cuda(module), kernel_info(kernels(module)[0])
        for n in (1, 5, 6, 7, 8, 13, 67, 255):
            m = 3 * tile.rows - 5
            x = rng.integers(-2**31, 2**31 - 1, (m, n), dtype=np.int64).astype(np.int32)
            x = x.view(np.float32)
            y = np.zeros_like(x)
            grid = [-(-m // tile.rows) * -(-n // tile.cols), 1, 1]  # (M off the tile)
            got = run_kernel(source, info, [x, y], grid=grid).arrays[1]
            assert np.array_equal(got.view(np.int32), x.view(np.int32)), (tile, n)


def test_bench_ragged_fitted_tiles_ranges_and_the_issue_table() -> None:
    """``bench_ragged``'s N lists, fitted tiles and aligned neighbours, and the issue's table
    (regcopy and the peer by band, regcopy / Triton >= 0.98x)."""
    from regcopy_bench.bench_ragged import BF16_ROWS, aligned_of, fitted
    from regcopy_bench.ragged_tables import issue_table, parse_ns

    assert parse_ns("1:4,7,10:12") == [1, 2, 3, 7, 10, 11] and parse_ns("0:0") == []
    assert [f"{fitted(n).rows}x{fitted(n).cols}" for n in (3, 5, 9, 31, 63, 100)] == \
        ["1024x4", "512x8", "256x16", "128x32", "64x64", "64x64"]
    assert aligned_of(1001, BF16_ROWS.vec) == 1000 and aligned_of(8193, 16) == 8192
    assert aligned_of(2) == 4 and aligned_of(6) == 4 and aligned_of(7) == 8
    table = issue_table({("1024x4", 1): ((1, 8, 100.0, 0.9), (1, 8, 120.0, 1.0)),
                         ("512x8", 5): ((5, 8, 200.0, 0.96), (5, 8, 190.0, 0.99)),
                         ("512x8", 8): ((8, 8, 250.0, 1.0), (8, 8, 250.0, 1.0)),
                         ("32x256", 67): ((67, 8, 3000.0, 0.97), None)}, "no triton")
    assert "| 1..15, tiles fitted to N | 1 of 2 at >= 0.95x, mean 0.930x, 0.1 TB/s | " \
           "2 of 2 at >= 0.95x, mean 0.995x, 0.2 TB/s | 1 of 2 (min 0.833x) |" in table
    assert "| 65..255, tile 32x256 | 1 of 1 at >= 0.95x, mean 0.970x, 3.0 TB/s | " \
           "(no peer: no triton) |" in table
    assert "17..31" not in table


def test_bench_ragged_takes_the_median_round() -> None:
    """``bench_ragged --rounds``: a row's time is the median of its rounds (the middle one,
    or the mean of the middle two), so one slow round does not move it."""
    from regcopy_bench.bench_ragged import median

    assert median([3.0, 1.0, 2.0]) == 2.0 and median([5.0]) == 5.0
    assert median([1.0, 9.0, 2.0, 3.0]) == 2.5 and median([1.0, 1.1, 100.0]) == 1.1


def test_bench_ragged_refuses_no_rounds(capsys: pytest.CaptureFixture[str]) -> None:
    """``--rounds 0`` (no timing to take a median of) is one usage line, not a traceback."""
    from regcopy_bench.bench_ragged import main

    with pytest.raises(SystemExit) as done:
        main(["--rounds", "0"])
    assert done.value.code == 2
    assert "--rounds and --iters must be at least 1" in capsys.readouterr().err
