"""Short rows of a staged misaligned copy (``short_rows.short_rows``): where the row is so
much shorter than the tile's row that the staged form's extra issue slots cost more than its
lane order saves, the copy tests the row length at run time and takes the predicated form
there. The model's thresholds on the benchmark tiles, its costs at N = 1..3 of the 1024 x 4
tile, its choice against every H200 measurement of both forms on the fitted tiles (the
64 x 64 tile predicated up to N = 23), the L2's price of a store sector by the span of its
instruction, the lowered IR's three paths, the CPU interpreter on both sides of the
threshold, the SASS counts of both paths, and the GPU."""

from __future__ import annotations

import re

import numpy as np
import pytest
from ragged_cases import parse_unverified
from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_bench import bench_ragged
from regcopy_passes import lower
from regcopy_passes.reg_copy.misaligned_cost import (
    SECTORS_PER_CLK,
    MisalignedTile,
    _span_sectors,
    choose_misaligned_form,
)
from regcopy_passes.reg_copy.short_rows import (
    SPAN_SECTORS,
    short_row_costs,
    short_rows,
    store_clocks,
    with_short_rows,
)

from regcopy_dialect.regcopy import CopyOp


def _tile(rows: int, row: int) -> MisalignedTile:
    """f32 stores of 4 a thread, nothing proven, ``rows`` rows a warp holding ``row``
    elements of each (``32 / rows * 4``), able to stage."""
    return MisalignedTile(4, rows, 32, 1, 1, 32, False, None, row)


def test_one_element_rows_of_1024x4_are_predicated() -> None:
    """1024 x 4 (32 rows a warp): at N = 1 the DRAM floor is a quarter of the vector's and
    both forms are bound by their issue (the whole vector's: 40 slots predicated, 56 staged);
    at N = 2 the predicated form sits at the floor, the staged one at its issue; at N = 3 the
    predicated form's three stores each span the warp's 384 bytes and the staged form, at
    the floor, takes fewer clocks."""
    tile = _tile(32, 4)
    floor = 32 * 4 * 4 / 18.4
    pred, staged = short_row_costs(tile, 1)
    assert (pred.issue, staged.issue) == (40, 56)
    assert pred.clocks == 10 and staged.clocks == 14 and floor / 4 < pred.clocks
    pred2, staged2 = short_row_costs(tile, 2)
    assert pred2.clocks == pytest.approx(floor / 2) and pred2.clocks < staged2.clocks == 14
    pred3, staged3 = short_row_costs(tile, 3)
    assert staged3.clocks == pytest.approx(floor * 3 / 4) and staged3.clocks < pred3.clocks
    assert short_rows(tile) == 3
    choice = with_short_rows(choose_misaligned_form(tile))
    assert choice.form == "staged" and choice.short == 3
    assert choice.describe("f32").endswith(
        "; rows shorter than 3 elements predicated (a runtime test: there the staged form "
        "takes as many clocks or more)")


MEASURED = {  # (rows a warp, tile row): {N: (predicated, staged stores) GB/s}, H200
    (32, 4): {1: (3960, 2960), 3: (3688, 3958)},
    (8, 16): {9: (3192, 3662), 11: (2913, 3871), 13: (2686, 3896)},
    (4, 32): {17: (3157, 3583), 19: (3019, 3714), 21: (2896, 3784), 25: (2636, 3844),
              29: (2503, 3828), 31: (2453, 3824)},
    (2, 64): {17: (3028, 2715), 19: (3164, 2852), 21: (3201, 3032), 25: (3207, 3319),
              27: (3213, 3410), 29: (3193, 3491), 31: (3166, 3558), 33: (3145, 3543),
              37: (3026, 3627), 45: (2753, 3785), 57: (2499, 3826)},
}
"""Predicated against staged stores (loads predicated in both) where one led by more than
2%, one process a tile (``lab/ragged/smalln3_ab.py`` on the H200, ``ab.txt`` of
lab/results/h200_2026-12-03/smalln3_b2; 1024 x 4 at N = 1 from the run before)."""
MEASURED_AFTER = {
    (16, 8): {3: (3859, 3548)},
    (8, 16): {3: (3151, 2232), 5: (3381, 2866), 6: (3485, 3313), 9: (3197, 3680)},
    (4, 32): {5: (2392, 1865), 9: (3231, 2603), 11: (3407, 2918), 15: (3229, 3477),
              17: (3169, 3608)},
    (2, 64): {17: (3102, 2712), 19: (3277, 2882), 21: (3346, 3054), 23: (3391, 3227),
              25: (3224, 3358), 29: (3200, 3516)},
}
"""The same after the fix (``smalln4/ab.txt``: the kernel with the model's threshold, the
old one, and the predicated form forced), where one led by more than 2%."""


@pytest.mark.parametrize("run, key", [(run, key) for run in (MEASURED, MEASURED_AFTER)
                                       for key in run])
def test_the_model_picks_what_measured_faster(run: dict[tuple[int, int], dict[int, tuple[
        int, int]]], key: tuple[int, int]) -> None:
    """At every row length measured, the form of fewer clocks is the one that ran faster:
    the 64 x 64 tile (2 rows a warp) predicates up to N = 23 and stages from 25 (its
    threshold was 5, and N = 17..23 ran 5-14% slower staged), the 1024 x 4 tile keeps 3, the
    512 x 8, 256 x 16 and 128 x 32 tiles predicate below 5, 7 and 13 (were 3)."""
    rows, row = key
    tile = _tile(rows, row)
    for n, (pred_gbs, staged_gbs) in run[key].items():
        pred, staged = short_row_costs(tile, n)
        assert (staged.clocks < pred.clocks) == (staged_gbs > pred_gbs), (key, n)
        assert (n >= short_rows(tile)) == (staged_gbs > pred_gbs), (key, n)


def test_store_sectors_cost_less_on_shorter_spans() -> None:
    """A store instruction's sectors: at a warp's 512 bytes ``1 / SECTORS_PER_CLK`` each (the
    full-row model's rate), at 168 bytes (64 x 64, N = 21) 0.69 of that each; the predicated
    form at N = 21 on 64 x 64 then runs at 0.78 of the floor (0.83 measured), not 0.55."""
    full = _span_sectors(512, 4)
    assert store_clocks(full) == pytest.approx(float(full) / SECTORS_PER_CLK)
    short = _span_sectors(168, 4)
    assert store_clocks(short) / float(short) == pytest.approx(
        (SPAN_SECTORS + float(short)) / (SPAN_SECTORS + float(full)) / SECTORS_PER_CLK)
    pred, _ = short_row_costs(_tile(2, 64), 21)
    floor = 32 * 4 * 4 / 18.4 * 21 / 64
    assert 0.75 < floor / pred.clocks < 0.85


def _bench_tile(name: str) -> bench_ragged.Tile:
    """A benchmark tile by name: ``NARROW_ROWS`` (the 64 x 64 tile's earlier layout, 2 whole
    rows a warp), else the fitted tile ``ROWSxCOLS``."""
    if name == "NARROW_ROWS":
        return bench_ragged.NARROW_ROWS
    return next(t for t in bench_ragged.FITTED if f"{t.rows}x{t.cols}" == name)


@pytest.mark.parametrize("name, short", [("1024x4", 3), ("512x8", 5), ("256x16", 7),
                                         ("128x32", 13), ("NARROW_ROWS", 25), ("64x64", 0)])
def test_thresholds_of_the_fitted_tiles(name: str, short: int) -> None:
    """The fitted benchmark tiles' stores (1024 x 4 .. 64 x 64): staged, with the threshold
    the model gives their rows (none for 64 x 64, whose warps hold halves of its rows: no
    short path); the loads stay predicated (no short path)."""
    from regcopy_passes.lower_reg_copy import plan_for

    tile = _bench_tile(name)
    load, store = [op for op in parse_unverified(bench_ragged.kernel_text(tile, False)).walk()
                   if isinstance(op, CopyOp)]
    paths = plan_for(store).transfer.paths  # type: ignore[union-attr]
    assert paths[1].staged and paths[1].short == short
    assert len(paths) == (3 if short else 2)
    assert not short or (paths[2].plan.n == 1 and not paths[2].staged)
    assert len(plan_for(load).transfer.paths) == 2  # type: ignore[union-attr]


def test_no_short_path_where_a_warp_holds_part_of_a_row_or_the_form_is_forced() -> None:
    """32 x 256 (two warps a row: ``row`` 0) has no threshold; neither has a forced staged
    form, nor one the model does not stage."""
    assert short_rows(MisalignedTile(4, 1, 32, 1, 1, 32, False, None, 0)) == 0
    assert with_short_rows(choose_misaligned_form(_tile(32, 4), "staged")).short == 0
    assert choose_misaligned_form(_tile(1, 128)).form == "realigned"
    assert with_short_rows(choose_misaligned_form(_tile(1, 128))).short == 0


KERNEL = """
func.func @k(%X: memref<?x?xf32, #regcopy.mem<global>>, %Y: memref<?x?xf32, #regcopy.mem<global>>,
             %r: index) attributes {regcopy.launch = #regcopy.launch<block = 64, grid = [1]>} {
  %R = memref.alloca() : memref<256x4xf32, #regcopy.layout<(4,64,4):(4,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %X[%r, 0] [256, 4] -> %R : memref<?x?xf32, #regcopy.mem<global>> -> memref<256x4xf32, #regcopy.layout<(4,64,4):(4,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %R -> %Y[%r, 0] [256, 4] : memref<256x4xf32, #regcopy.layout<(4,64,4):(4,1@tx,1)>, #regcopy.mem<local>> -> memref<?x?xf32, #regcopy.mem<global>>
  func.return
}
"""
"""The 1024 x 4 benchmark tile's pattern on 64 threads: one row of 4 f32 a thread a round."""


@pytest.fixture(scope="module")
def modules() -> dict[str, object]:
    return {"reference": parse_unverified(KERNEL), "auto": lower(parse_unverified(KERNEL))}


def test_three_paths_in_the_lowered_ir() -> None:
    """Aligned rows: 128-bit; else ``%short`` (the row length against the threshold) picks
    the predicated 32-bit rounds under the thread's reach, or the staged form."""
    from xdsl.printer import Printer
    import io

    out = io.StringIO()
    Printer(stream=out).print_op(lower(parse_unverified(KERNEL)))
    text = out.getvalue()
    assert re.search(r"%short = arith.cmpi ult, %e1_1, %\w+ : index", text)
    short = text.index("scf.if %short {")
    staged = text.index('"gpu.barrier"() {regcopy.warp}', short)
    between = text[short:staged]
    assert "scf.if %reach_1 {" in between and "vector<1xf32>" in between
    assert "regcopy.staging" not in between


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 9])
@pytest.mark.parametrize("r", [0, 3])
def test_both_sides_of_the_threshold_equal_the_reference(modules, n: int, r: int) -> None:
    """X (m x n) -> registers -> Y at row ``r``, the tile's last rows outside: N = 1, 2 take
    the short-row path, 3, 5, 7, 9 the staged one, 4 the aligned one; each writes exactly
    what the un-lowered copy writes."""
    m = r + 256 - 3
    x = (np.arange(1, m * n + 1) % 251).astype(np.float32).reshape(m, n)
    y = np.full((m, n), 7, np.float32)
    args = [x, y.copy(), np.int64(r)]
    want = run_on_cpu(modules["reference"], "k", args)[1]  # type: ignore[arg-type]
    got = run_on_cpu(modules["auto"], "k", args)[1]  # type: ignore[arg-type]
    np.testing.assert_array_equal(got, want)


TWO_ROWS = KERNEL.replace("256x4xf32", "8x64xf32").replace(
    "(4,64,4):(4,1@tx,1)", "(2,4,16,4):(4,16@tx,1@tx,1)").replace("[256, 4]", "[8, 64]")
"""The 64 x 64 benchmark tile's pattern on 64 threads: 16 threads a row, 2 rows a warp (its
threshold, 25)."""


@pytest.mark.parametrize("n", [5, 23, 24, 25, 31, 33])
@pytest.mark.parametrize("r", [0, 5])
def test_two_rows_a_warp_on_both_sides_of_25_equal_the_reference(n: int, r: int) -> None:
    """X (m x n) -> registers -> Y at row ``r`` on the 2-rows-a-warp tile, its last rows
    outside: N = 5 and 23 take the short-row path, 25, 31 and 33 the staged one, 24 the
    aligned one; each writes exactly what the un-lowered copy writes."""
    from regcopy_passes.lower_reg_copy import plan_for

    module = lower(parse_unverified(TWO_ROWS))
    store = [op for op in parse_unverified(TWO_ROWS).walk() if isinstance(op, CopyOp)][1]
    assert plan_for(store).transfer.paths[1].short == 25  # type: ignore[union-attr]
    m = r + 8 - 3
    x = (np.arange(1, m * n + 1) % 251).astype(np.float32).reshape(m, n)
    args = [x, np.full((m, n), 7, np.float32), np.int64(r)]
    want = run_on_cpu(parse_unverified(TWO_ROWS), "k", args)[1]  # type: ignore[arg-type]
    got = run_on_cpu(module, "k", args)[1]  # type: ignore[arg-type]
    np.testing.assert_array_equal(got, want)


def test_sass_of_the_1024x4_tile_has_both_forms() -> None:
    """The 1024 x 4 benchmark kernel (32-bit index math): the staged path's 4 transfers of a
    vector (32-bit stores in lane order, 16 a thread) and the short-row path's 16 predicated
    32-bit stores (a path's last one may sit behind a predicated ``EXIT`` instead) (one store and one predicate an element: ``predicated_cost``'s count), 4
    128-bit stores of the aligned path, no local memory."""
    from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
    from regcopy_backend.cuda.printer import print_cuda

    module = lower(parse_unverified(bench_ragged.kernel_text(bench_ragged.FITTED[0], False)))
    sass = disassemble(compile_cuda(print_cuda(module), options=("-DREGCOPY_INDEX32",)).cubin)
    ops = re.findall(r"^\s+/\*[0-9a-f]+\*/\s+(@!?P\w+ )?([A-Z][A-Z0-9_.]*)", sass, re.MULTILINE)
    stores = [p for p, o in ops if o == "STG.E"]
    assert len(stores) == 2 * 16
    # each under a predicate, but a path's last store, which ptxas may put behind a
    # predicated EXIT
    assert sum(1 for p in stores if not p) <= 2
    assert sum(1 for _, o in ops if o == "STG.E.128") == 4
    assert sum(1 for _, o in ops if o == "LDS") == 16
    assert not re.search(r"\b(LDL|STL)\b", sass)


def _path_issue(tile: bench_ragged.Tile, short: bool) -> float:
    """SASS instructions a vector (4 a thread) of the benchmark kernel's misaligned path, 32-bit
    index math, with the short-row test made ``short``: the whole kernel but the aligned
    paths (NOPs and the closing self-branch left out)."""
    from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
    from regcopy_backend.cuda.printer import print_cuda

    source = print_cuda(lower(parse_unverified(bench_ragged.kernel_text(tile, False))))
    source = re.sub(r"const bool (aligned\w*) = [^;]*;", r"const bool \1 = false;", source)
    source = re.sub(r"const bool v_short = [^;]*;",
                    f"const bool v_short = {str(short).lower()};", source)
    sass = disassemble(compile_cuda(source, options=("-DREGCOPY_INDEX32",)).cubin)
    ops = [o for o in re.findall(r"^\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+ )?([A-Z][A-Z0-9_.]*)",
                                 sass, re.MULTILINE) if not o.startswith("NOP")]
    return (len(ops) - (ops[-1] == "BRA")) / 4


@pytest.mark.parametrize("name, slack", [("1024x4", 3), ("NARROW_ROWS", 3), ("128x32", 8)])
def test_the_whole_vectors_issue_is_the_sass_count(name: str, slack: int) -> None:
    """What the short-row weighing counts a vector (``vector_issue`` and each form's stores:
    40 slots predicated, 56 staged) against the SASS of both paths: within 3 on 1024 x 4 and
    the 2-rows-a-warp 64 x 64, the tiles whose thresholds the H200 fixed; the 128 x 32
    kernel's staged path takes 7.5 more (its 4 rows a warp: more row checks), which keeps its
    threshold under the tile's N = 17..31."""
    tile = _bench_tile(name)
    model = _tile(32 // (tile.cols // 4), tile.cols)
    pred, staged = short_row_costs(model, 1)
    assert abs(_path_issue(tile, True) - pred.issue) <= slack
    assert abs(_path_issue(tile, False) - staged.issue) <= slack
    assert tile.cols != 32 or short_rows(model) < 17


@pytest.mark.gpu
def test_short_rows_are_bit_exact_on_the_gpu() -> None:
    """The 1024 x 4 and 2-rows-a-warp 64 x 64 benchmark kernels on the GPU at row lengths on
    both sides of their thresholds (3 and 25), and the 64 x 64 tile (halves of rows a warp,
    no threshold) at the same lengths, M off the tile: Y equals X bit for bit."""
    from regcopy_backend.cuda.kernel_info import kernel_info, kernels
    from regcopy_backend.cuda.printer import print_cuda
    from regcopy_backend.runtime.runner import gpu_available, run_kernel

    has_gpu, why = gpu_available()
    if not has_gpu:
        pytest.skip(why)
    rng = np.random.default_rng(34)
    narrow_ns = (1, 5, 17, 23, 24, 25, 29, 37)
    for tile, ns in ((bench_ragged.FITTED[0], (1, 2, 3, 5)),
                     (bench_ragged.NARROW_ROWS, narrow_ns), (bench_ragged.NARROW, narrow_ns)):
        module = lower(parse_unverified(bench_ragged.kernel_text(tile, promised=False)))
        source, info = print_cuda(module), kernel_info(kernels(module)[0])
        for n in ns:
            m = 3 * tile.rows - 5
            x = rng.integers(-2**31, 2**31 - 1, (m, n), dtype=np.int64).astype(np.int32)
            y = np.zeros_like(x)
            grid = [-(-m // tile.rows) * -(-n // tile.cols), 1, 1]
            got = run_kernel(source, info, [x.view(np.float32), y.view(np.float32)],
                             grid=grid).arrays[1]
            assert np.array_equal(got.view(np.int32), x), (tile, n)
