"""The staged form of misaligned copies (``emit_staged``): the cost model's choice and words,
the copies it can and cannot move, the lowered IR (one shared slice array a kernel, warp
barriers), the CPU interpreter over row lengths and row/column offsets against the
un-lowered copy, the SASS the model counts, and the GPU."""

from __future__ import annotations

import re

import numpy as np
import pytest
from ragged_cases import THOROUGH, parse_unverified
from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_passes import lower
from regcopy_passes.reg_copy.misaligned_cost import (
    STAGE_MARGIN,
    MisalignedTile,
    choose_misaligned_form,
    staged_cost,
)


def _tile(rows: int, reads: bool = False, staging: str | None = None) -> MisalignedTile:
    return MisalignedTile(4, rows, 32, 1, 1, 32, reads, staging)


def test_several_rows_a_warp_stage_their_stores() -> None:
    """f32 rows, nothing proven: a warp over 2..32 rows stages its stores (32 consecutive
    elements a transfer: a quarter of the predicated form's sectors); one row a warp keeps
    the realigned pieces (the staged form saves less than ``STAGE_MARGIN``); loads stay
    predicated (under the DRAM floor either way)."""
    assert choose_misaligned_form(_tile(1)).form == "realigned"
    for rows in (2, 4, 8, 16, 32):
        choice = choose_misaligned_form(_tile(rows))
        assert choice.form == "staged", rows
        assert choice.staged is not None
        others = min(choice.realigned.clocks, choice.predicated.clocks)
        assert choice.staged.clocks < others * (1 - STAGE_MARGIN)
        assert choose_misaligned_form(_tile(rows, reads=True)).form == "predicated"


def test_staged_cost_counts_lane_order_sectors() -> None:
    """16 rows a warp of 8 f32 (512 x 8): each of the 4 transfers covers 4 whole rows of 32
    bytes (1 7/8 sectors each from a 4-byte aligned start), against the predicated form's
    warp span of 512 bytes per store; 4 x (store, predicate, shared access) + the vector's
    shared access + the barriers' share."""
    cost = staged_cost(_tile(16))
    assert cost.sectors == 4 * 4 * (1 * 1 + 7 * 2) / 8
    assert cost.issue == 4 * 3 + 1 + 1


def test_forced_staged_and_why_not() -> None:
    """``staged`` forces loads too where the copy can stage; where it cannot (a warp-scope
    copy), the model picks among the others and the words say why."""
    forced = choose_misaligned_form(_tile(1, reads=True), "staged")
    assert forced.form == "staged" and forced.forced
    cannot = choose_misaligned_form(_tile(16, staging="a warp-scope copy"), "staged")
    assert cannot.form == "predicated" and not cannot.forced and cannot.staged is None
    assert cannot.describe("f32").endswith(", not staged (a warp-scope copy)")
    words = forced.describe("f32")
    assert words.startswith("misaligned loads staged as asked (misaligned-stores): 1 row a warp")
    assert re.search(r"staged \d+\.\d clocks \(\d+\.\d issue slots, \d+\.\d wavefronts\)$",
                     words)


KERNEL = """
func.func @k(%X: memref<?x?xf32, #regcopy.mem<global>>, %Y: memref<?x?xf32, #regcopy.mem<global>>,
             %r: index, %ct: index) attributes {{regcopy.launch = #regcopy.launch<block = 64, grid = [1]>}} {{
  %R = memref.alloca() : {t}
  %cols = arith.constant {cols} : index
  %c = arith.muli %ct, %cols : index
  regcopy.copy cta %X[%r, %c] [{rows}, {cols}] -> %R {{padding = 0.5 : f32}} : memref<?x?xf32, #regcopy.mem<global>> -> {t}
  regcopy.copy cta %R -> %Y[%r, %c] [{rows}, {cols}] : {t} -> memref<?x?xf32, #regcopy.mem<global>>
  func.return
}}
"""
TILES = {"rows": (64, 8, "(2,32,2,4):(4,2@tx,1@tx,1)"),
         "wide": (8, 64, "(2,4,16,4):(4,16@tx,1@tx,1)")}
"""CTA tiles of 64 threads (2 warps), 4 contiguous f32 a thread a row: 16 rows a warp, and 2
rows a warp (half a row a transfer)."""


def _kernel(tile: str) -> str:
    rows, cols, layout = TILES[tile]
    t = f"memref<{rows}x{cols}xf32, #regcopy.layout<{layout}>, #regcopy.mem<local>>"
    return KERNEL.format(t=t, rows=rows, cols=cols)


@pytest.fixture(scope="module")
def modules() -> dict[tuple[str, str], object]:
    out: dict[tuple[str, str], object] = {}
    for tile in TILES:
        out[(tile, "reference")] = parse_unverified(_kernel(tile))
        out[(tile, "staged")] = lower(parse_unverified(_kernel(tile)), misaligned_stores="staged")
    return out


def _cases() -> list[tuple[str, int, int, int]]:
    ns = range(1, 20) if THOROUGH else (1, 3, 4, 6, 7, 13, 67)
    offsets = ((0, 0), (1, 0), (3, 1), (2, 1)) if THOROUGH else ((1, 0), (3, 1))
    return [(tile, n, r, c) for tile in TILES for n in ns for r, c in offsets]


@pytest.mark.parametrize("tile, n, r, c", _cases())
def test_staged_copies_equal_the_reference(modules, tile: str, n: int, r: int, c: int) -> None:
    """X (m x n) -> registers -> Y (m x n + 1: its rows start at other misalignments than
    X's) at row ``r`` and column tile ``c``, both staged: the lowered copy writes exactly
    what the un-lowered copy writes (the padding past X's end, nothing past Y's), at aligned
    and misaligned row lengths."""
    rows = TILES[tile][0]
    m = r + rows - 3  # the tile's last rows outside
    x = (np.arange(1, m * n + 1) % 251).astype(np.float32).reshape(m, n)
    y = np.full((m, n + 1), 7, np.float32)
    args = [x, y.copy(), np.int64(r), np.int64(c)]
    want = run_on_cpu(modules[(tile, "reference")], "k", args)[1]  # type: ignore[arg-type]
    got = run_on_cpu(modules[(tile, "staged")], "k", args)[1]  # type: ignore[arg-type]
    np.testing.assert_array_equal(got, want)


def test_one_slice_array_a_kernel_and_warp_barriers() -> None:
    """Both staged copies share one shared array (hoisted to the kernel's entry: 2 warps x 2
    rounds x 32 lanes x 4 f32), each opened by a warp barrier and with one between its
    sides; the remark names the form and the slices."""
    from regcopy_backend.cuda.printer import print_cuda

    module = lower(parse_unverified(_kernel("rows")), misaligned_stores="staged")
    source = print_cuda(module)
    assert source.count("__shared__") == 1
    assert re.search(r"__shared__ alignas\(128\) float staging\[512\];", source)
    assert source.count("__syncwarp();") == 4
    assert source.index("__shared__") < source.index("alignas(16) float R[")


def test_remark_says_staged_and_why_not() -> None:
    from regcopy_passes.lower_reg_copy import plan_for

    from regcopy_dialect.regcopy import CopyOp

    module = parse_unverified(_kernel("rows"))
    load, store = [op for op in module.walk() if isinstance(op, CopyOp)]
    note = plan_for(store).transfer.misaligned  # type: ignore[union-attr]
    assert note.startswith("misaligned stores staged by the cost model: 16 rows a warp")
    assert plan_for(load).transfer.misaligned.startswith(  # type: ignore[union-attr]
        "misaligned loads predicated by the cost model")
    from regcopy_passes.core.bounds import describe_paths
    from regcopy_passes.reg_copy.plan_bounds import extents_of

    transfer = plan_for(store).transfer
    words = " ".join(describe_paths(extents_of(store, "dst"), transfer))  # type: ignore[arg-type]
    assert "else vec 4 × f32 staged through shared memory (extent divisors [1, 1] prove 1: " \
           "each warp's vectors pass through its own slice, moved as vec 1 × f32 in lane " \
           "order, 4 a vector, each under its own predicate)" in words


def test_sass_of_the_staged_fitted_tile() -> None:
    """The fitted 512 x 8 benchmark kernel, staged both ways: the counts ``staged_cost``
    charges per vector of the misaligned path: one 128-bit shared store and load (the
    vectors into and out of the slices), 4 32-bit shared accesses each way and 4 32-bit
    global loads and stores (the lane-order transfers; the loads predicated, the stores
    under a predicate or a branch: with 64-bit index math ptxas sinks a store's shared load
    into its branch), no local memory."""
    from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
    from regcopy_backend.cuda.printer import print_cuda
    from regcopy_bench import bench_ragged

    tile = bench_ragged.FITTED[1]
    module = lower(parse_unverified(bench_ragged.kernel_text(tile, promised=False)),
                   misaligned_stores="staged")
    sass = disassemble(compile_cuda(print_cuda(module)).cubin)
    ops = re.findall(r"^\s+/\*[0-9a-f]+\*/\s+(@!?P\w+ )?([A-Z][A-Z0-9_.]*)", sass, re.MULTILINE)
    count = {name: sum(1 for _, o in ops if o == name) for name in
             ("STS.128", "LDS.128", "STS", "LDS", "STG.E", "LDG.E.CONSTANT", "WARPSYNC")}
    vectors = 4
    assert count["STS.128"] == vectors and count["LDS.128"] == vectors
    assert count["STS"] == 4 * vectors and count["LDS"] == 4 * vectors
    assert count["STG.E"] == 4 * vectors and count["LDG.E.CONSTANT"] == 4 * vectors
    assert sum(1 for p, o in ops if p and o == "LDG.E.CONSTANT") == 4 * vectors
    assert not re.search(r"\b(LDL|STL)\b", sass)


@pytest.mark.gpu
def test_staged_fitted_tiles_are_bit_exact_on_the_gpu() -> None:
    """Every fitted benchmark tile, staged both ways, on the GPU, at misaligned and aligned
    row lengths, M off the tile: Y equals X bit for bit."""
    from regcopy_backend.cuda.kernel_info import kernel_info, kernels
    from regcopy_backend.cuda.printer import print_cuda
    from regcopy_backend.runtime.runner import gpu_available, run_kernel
    from regcopy_bench import bench_ragged

    has_gpu, why = gpu_available()
    if not has_gpu:
        pytest.skip(why)
    rng = np.random.default_rng(34)
    for tile in bench_ragged.FITTED:
        module = lower(parse_unverified(bench_ragged.kernel_text(tile, promised=False)),
                       misaligned_stores="staged")
        source, info = print_cuda(module), kernel_info(kernels(module)[0])
        for n in sorted({1, 3, tile.cols // 2 + 1, tile.cols - 1, tile.cols, tile.cols + 3}):
            m = 3 * tile.rows - 5
            x = rng.integers(-2**31, 2**31 - 1, (m, n), dtype=np.int64).astype(np.int32)
            y = np.zeros_like(x)
            grid = [-(-m // tile.rows) * -(-n // tile.cols), 1, 1]
            got = run_kernel(source, info, [x.view(np.float32), y.view(np.float32)],
                             grid=grid).arrays[1]
            assert np.array_equal(got.view(np.int32), x), (tile, n)


def _crowded(shared: str) -> str:
    """The ``rows`` kernel with one more shared buffer of type ``shared`` (unused)."""
    return _kernel("rows").replace("  %R = memref.alloca()",
                                   f"  %S = memref.alloca() : {shared}\n  %R = memref.alloca()")


@pytest.mark.parametrize("shared, words", [
    ("memref<12000xf32, #regcopy.mem<shared>>",
     "not staged (the kernel's static shared memory would be 50048 bytes (48000 of its shared "
     "buffers, 2048 of these slices), over the 49152-byte (48 KiB) limit)"),
    ("memref<47500xf32, #regcopy.mem<shared.dyn>>",
     "not staged (the kernel's shared memory would be 233088 bytes (40960 of its shared "
     "buffers, 2048 of these slices, 190080 of its shared.dyn buffers), over the "
     "232448-byte per-block limit of sm_90)"),
])
def test_no_staging_past_the_kernels_shared_memory(shared: str, words: str) -> None:
    """A kernel whose own shared buffers leave no room for the slices (2 KiB here) does not
    stage, forced or not: the remark says why, and the kernel prints (before, the slices took
    the static array past 48 KiB, or static + dynamic past sm_90's 227 KiB, and printing the
    kernel failed). Without the buffer, the same copy stages."""
    from regcopy_backend.cuda.printer import print_cuda
    from regcopy_passes.lower_reg_copy import plan_for

    from regcopy_dialect.regcopy import CopyOp

    if "shared.dyn" in shared:  # 40 KiB static + 185.6 KiB dynamic + the slices
        text = _crowded(shared).replace(
            "  %R = memref.alloca()",
            "  %T = memref.alloca() : memref<10240xf32, #regcopy.mem<shared>>\n"
            "  %R = memref.alloca()")
    else:
        text = _crowded(shared)
    store = [op for op in parse_unverified(text).walk() if isinstance(op, CopyOp)][1]
    note = plan_for(store).transfer.misaligned  # type: ignore[union-attr]
    assert note.startswith("misaligned stores predicated by the cost model"), note
    assert note.endswith(words), note
    for form in ("auto", "staged"):
        source = print_cuda(lower(parse_unverified(text), misaligned_stores=form))
        assert "staging[" not in source and "__syncwarp" not in source, form
    roomy = _kernel("rows").replace("  %R", "  %S = memref.alloca() : "
                                    "memref<11776xf32, #regcopy.mem<shared>>\n  %R", 1)
    assert "staging[512]" in print_cuda(lower(parse_unverified(roomy)))


def test_slices_of_other_types_count_against_the_budget() -> None:
    """``KernelShared.refusal``: slices of a type the kernel already holds share its array (no
    new bytes); slices of another type add theirs to the kernel's buffers and the other
    arrays."""
    from regcopy_passes.reg_copy.staging_budget import STATIC_LIMIT, KernelShared

    k = KernelShared(static=32768, staging=((("f32", 2048), 8192),))
    assert k.refusal(("f32", 2048), 8192) is None
    assert k.refusal(("bf16", 4096), STATIC_LIMIT - 32768 - 8192) is None
    why = k.refusal(("bf16", 4096), 8200)
    assert why is not None and "49160 bytes (32768 of its shared buffers, 8192 of other " \
        "staged copies' slices, 8200 of these slices)" in why


@pytest.mark.parametrize("name, deltas, math", [
    ("1024x4", [(0, 0), (8, 0), (16, 0), (24, 0)], (2, 1)),
    ("NARROW_ROWS", [(0, 0), (0, 32), (1, 0), (1, 32)], (3, 2)),
    ("64x64", [(0, 0), (1, 0), (2, 0), (3, 0)], (4, 3)),
])
def test_units_are_unit_zero_moved(name: str, deltas: list[tuple[int, int]],
                                   math: tuple[int, int]) -> None:
    """1024 x 4 and 64 x 64 (fitted benchmark tiles; 64 x 64 in both its layouts): transfer
    ``j``'s unit is unit 0 moved by the same rows and columns in every lane of every warp
    (``unit_deltas``), so the staged path computes one unit's coordinates and address and
    adds constants for the others: the staged path's prologue divides and takes remainders
    only for unit 0 (64 x 64: the warp, the lane's vector, its row, and in halves the half;
    1024 x 4: the warp and the lane's vector), against 9 divisions and 5 remainders (2 rows
    a warp) when every unit ran the thread math."""
    from regcopy_backend.cuda.printer import print_cuda
    from regcopy_bench import bench_ragged
    from regcopy_passes.lower_reg_copy import plan_for
    from regcopy_passes.reg_copy.emit_staged import unit_deltas

    from regcopy_dialect.regcopy import CopyOp

    tile = bench_ragged.NARROW_ROWS if name == "NARROW_ROWS" else next(
        t for t in bench_ragged.FITTED if f"{t.rows}x{t.cols}" == name)
    text = bench_ragged.kernel_text(tile, promised=False)
    store = [op for op in parse_unverified(text).walk() if isinstance(op, CopyOp)][1]
    plan = plan_for(store).transfer.paths[1].plan  # type: ignore[union-attr]
    assert unit_deltas(plan, (tile.rows, tile.cols), 4) == deltas
    source = print_cuda(lower(parse_unverified(text)))
    start = source.index("% 32;")  # the lane: the staged path's prologue
    prologue = source[start:source.index("__syncwarp", start)]
    assert (prologue.count(" / "), prologue.count(" % ")) == math
