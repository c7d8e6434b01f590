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

nvdisasm takes a quarter of a CPU-second a call, more than NVRTC spends on one of these
kernels, so the kernels whose SASS the module reads are compiled and disassembled together,
once per session (``sass_batch``; ``summary``, keyed by its CUDA source), and the local-memory
compiles run in parallel (one worker a core). The default (CI) run checks the ``fadd`` consumer in the
honest-loop test and, for local memory, the lowered ``auto`` kernels of every layout: ptxas's
warning of a stack frame (``--warn-on-local-memory-usage``, the only source of ``LDL``/``STL``)
for each, and the SASS of those the honest-loop test disassembles; ``REGCOPY_HYPOTHESIS=thorough``
(or ``big``) checks both consumers and every benchmark kernel, in its SASS too.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import Any

import pytest
from hypothesis_profiles import PROFILE
from regcopy_backend.cuda.nvrtc import WARN_LOCAL_MEMORY, compile_cuda
from sass_batch import batched_sass

from regcopy_bench import bench_shared as bench
from regcopy_bench.sass_loops import SUMMARY_OPTIONS, listing_summary

THOROUGH = PROFILE != "ci"
TWO_WAY = [s for s in bench.SHAPES if s.name in ("32-bit k=8", "16-bit k=16")]
CONSUMERS = ["fadd", "xor"] if THOROUGH else ["fadd"]
ISSUE_BUDGET = 16
INTEGER_BUDGET = 8
LOCAL_MEMORY = ("--diag-suppress=550,549", WARN_LOCAL_MEMORY)
"""The benchmark's NVRTC options, and ptxas warning of each kernel that uses local memory."""


_SUMMARIES: dict[str, dict[str, Any]] = {}


def summarize(sources: list[str]) -> None:
    """``bench.sass_summary`` of each of ``sources`` not summarized yet, from one compile and
    one disassembly of them all (``sass_batch``)."""
    todo = [src for src in dict.fromkeys(sources) if src not in _SUMMARIES]
    if todo:
        listings = batched_sass(todo, options=SUMMARY_OPTIONS)
        _SUMMARIES.update({src: listing_summary("".join(parts.values()))
                           for src, parts in zip(todo, listings, strict=True)})


def summary(source: str) -> dict[str, Any]:
    """``bench.sass_summary`` of ``source``, compiled once per session."""
    summarize([source])
    return _SUMMARIES[source]


@cache
def local_memory_warnings(source: str) -> tuple[str, ...]:
    """ptxas's warnings that a kernel of ``source`` uses local memory (NVRTC alone)."""
    return tuple(compile_cuda(source, options=LOCAL_MEMORY).local_memory)


@cache
def _honest_sources(shape: Any, kind: str, consumer: str) -> tuple[str, str, str]:
    return (bench.hand_source(shape, kind, consumer),
            bench.lowered_source(shape, kind, "off", consumer=consumer),
            bench.lowered_source(shape, kind, "auto", consumer=consumer))


@cache
def _checked_kernels() -> tuple[tuple[str, str, str, str], ...]:
    """``(layout, loop, variant, CUDA source)`` of every benchmark kernel (thorough), else of
    the lowered ``auto`` kernels of every layout and loop (bank rotation and transfer ``auto``:
    what regcopy emits by default)."""
    if THOROUGH:
        return tuple((v.shape.name, v.kind, v.label, v.source) for v in bench.variants())
    return tuple((s.name, kind, "regcopy auto", bench.lowered_source(s, kind, "auto"))
                 for s in bench.SHAPES for kind in bench.KINDS)


@pytest.fixture(scope="module", autouse=True)
def _compile_in_parallel() -> Iterator[None]:
    """Compile this module's kernels up front: those whose SASS it reads as one module, the
    local-memory compiles one worker a core."""
    checked = [source for *_, source in _checked_kernels()]
    summarize([*_honest(), *(checked if THOROUGH else [])])
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        list(pool.map(local_memory_warnings, dict.fromkeys(checked)))
    yield


def _honest() -> list[str]:
    """The sources of the honest-loop test's kernels."""
    return [source for shape in TWO_WAY for kind in ("load only", "store only")
            for consumer in CONSUMERS for source in _honest_sources(shape, kind, consumer)]


def _loop(summary: dict[str, Any]) -> tuple[int, int, int, int]:
    return summary["loop"]


@pytest.mark.parametrize("consumer", CONSUMERS)
@pytest.mark.parametrize("kind", ["load only", "store only"])
@pytest.mark.parametrize("shape", TWO_WAY, ids=lambda s: s.name)
def test_single_direction_kernels_are_honest(shape: Any, kind: str, consumer: str) -> None:
    access = "LDS" if kind == "load only" else "STS"
    hand, plain, rotated = map(summary, _honest_sources(shape, kind, consumer))
    per_trip = bench.copies(shape, kind) * shape.rounds
    for sass in (hand, plain, rotated):
        assert sass["LDL"] == sass["STL"] == 0
        assert set(sass["widths"]) == {f"{access}.128"}
        n, accesses, _, _ = _loop(sass)
        assert n > 0 and accesses > 0 and accesses % per_trip == 0
    (n_hand, a_hand, _, _), (n_plain, a_plain, _, _) = _loop(hand), _loop(plain)
    assert n_plain / a_plain <= n_hand / a_hand + 0.5
    n, accesses, lop3, _ = _loop(rotated)
    assert n / accesses < ISSUE_BUDGET
    if consumer == "fadd":
        assert lop3 / accesses < INTEGER_BUDGET


def test_no_benchmark_kernel_touches_local_memory() -> None:
    """Every timed kernel (all layouts, loops and variants, default consumer; in CI the
    lowered ``auto`` ones) keeps its registers in registers (a spill would make the table
    measure local memory): ptxas warns of no local memory, and there is no ``LDL``/``STL``
    in its SASS (in CI: of the kernels that the honest-loop test disassembles)."""
    kernels = _checked_kernels()
    assert {layout for layout, *_ in kernels} == {s.name for s in bench.SHAPES}
    warned = [(layout, loop, variant) for layout, loop, variant, source in kernels
              if local_memory_warnings(source)]
    assert not warned
    disassembled = set(_honest())
    in_sass = [k for k in kernels if THOROUGH or k[3] in disassembled]
    assert in_sass
    spilled = [(layout, loop, variant) for layout, loop, variant, source in in_sass
               if summary(source)["LDL"] + summary(source)["STL"]]
    assert not spilled


@pytest.mark.parametrize("name, pairs", [("32-bit k=8", 2), ("32-bit k=16", 1),
                                         ("32-bit k=32 (8-way)", 1)])
def test_round_trip_moves_about_32_kib_a_barrier(name: str, pairs: int) -> None:
    """The round trip makes as many pairs of copies (S -> R, R -> S) a barrier as four tiles
    fit 32 KiB (8 KiB tiles: two; 16 KiB: one), each pair reading one tile and writing
    another, and the hand-written kernel does the same."""
    s = next(s for s in bench.SHAPES if s.name == name)
    ir = bench.kernel_ir(s, "round trip")
    assert ir.count("regcopy.copy") == 2 * pairs
    assert ir.count('"gpu.barrier"') == 1
    assert bench.transfers(s, "round trip") == 2 * pairs
    assert bench.slots(s, "round trip") == 2 * pairs
    reads = {f"%row{2 * u}" for u in range(pairs)}
    writes = {f"%row{2 * u + 1}" for u in range(pairs)}
    copies = [line for line in ir.splitlines() if "regcopy.copy" in line]
    assert {c.split("%S[")[1].split(",")[0] for c in copies if "-> %R" in c} == reads
    assert {c.split("%S[")[1].split(",")[0] for c in copies if "%R ->" in c} == writes
    hand = bench.hand_source(s, "round trip")
    assert hand is not None and f"u < {pairs}" in hand and hand.count("__syncthreads") == 1
