"""The single-direction kernels of ``bench/bench_shared.py`` are honest and lean, in SASS (no
GPU needed): for the 2-way conflicted layouts (32-bit k=8, 16-bit k=16), hand-written and
lowered, plain and rotated, with either consumer:

* every 128-bit access of the copies is in the main loop (no load hoisted, no store dropped:
  a whole number of copies per loop trip), nothing goes to local memory;
* the plain lowering's loop is as lean as the hand-written one (instructions per 128-bit
  access; ptxas may unroll them differently);
* the rotated loop stays under the issue budget of a conflict-free 128-bit access (4
  wavefronts = 16 warp instructions on an SM's 4 schedulers), and with the ``fadd`` consumer
  (the default, on the FMA pipe) its ``LOP3`` stay within the integer pipe's budget (8 warp
  instructions a 128-bit access: 16 lanes a scheduler), so the shared pipe, not instruction
  issue, bounds it. With the ``xor`` consumer the blends and the consumer's XORs share that
  pipe: the loop is integer-bound, and the benchmark says so.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_shared.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_shared", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_shared", module)
    spec.loader.exec_module(module)
    return module


bench = _bench()
TWO_WAY = [s for s in bench.SHAPES if s.name in ("32-bit k=8", "16-bit k=16")]
ISSUE_BUDGET = 16
INTEGER_BUDGET = 8


def _loop(summary: dict[str, Any]) -> tuple[int, int, int, int]:
    return summary["loop"]


@pytest.mark.parametrize("consumer", ["fadd", "xor"])
@pytest.mark.parametrize("kind", ["load only", "store only"])
@pytest.mark.parametrize("shape", TWO_WAY, ids=lambda s: s.name)
def test_single_direction_kernels_are_honest(shape: Any, kind: str, consumer: str) -> None:
    access = "LDS" if kind == "load only" else "STS"
    hand = bench.sass_summary(bench.hand_source(shape, kind, consumer))
    plain = bench.sass_summary(bench.lowered_source(shape, kind, "off", consumer=consumer))
    rotated = bench.sass_summary(bench.lowered_source(shape, kind, "auto", consumer=consumer))
    per_trip = bench.copies(shape, kind) * shape.rounds
    for summary in (hand, plain, rotated):
        assert summary["LDL"] == summary["STL"] == 0
        assert set(summary["widths"]) == {f"{access}.128"}
        n, accesses, _, _ = _loop(summary)
        assert n > 0 and accesses > 0 and accesses % per_trip == 0
    (n_hand, a_hand, _, _), (n_plain, a_plain, _, _) = _loop(hand), _loop(plain)
    assert n_plain / a_plain <= n_hand / a_hand + 0.5
    n, accesses, lop3, _ = _loop(rotated)
    assert n / accesses < ISSUE_BUDGET
    if consumer == "fadd":
        assert lop3 / accesses < INTEGER_BUDGET


def test_no_benchmark_kernel_touches_local_memory() -> None:
    """Every timed kernel (all layouts, loops and variants, default consumer) keeps its
    registers in registers: no ``LDL``/``STL`` in its SASS (a spill would make the table
    measure local memory)."""
    spilled = []
    for v in bench.variants():
        summary = bench.sass_summary(v.source)
        if summary["LDL"] + summary["STL"]:
            spilled.append((v.shape.name, v.kind, v.label))
    assert not spilled
