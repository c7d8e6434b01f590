"""``regcopy.mma`` on the H200: one warp per dtype/shape pair of the instruction table (and
both B forms), tiles of several instructions in a permuted register order, integer-valued data:
the result equals numpy's exactly. Without a GPU, the kernels' SASS is checked instead for
the HMMA/IMMA instruction of each kind (NVRTC needs no GPU)."""

from __future__ import annotations

import numpy as np
import pytest
from mma_cases import BITS, KINDS, case_data, decoded, mma_kernel, word_digits
from regcopy_backend.runtime.runner import gpu_available

from regcopy_dialect.mma_fragments import Operand
from regcopy_dialect.mma_ops import MMA_KINDS

HAS_GPU, WHY = gpu_available()


def _orders(kind: tuple[str, str, str], tiles: tuple[int, int, int], transpose_b: bool
            ) -> tuple[tuple[int, ...], ...]:
    """Every operand's word digits in reverse order (tiles innermost)."""
    shape = MMA_KINDS[kind]
    dims = ((tiles[0], tiles[2]), (tiles[1], tiles[2]) if transpose_b else (tiles[2], tiles[1]),
            (tiles[0], tiles[1]))
    return tuple(tuple(reversed(range(word_digits(shape, op, BITS[t], d))))
                 for op, t, d in zip((Operand.A, Operand.B, Operand.C), kind, dims, strict=True))


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_GPU, reason=WHY)
@pytest.mark.parametrize("transpose_b", [False, True])
@pytest.mark.parametrize("kind", KINDS, ids="-".join)
def test_mma_gpu_equals_numpy(kind: tuple[str, str, str], transpose_b: bool) -> None:
    from regcopy_backend.runtime.runner import run_kernel
    from regcopy_tools.regcopy_run import prepare

    tiles = (2, 2, 2)
    text = mma_kernel(kind, MMA_KINDS[kind], tiles, transpose_b, _orders(kind, tiles,
                                                                           transpose_b))
    prepared = prepare(text, "mma.mlir")
    args, want = case_data(kind, MMA_KINDS[kind], tiles, transpose_b, seed=3)
    out = run_kernel(prepared.source, prepared.kernels[0], args).arrays[2]
    assert np.array_equal(decoded(out, kind[2]), want)


@pytest.mark.parametrize(("kind", "sass"), [
    (("f8E4M3FN", "f8E5M2", "f32"), ("F2FP.F16.E4M3.UNPACK_B", "F2FP.F16.E5M2.UNPACK_B",
                                     "HMMA.16816.F32")),
    (("i8", "ui8", "i32"), ("IMMA.16832.S8.U8",)),
])
def test_mma_sass(kind: tuple[str, str, str], sass: tuple[str, ...]) -> None:
    """sm_90 has no fp8 mma.sync unit: ptxas unpacks fp8 to f16 pairs and issues HMMA.16816
    (two per m16n8k32); i8 runs on IMMA."""
    from regcopy_backend.cuda.printer import print_cuda
    from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
    from regcopy_tools.regcopy_run import parse_and_lower

    tiles = (1, 2, 1)
    module = parse_and_lower(mma_kernel(kind, MMA_KINDS[kind], tiles), "mma.mlir")
    listing = disassemble(compile_cuda(print_cuda(module)).cubin)
    for name in sass:
        assert name in listing, name
    assert "LDL" not in listing and "STL" not in listing
