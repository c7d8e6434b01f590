"""The TMA matrix (``tma_cases``): on the CPU, what ``transfer=tma`` decides for each case
(TMA, or ``cp.async`` with the reason in the remark), the ring depth, the CUDA frame of
several kernels in one module, and the interpreter's result against numpy; on a GPU
(``-m gpu``) every module of the matrix, bit for bit (``lab/gpu/tma.sh`` runs the same under
compute-sanitizer memcheck)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from ragged_cases import THOROUGH
from regcopy_backend.cuda.printer import print_cuda
from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_backend.runtime.runner import gpu_available
from regcopy_passes.tma.ring import MAX_RING, ring_depth
from regcopy_tools.regcopy_run import parse_and_lower, parse_module
from tma_cases import TmaCase, matrix, module_text, run_module

from regcopy_dialect.diagnostics import capture_diagnostics

TMA = "lower-reg-copy{transfer=tma remarks}"


def lowered(cases: list[TmaCase]) -> tuple[str, list[str]]:
    """The lowered module's text and the remarks."""
    with capture_diagnostics() as diags:
        module = parse_and_lower(module_text(cases), "tma_matrix.mlir", TMA)
    return str(module), [d.message for d in diags]


def interpreted(case: TmaCase) -> None:
    module = parse_and_lower(module_text([case]), "tma_matrix.mlir", TMA)
    g, o = case.inputs(np.random.default_rng(1))
    got = run_on_cpu(module, case.name, [g, o])[1]
    np.testing.assert_array_equal(got, case.expected(g))


def test_a_two_byte_box_start_is_refused_with_both_reasons() -> None:
    """f16 column 3 (6 bytes): neither a TMA box (16 bytes) nor cp.async (4-byte chunks)."""
    with capture_diagnostics() as diags:
        parse_and_lower(module_text([TmaCase(col=3)]), "odd.mlir", TMA)
    assert diags[0].message.startswith("transfer=tma: box starts at a global column only "
                                       "provably a multiple of 6 bytes")
    assert diags[1].message.startswith("not lowered: no cp.async width fits")
    assert all(d.location == "odd.mlir:9:3" for d in diags)


@pytest.mark.parametrize("elem, col", [("f16", 0), ("f16", 2), ("f16", 4),
                                       ("f16", 8), ("f32", 1), ("f32", 4), ("i8", 8),
                                       ("i8", 16), ("f64", 2)])
def test_box_start_column_decides(elem: str, col: int) -> None:
    """A box whose first global column is not 16-byte aligned (f16 column 2 or 3 faulted on
    the H200) falls back to cp.async, saying why; an aligned one is a TMA box. Both exact on
    the interpreter."""
    case = TmaCase(elem=elem, col=col)
    text, remarks = lowered([case])
    assert ("regcopy.tma_load" in text) == case.tma_expected
    if case.tma_expected:
        assert remarks[0].startswith("lowered: TMA box")
    else:
        assert "cp.async.cg" not in text  # still async: cp.async of the narrower chunks
        why = f"only provably a multiple of {col * case.e} bytes"
        assert remarks[0].startswith("transfer=tma: box starts at a global column") and \
            why in remarks[0]
    interpreted(case)


def test_dynamic_box_start_needs_a_promise() -> None:
    """A runtime column is TMA only when it is provably a multiple of 16 bytes."""
    text = module_text([TmaCase()]).replace("%G[0, 0]", "%G[0, %col]").replace(
        "%c1 = arith.constant 1 : index", "%c1 = arith.constant 1 : index\n"
        "  %bx = \"gpu.block_id\"() <{dimension = #gpu<dim x>}> : () -> index\n"
        "  %cf = arith.constant FACTOR : index\n  %col = arith.muli %bx, %cf : index")
    for factor, tma in (("4", False), ("8", True)):
        with capture_diagnostics() as diags:
            module = parse_and_lower(text.replace("FACTOR", factor), "col.mlir", TMA)
        assert ("regcopy.tma_load" in str(module)) == tma, diags[0].message


@pytest.mark.parametrize("groups, pending", [(g, p) for g in range(1, 5) for p in range(g)])
def test_ring_holds_every_group_in_flight(groups: int, pending: int) -> None:
    """All groups are committed before the first wait: the ring needs one slot per group
    (it was 1 + pending, so that two groups and pending 0 arrived twice on one barrier)."""
    case = TmaCase(groups=groups, pending=pending)
    text, remarks = lowered([case])
    assert f"mbarrier ring of {groups}" in remarks[0]
    assert f"memref<{groups}xi64" in text
    if groups in (2, 4):
        interpreted(case)


RING_LOOP = """
func.func @k(%G: memref<64x64xf16, #regcopy.mem<global>>, %n: index)
    attributes {regcopy.launch = #regcopy.launch<block = 64, grid = [1]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %S = memref.alloca() : memref<8x64xf16, #regcopy.mem<shared>>
  scf.for %i = %c0 to %n step %c1 {
    %t = regcopy.copy_async cta %G[0, 0] [8, 64] -> %S[0, 0] [8, 64] : memref<64x64xf16, #regcopy.mem<global>> -> memref<8x64xf16, #regcopy.mem<shared>>
    %g = regcopy.async_group %t
    WAIT
  }
  func.return
}
"""


@pytest.mark.parametrize("wait, depth", [("regcopy.async_wait %g {pending = 2 : i64}", 3),
                                         ("regcopy.async_wait %g {pending = 0 : i64}", 1),
                                         ("", None)])
def test_ring_depth_of_a_loop(wait: str, depth: int | None) -> None:
    """In a loop: the bound the wait keeps; with no wait, unbounded: refused with a reason."""
    _, module = parse_module(RING_LOOP.replace("WAIT", wait), "loop.mlir")
    got = ring_depth(next(iter(module.ops)))
    if depth is None:
        assert isinstance(got, str) and f"more than {MAX_RING} groups" in got
        with capture_diagnostics() as diags:
            parse_and_lower(RING_LOOP.replace("WAIT", wait), "loop.mlir", TMA)
        assert "lowered with cp.async instead" in " ".join(diags[0].notes)
    else:
        assert got == depth


@pytest.mark.parametrize("space", ["shared", "shared.dyn"])
def test_kernels_of_one_module_share_the_largest_alignment(space: str) -> None:
    """Two kernels in one module, a 128-byte-swizzled TMA destination (1024-byte alignment)
    and an unswizzled one: one ``extern __shared__`` for the module at 1024 (NVRTC kept one
    of the per-kernel declarations, so the swizzled kernel could get 128)."""
    cases = [TmaCase(swizzle=0, space=space), TmaCase(swizzle=128, space=space, groups=2)]
    module = parse_and_lower(module_text(cases), "two.mlir", "lower-reg-copy{transfer=tma}")
    source = print_cuda(module)
    externs = re.findall(r"extern __shared__ __align__\((\d+)\)", source)
    assert externs == (["1024"] if space == "shared.dyn" else [])
    if space == "shared":
        assert "__shared__ alignas(1024)" in source
    else:  # NVRTC compiles the module: both kernels, each with its own dynamic size
        from regcopy_tools.regcopy_run import prepare

        prepared = prepare(module_text(cases), "two.mlir", "lower-reg-copy{transfer=tma}")
        assert sorted(k.name for k in prepared.kernels) == sorted(c.name for c in cases)


def test_xor_destination_is_a_tma_swizzle_or_a_reason() -> None:
    """An ``xor<...>`` shared layout equal to a TMA swizzle lowers as that TMA swizzle; any
    other is refused with a reason (it was an AttributeError)."""
    case = TmaCase(swizzle=128)
    same = module_text([case]).replace("swizzle<3,3,3>", "xor<6:8, 7:16, 8:32>")
    with capture_diagnostics() as diags:
        module = parse_and_lower(same, "xor.mlir", TMA)
    assert "swizzle = 128" in str(module), diags[0].message
    other = module_text([case]).replace("swizzle<3,3,3>", "xor<7:8, 8:16, 9:32>")
    with capture_diagnostics() as diags:
        parse_and_lower(other, "xor.mlir", TMA)
    assert diags[0].message.startswith("transfer=tma: layout is not a TMA swizzle: xor<7:8, 8:16, 9:32>")


@pytest.mark.parametrize("case", [TmaCase(swizzle=32, ragged=True, groups=2, pending=1),
                                  TmaCase(elem="f32", ragged=True, col=4, swizzle=128),
                                  TmaCase(swizzle=64, space="shared.dyn", groups=3, pending=2)])
def test_ragged_and_swizzled_boxes_on_the_interpreter(case: TmaCase) -> None:
    text, _ = lowered([case])
    assert "regcopy.tma_load" in text
    interpreted(case)


def test_the_gpu_matrix_on_the_interpreter() -> None:
    """Every case of the GPU matrix (a slice of it unless REGCOPY_HYPOTHESIS/REGCOPY_PERF ask
    for thoroughness), lowered as the GPU run lowers it: CUDA printed and the interpreter's
    result equal to numpy, so that a GPU failure is the GPU's."""
    modules = matrix() if THOROUGH else matrix()[::9]
    for cases in modules:
        module = parse_and_lower(module_text(cases), "matrix.mlir", "lower-reg-copy{transfer=tma}")
        assert 'extern "C" __global__' in print_cuda(module)
        for case in cases:
            g, o = case.inputs(np.random.default_rng(0))
            got = run_on_cpu(module, case.name, [g, o])[1]
            assert (got.view(np.uint8) == case.expected(g).view(np.uint8)).all(), case.name


def test_matrix_covers_the_issue() -> None:
    """The GPU matrix has every box start column mod 16 bytes (f16), pending 0..3, every
    swizzle × space, alone and with another kernel, and ragged boxes."""
    cases = [c for m in matrix() for c in m]
    assert {c.col * c.e % 16 for c in cases} == {0, 4, 8, 12}
    assert {c.pending for c in cases} == {0, 1, 2, 3}
    assert {(c.swizzle, c.space) for c in cases} >= {(s, sp) for s in (0, 32, 64, 128)
                                                     for sp in ("shared", "shared.dyn")}
    assert any(len(m) > 1 for m in matrix()) and any(c.ragged for c in cases)


HAS_GPU, WHY = gpu_available()


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_GPU, reason=WHY)
@pytest.mark.parametrize("cases", matrix(), ids=lambda cs: "+".join(c.name for c in cs))
def test_tma_matrix_on_the_gpu(cases: tuple[TmaCase, ...]) -> None:
    for case, ok, how in run_module(cases):
        assert ok, f"{case.name} ({how}) differs from numpy"
        assert (how == "tma") == case.tma_expected
