"""The shuffled form of misaligned stores (``emit_shuffled``): which tiles it can move
(``row_group``), the cost model's words, the CPU interpreter against the un-lowered copy
over misaligned row lengths and offsets, the SASS (warp shuffles, aligned 128-bit stores, no
local memory), the GEMM examples asking for realigned stores instead
(``{misaligned_stores}``), and bit-exact stores on the GPU."""

from __future__ import annotations

import re

import numpy as np
import pytest
from ragged_cases import THOROUGH, parse_unverified
from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_passes import lower
from regcopy_passes.reg_copy.misaligned_cost import (
    MIN_GROUP,
    MisalignedTile,
    choose_misaligned_form,
    shuffled_cost,
)

from regcopy_dialect.regcopy import CopyOp

KERNEL = """
func.func @k(%X: memref<?x?x{e}, #regcopy.mem<global>>, %Y: memref<?x?x{e}, #regcopy.mem<global>>,
             %r: index, %ct: index) attributes {{regcopy.launch = #regcopy.launch<block = 64, grid = [1]>}} {{
  %R = memref.alloca() : {t}
  %cols = arith.constant {cols} : index
  %c = arith.muli %ct, %cols : index
  regcopy.copy cta %X[%r, %c] [{rows}, {cols}] -> %R : memref<?x?x{e}, #regcopy.mem<global>> -> {t}
  regcopy.copy cta %R -> %Y[%r, %c] [{rows}, {cols}] : {t} -> memref<?x?x{e}, #regcopy.mem<global>>
  func.return
}}
"""
TILES = {"f16 row a warp": (4, 256, "(2,2,32,8):(8,32@tx,1@tx,1)", "f16", 32),
         "f16 half-warp rows": (8, 128, "(2,2,2,16,8):(8,16@tx,32@tx,1@tx,1)", "f16", 16),
         "f32 row a warp": (4, 128, "(2,2,32,4):(4,32@tx,1@tx,1)", "f32", 32),
         "f32 quarter-warp rows": (16, 32, "(2,4,2,8,4):(4,8@tx,32@tx,1@tx,1)", "f32", 8)}
"""CTA tiles of 64 threads (2 warps), 16 bytes a thread a row, and the lanes a row's run
spans (``row_group``)."""


def _kernel(tile: str) -> str:
    rows, cols, layout, e, _ = TILES[tile]
    t = f"memref<{rows}x{cols}x{e}, #regcopy.layout<{layout}>, #regcopy.mem<local>>"
    return KERNEL.format(t=t, rows=rows, cols=cols, e=e)


def _store_plan(tile: str):  # type: ignore[no-untyped-def]
    from regcopy_passes.lower_reg_copy import plan_for
    store = [op for op in parse_unverified(_kernel(tile)).walk() if isinstance(op, CopyOp)][1]
    return plan_for(store), store


@pytest.mark.parametrize("tile", list(TILES))
def test_row_group_is_the_lanes_of_a_rows_run(tile: str) -> None:
    from regcopy_passes.reg_copy.plan_bounds import row_group
    plan, store = _store_plan(tile)
    assert row_group(plan.transfer.paths[0].plan, tuple(store.region("dst")[1])) == TILES[tile][4]


def test_model_shuffles_rows_of_a_warp_and_not_narrow_groups() -> None:
    """A warp over one row of f16 (8 elements a lane): the realigned pieces touch the warp's
    span once a piece, the shuffled form once (plus one sector a group's lane 0 piece);
    a group under ``MIN_GROUP`` lanes, a read, or an aligned granule cannot shuffle."""
    tile = MisalignedTile(8, 1, 16, 1, 1, 32, group=32)
    choice = choose_misaligned_form(tile)
    assert choice.form == "shuffled" and choice.shuffled is not None
    assert choice.shuffled.sectors < choice.realigned.sectors / 2
    # 4 words shuffled, k, 6 further tests, 2 + 8 predicated stores (lane 0's granule pieces)
    assert shuffled_cost(tile).issue == pytest.approx(4 * 2 + 9 + 6 * 3 + (2 + 8) * 2)
    for other in (MisalignedTile(8, 1, 16, 1, 1, 32, group=MIN_GROUP // 2),
                  MisalignedTile(8, 1, 16, 1, 1, 32, reads=True, group=32)):
        assert choose_misaligned_form(other).shuffled is None
        assert choose_misaligned_form(other, "shuffled").form != "shuffled"


def test_remark_names_the_shuffles() -> None:
    """The benchmark's 32 x 256 tile (one row a warp, 4 f32 a lane; its slices too large to
    stage): shuffled by the model, and the notes say how."""
    from regcopy_bench import bench_ragged
    from regcopy_passes.core.bounds import describe_paths
    from regcopy_passes.lower_reg_copy import plan_for
    from regcopy_passes.reg_copy.plan_bounds import extents_of

    module = parse_unverified(bench_ragged.kernel_text(bench_ragged.ROWS, promised=False))
    store = [op for op in module.walk() if isinstance(op, CopyOp)][1]
    plan = plan_for(store)
    assert plan.transfer.misaligned.startswith(  # type: ignore[union-attr]
        "misaligned stores shuffled by the cost model: 1 row a warp, 4 × f32 a thread a row")
    words = " ".join(describe_paths(extents_of(store, "dst"), plan.transfer))  # type: ignore[arg-type]
    assert "shuffled at run time (extent divisors [1, 1] prove 1: each lane takes the " \
           "previous lane's vector by 4 warp shuffles and stores one aligned vector" in words


@pytest.fixture(scope="module")
def modules() -> dict[tuple[str, str], object]:
    out: dict[tuple[str, str], object] = {}
    for tile in TILES:
        out[(tile, "reference")] = parse_unverified(_kernel(tile))
        out[(tile, "shuffled")] = lower(parse_unverified(_kernel(tile)),
                                        misaligned_stores="shuffled")
        out[(tile, "shuffled")].verify()  # type: ignore[attr-defined]  # (dominance)
    return out


def _cases() -> list[tuple[str, int, int, int]]:
    ns = range(1, 40) if THOROUGH else (1, 6, 9, 30, 131, 258)
    offsets = ((0, 0), (1, 0), (3, 1), (2, 1)) if THOROUGH else ((1, 0), (3, 1))
    return [(tile, n, r, c) for tile in TILES for n in ns for r, c in offsets]


@pytest.mark.parametrize("tile, n, r, c", _cases())
def test_shuffled_stores_equal_the_reference(modules, tile: str, n: int, r: int, c: int) -> None:
    """X (m x n) -> registers -> Y (m x n + 1: rows at every misalignment) at row ``r``
    and column tile ``c``: the shuffled store writes exactly what the un-lowered copy writes
    (nothing past Y's rows and columns, every partial vector at a run's ends)."""
    rows, _, _, e, _ = TILES[tile]
    dt = np.float16 if e == "f16" else np.float32
    m = r + rows - 3  # the tile's last rows outside
    x = (np.arange(1, m * n + 1) % 251).astype(dt).reshape(m, n)
    y = np.full((m, n + 1), 7, dt)
    args = [x, y.copy(), np.int64(r), np.int64(c)]
    want = run_on_cpu(modules[(tile, "reference")], "k", args)[1]  # type: ignore[arg-type]
    got = run_on_cpu(modules[(tile, "shuffled")], "k", args)[1]  # type: ignore[arg-type]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("example", ["gemm.mlir", "gemm_hopper.mlir"])
def test_gemm_examples_ask_for_realigned_d_stores(example: str) -> None:
    """The GEMM examples' stores of D carry ``{misaligned_stores = "realigned"}`` (shuffled,
    their epilogues ran no faster on the H200 with 2.3x the SASS): the plans store realigned
    and say who asked; the pass option, where it names a form, still wins; without the
    attribute the model would shuffle at least one of them."""
    from pathlib import Path

    from regcopy_passes.lower_reg_copy import plan_for
    from xdsl.dialects.builtin import StringAttr

    path = Path(__file__).resolve().parents[2] / "examples" / example
    asks = [op for op in parse_unverified(path.read_text()).walk()
            if isinstance(op, CopyOp) and op.misaligned_stores is not None]
    assert asks and all(op.misaligned_stores == "realigned" for op in asks)
    models = []
    for op in asks:
        note = plan_for(op).transfer.misaligned  # type: ignore[union-attr]
        assert note.startswith("misaligned stores realigned as asked (the copy's "
                               "misaligned_stores)")
        forced = plan_for(op, misaligned_stores="predicated").transfer.misaligned  # type: ignore
        assert forced.startswith("misaligned stores predicated as asked (misaligned-stores)")
        op.attributes["misaligned_stores"] = StringAttr("auto")
        models.append(plan_for(op).transfer.misaligned)  # type: ignore[union-attr]
    assert any(m.startswith("misaligned stores shuffled by the cost model") for m in models)


def test_sass_shuffles_and_stores_aligned_vectors() -> None:
    """The f16 tile: 4 shuffles a round (2 rounds, outside the chain on ``k``; ptxas may copy
    them into the arms of the warp's skip); every class's aligned 128-bit store in both
    rounds (``k = 0`` and 7 misaligned classes, the aligned path's 2 besides); no local
    memory."""
    from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
    from regcopy_backend.cuda.printer import print_cuda

    module = lower(parse_unverified(_kernel("f16 row a warp")), misaligned_stores="shuffled")
    sass = disassemble(compile_cuda(print_cuda(module)).cubin)
    ops = re.findall(r"^\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+ )?([A-Z][A-Z0-9_.]*)", sass,
                     re.MULTILINE)
    shuffles = ops.count("SHFL.IDX")  # ptxas may copy a round into two arms of a branch
    assert shuffles in (8, 16)
    assert ops.count("STG.E.128") >= 2 * 8
    assert not re.search(r"\b(LDL|STL)\b", sass)


@pytest.mark.gpu
def test_shuffled_stores_are_bit_exact_on_the_gpu() -> None:
    """Every tile, shuffled, on the GPU at aligned and misaligned row lengths, M off the
    tile, 3 x 3 column tiles: Y equals X bit for bit where X has data, 7 elsewhere."""
    from regcopy_backend.cuda.kernel_info import kernel_info, kernels
    from regcopy_backend.cuda.printer import print_cuda
    from regcopy_backend.runtime.runner import gpu_available, run_kernel

    has_gpu, why = gpu_available()
    if not has_gpu:
        pytest.skip(why)
    rng = np.random.default_rng(35)
    for tile in TILES:
        rows, cols, _, e, _ = TILES[tile]
        module = lower(parse_unverified(_kernel(tile)), misaligned_stores="shuffled")
        source, info = print_cuda(module), kernel_info(kernels(module)[0])
        it = np.int16 if e == "f16" else np.int32
        for n in (1, 7, cols // 2 + 1, cols - 1, cols, 2 * cols + 3):
            for r, ct in ((0, 0), (1, 1), (3, 2)):
                m = r + rows - 1
                x = rng.integers(-2**14, 2**14, (m, n)).astype(it)
                y = np.full((m, n + 1), 7, it)
                ft = np.float16 if e == "f16" else np.float32
                got = run_kernel(source, info, [x.view(ft), y.view(ft), np.int64(r),
                                                np.int64(ct)]).arrays[1].view(it)
                want, padded = y.copy(), np.zeros_like(y)  # (X's padding: 0)
                padded[:, :n] = x
                c0 = ct * cols
                want[r:r + rows, c0:c0 + cols] = padded[r:r + rows, c0:c0 + cols]
                assert np.array_equal(got, want), (tile, n, r, ct)
