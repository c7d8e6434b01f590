"""The GEMM benchmark's machinery without a GPU: the CTA shapes and grids of the candidates,
the ``convert`` epilogue's lowering (warp shuffles within quads, 128-bit stores), and the
32-bit index form the bench launches where the offsets fit."""

from __future__ import annotations

import pytest
from regcopy_bench.gemm_build import use_index32
from regcopy_bench.gemm_kernels import (
    CANDIDATES,
    candidate_block,
    candidate_grid,
    candidate_text,
    cta_n,
    kernel_text,
)
from regcopy_bench.gemm_side import pad_kernel_text
from regcopy_tools.regcopy_run import parse_and_lower


@pytest.mark.parametrize(("kw", "tile", "block"), [
    ({}, (128, 256), 256),
    ({"cm": 256}, (256, 128), 256),
    ({"wn": 32}, (128, 128), 256),
    ({"warps": 4}, (128, 128), 128),
])
def test_cta_shapes(kw: dict[str, int | bool | str], tile: tuple[int, int], block: int) -> None:
    cm = int(kw.get("cm", 128))
    assert (cm, cta_n(int(kw.get("wn", 64)), cm, int(kw.get("warps", 8)))) == tile
    assert candidate_block(kw) == block
    # 4095 x 4097: every row and column of D is in some CTA's tile, no CTA wholly outside
    gx, gy, _ = candidate_grid(4095, 4097, kw)
    assert (gx - 1) * tile[1] < 4097 <= gx * tile[1]
    assert (gy - 1) * tile[0] < 4095 <= gy * tile[0]
    text = candidate_text("gemm", "f16", kw)
    assert f"block = {block}," in text


def test_every_candidate_names_known_arguments() -> None:
    for name, kw in CANDIDATES.items():
        assert f"@c{len(name)}" in candidate_text(f"c{len(name)}", "bf16", kw)


def test_convert_epilogue_is_shuffles_and_wide_stores() -> None:
    """The convert epilogue: no output tile in shared memory, the conversion by shuffles
    (no scratch tile, no stmatrix), then 128-bit stores."""
    text = kernel_text("gemm", "bf16", epilogue="convert")
    shared = [ln for ln in text.splitlines() if "memref.alloca()" in ln and "shared.dyn" in ln]
    assert [ln.split()[0] for ln in shared] == ["%SA", "%SB"]  # the ring only
    lowered = str(parse_and_lower(text, "convert.mlir"))
    assert lowered.count("gpu.shuffle") == 48  # 64 words a lane, 3 of every 4 move
    assert "stmatrix" not in lowered and "regcopy.scratch" not in lowered
    assert "vector<8xbf16>" in lowered


def test_index_form_of_a_launch() -> None:
    """The bench launches the form the runner would: 32-bit at 8192^3, 64-bit once an
    operand holds 2^31 elements or more."""
    from regcopy_backend.cuda.kernel_info import kernel_info, kernels

    info = kernel_info(kernels(parse_and_lower(pad_kernel_text("pad", "f16"), "pad.mlir"))[0])
    assert use_index32(info, [(8192, 8192), (8192, 8192)])
    assert not use_index32(info, [(46341, 46341), (46341, 46344)])


def test_prefetching_convert_has_no_local_memory_in_either_index_form() -> None:
    """The prefetching loop (fragments one k16 step ahead, the next stage's copies issued
    first in a branch) with the convert epilogue (the example's, with the shared one, is
    test_gemm_example's): no LDL/STL in its 64-bit index form (the form that runs for operands
    of 2^31 elements or more) nor in its 32-bit one. Its copies' rounds share one offset a
    thread (lower-reg-copy's thread base), where one 64-bit offset and row a chunk used to
    stay live across the loop and spill. This machine's NVRTC (sm_90); one compile a form."""
    from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
    from regcopy_bench.gemm_launch import local_accesses
    from regcopy_bench.gemm_build import index32_cubin, lowered

    kw = CANDIDATES["convert epilogue"]
    source, _ = lowered("gemm", "f16", False, text=candidate_text("gemm", "f16", kw))
    cubin = compile_cuda(source).cubin
    assert disassemble(cubin).count("HMMA.16816.F32") >= 128
    assert local_accesses(cubin) == 0
    assert local_accesses(index32_cubin(source)) == 0
