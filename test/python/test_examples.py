"""The GEMM-shaped example (examples/gemm_tiles.mlir) and the 192 KiB shared.dyn kernel:
they lower, and they run exactly on the CPU interpreter (barrier phases: the warps read what
other threads wrote to shared memory) against numpy expectations computed independently
(the PTX ISA's mma.m16n8k16 fragment tables). The GPU runs them in test_gpu.py/run_all.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import vector
from xdsl.dialects.builtin import f16

from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_backend.cuda.printer import print_cuda
from regcopy_backend.host_data import random_values
from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
from regcopy_dialect.matrix_ops import LdMatrixOp
from regcopy_dialect.regcopy import CopyOp
from regcopy_tools.regcopy_run import parse_and_lower

REPO = Path(__file__).resolve().parents[2]
from cases import DYNAMIC_SHARED_CASES, _reversed_blocks, mma_fragments  # noqa: E402

GEMM = REPO / "examples" / "gemm_tiles.mlir"
"""The example, on runtime M, N, K (the GPU harness runs a static copy of it)."""

F16 = np.float16


def vector_widths(module: object) -> list[int]:
    return [op.result.type.get_shape()[0] for op in module.walk()  # type: ignore[attr-defined]
            if isinstance(op, vector.LoadOp)]


def test_gemm_example_lowers_every_copy() -> None:
    module = parse_and_lower(GEMM.read_text(), str(GEMM))
    assert not any(isinstance(op, CopyOp) for op in module.walk())
    widths = vector_widths(module)
    # registers -> shared: 128-bit; shared -> mma fragments: ldmatrix.x4 (16 a warp for A,
    # 8 for B; per-thread they would be 32-bit loads: a fragment's register pairs are 8
    # halves apart in K); the fragment write-out: 128-bit
    assert widths[2:] == [8, 8, 8, 8]
    matrix = [(op.count, op.transposed) for op in module.walk() if isinstance(op, LdMatrixOp)]
    assert matrix == [(4, False)] * 24


def test_gemm_example_runs_exactly_on_the_cpu() -> None:
    """One CTA (grid 1 x 1) on ragged M, N, K (100, 120, 200: 4 K tiles, so the 3-stage ring
    wraps around): the fragments of the zero-padded operands, zeros past every edge."""
    module = parse_and_lower(GEMM.read_text(), str(GEMM))
    rng = np.random.default_rng(7)
    m, n, k = 100, 120, 200
    a = random_values(f16, m * k, rng).reshape(m, k)
    b = random_values(f16, n * k, rng).reshape(n, k)
    frag_a = np.zeros((1, 1, 4, 256, 128), F16)
    frag_b = np.zeros((1, 1, 4, 256, 64), F16)
    _, _, got_a, got_b = run_on_cpu(module, "gemm_tiles", [a, b, frag_a, frag_b], grid=[1, 1])
    padded_a, padded_b = np.zeros((128, 256), F16), np.zeros((128, 256), F16)
    padded_a[:m, :k], padded_b[:n, :k] = a, b
    want_a, want_b = mma_fragments(padded_a, padded_b, 1, 1, 4)
    assert np.array_equal(got_a.view(np.uint16), want_a.view(np.uint16))
    assert np.array_equal(got_b.view(np.uint16), want_b.view(np.uint16))


def test_shared_dyn_192k_runs_exactly_on_the_cpu() -> None:
    case = DYNAMIC_SHARED_CASES[0]
    module = parse_and_lower(case.path.read_text(), str(case.path))
    a = np.arange(384 * 128, dtype=np.float32).reshape(384, 128)
    _, out = run_on_cpu(module, "shared_dyn_192k", [a, np.zeros_like(a)])
    assert np.array_equal(out, _reversed_blocks([a, out])[1])


@pytest.mark.parametrize("case", DYNAMIC_SHARED_CASES, ids=lambda c: c.name)
def test_dynamic_shared_kernels_compile_without_local_memory(case: object) -> None:
    path = case.path  # type: ignore[attr-defined]
    compiled = compile_cuda(print_cuda(parse_and_lower(path.read_text(), str(path))))
    assert compiled.log == "", compiled.log
    sass = disassemble(compiled.cubin)
    assert "LDL" not in sass and "STL" not in sass
    assert "STS.128" in sass
