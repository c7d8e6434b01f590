"""examples/vector_arith.mlir end to end without a GPU: lane-wise vector arithmetic and
``vector.bitcast`` run on the CPU interpreter (the lowered kernel and its un-lowered
reference) exactly as numpy computes them, ``regcopy-run --check`` passes, and the kernel
compiles to 128-bit accesses without local memory. test_gpu.py compares the GPU with the CPU
on the same kernel."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_tools.regcopy_run import parse_module, prepare, random_inputs

REPO = Path(__file__).resolve().parents[2]
from cases import VECTOR_ARITH, _bits, vector_arith_expected  # noqa: E402
from tool_runner import run_tool  # noqa: E402

BIN = Path(sys.executable).parent


def test_cpu_runs_match_numpy_bit_for_bit() -> None:
    text = VECTOR_ARITH.read_text()
    prepared = prepare(text, str(VECTOR_ARITH))
    (info,) = prepared.kernels
    before = random_inputs(info, np.random.default_rng(3))
    want = vector_arith_expected(before)
    lowered = run_on_cpu(prepared.module, info.name, before)
    reference = run_on_cpu(parse_module(text, str(VECTOR_ARITH))[1], info.name, before)
    for k, expected in want.items():
        assert (_bits(lowered[k]) == _bits(expected)).all(), info.buffers[k].name
        assert (_bits(reference[k]) == _bits(expected)).all(), info.buffers[k].name
    # the inputs exercise what they should: wrapping i32 products, rounded f32 products
    n, a, b = before[2].astype(np.int64), before[0].astype(np.float64), before[1]
    assert (np.abs(n * n) > 2**31).any()
    assert (a * b != (before[0] * b).astype(np.float64)).any()


def test_regcopy_run_check_passes() -> None:
    proc = run_tool(["regcopy-run", str(VECTOR_ARITH), "--check", "--seed",
                           "4"], Path.cwd(), timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 7 and all(" equal (" in ln for ln in lines), proc.stdout


def test_compile_only_uses_vector_accesses_and_no_local_memory() -> None:
    proc = run_tool(["regcopy-run", str(VECTOR_ARITH), "--compile-only"], Path.cwd(), timeout=300)
    assert proc.returncode == 0, proc.stderr
    (line,) = proc.stdout.splitlines()
    assert "spills 0/0 bytes" in line and "(0 LDL/STL)" in line
    assert "STG.E.128*8" in line and "STG.E.64*4" in line
