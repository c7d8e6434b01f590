"""Register ↔ register conversions (``regcopy.copy`` between two ``local`` tiles).

* random layout pairs (warp and CTA scope, f32 and f16, replicated destinations): the
  reference semantics and the lowering of every kind (``conversion=auto|shuffle|shared``) put
  every element in every thread and register slot the destination layout gives, checked
  register by register in the CPU interpreter;
* the GEMM epilogue's case, the m16n8 accumulator to rows of 128-bit chunks (f32 and bf16):
  shuffles at the ideal count, and the round trip;
* the SASS of each kind: renaming has no instruction beyond the loads and stores, shuffles have
  exactly the plan's SHFL and no shared memory, the round trip its barrier; none uses local
  memory;
* on the GPU (marked ``gpu``): the benchmark's kernels, output equal to input.
"""

from __future__ import annotations

import random
import re
from functools import cache
from math import prod
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from sass_batch import batched_sass
from regcopy_backend.cuda.printer import print_cuda
from regcopy_backend.interpreter.driver import gpu_state, launch, make_interpreter
from regcopy_backend.runtime.cpu_run import run_on_cpu, to_buffer
from regcopy_backend.runtime.runner import gpu_available
from regcopy_bench.bench_convert import CASES, Case, kernel_text, lower, sass_counts
from regcopy_passes import LowerRegCopyPass
from regcopy_passes.convert.plan import Kind, classify
from xdsl.dialects import memref
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from regcopy_dialect import parse_layout, regcopy_context
from regcopy_dialect.layout import THREAD_AXES, replica_shifts, slice_region
from regcopy_dialect.regcopy import buffer_layout

ACC_F32 = Case("acc f32", 16, 8, "f32", "(2,8,4,2):(2,4@laneid,1@laneid,1)",
               "(16,2,4):(2@laneid,1@laneid,1)")
ACC_BF16 = Case("acc bf16", 16, 16, "bf16", "(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)",
                "(16,2,8):(2@laneid,1@laneid,1)")


def _module(text: str) -> ModuleOp:
    return Parser(regcopy_context(), text, "convert.mlir").parse_module()


def _lowered(text: str, conversion: str) -> ModuleOp:
    module = _module(text)
    LowerRegCopyPass(conversion=conversion, strict=True).apply(regcopy_context(), module)
    module.verify()
    return module


def _case_kernel(rows: int, cols: int, dtype: str, a: str, b: str, scope: str,
                 block: int) -> str:
    """``in -> A``, ``A -> B`` (the conversion), nothing else: B's registers are inspected."""
    tile = f"{rows}x{cols}x{dtype}"
    ta = f"memref<{tile}, #regcopy.layout<{a}>, #regcopy.mem<local>>"
    tb = f"memref<{tile}, #regcopy.layout<{b}>, #regcopy.mem<local>>"
    g = f"memref<{tile}, #regcopy.mem<global>>"
    return (f"func.func @k(%in: {g}) attributes {{regcopy.launch = #regcopy.launch<block = "
            f"{block}, grid = [1]>}} {{\n  %a = memref.alloca() : {ta}\n"
            f"  %b = memref.alloca() : {tb}\n  regcopy.copy {scope} %in -> %a : {g} -> {ta}\n"
            f"  regcopy.copy {scope} %a -> %b : {ta} -> {tb}\n  func.return\n}}\n")


def _check_registers(module: ModuleOp, values: np.ndarray, scope_threads: int,
                     block: int) -> None:
    """Every place of every element of B (every replica) holds the element's value."""
    interp = make_interpreter(module)
    fn = next(op for op in module.walk() if getattr(op, "sym_name", None) is not None)
    arg_t = fn.body.blocks[0].args[0].type  # type: ignore[attr-defined]
    launch(interp, "k", [to_buffer(arg_t, values)])
    allocas = [op for op in module.walk() if isinstance(op, memref.AllocaOp)]
    b_op = next(op for op in allocas if op.memref.name_hint == "b")
    lay = buffer_layout(b_op.memref.type)  # type: ignore[arg-type]
    state = gpu_state(interp)
    flat = values.reshape(-1)
    for group in range(block // scope_threads):
        for index in range(lay.size):
            axes, slot = lay.apply(index)
            for shift in replica_shifts(lay):
                names = set(axes) | set(shift)
                t = sum((axes.get(a, 0) + shift.get(a, 0)) * THREAD_AXES[a].unit
                        for a in names)
                tid = group * scope_threads + t
                got = state.buffer_for(b_op, (0, 0, 0), tid).storage[slot]
                assert got == flat[index], (index, tid, slot, got, flat[index])


def _random_layout(rng: random.Random, rows: int, cols: int, thread_bits: int,
                   axis: str, replicas: int = 0) -> str:
    """A bit-permutation layout of a ``rows x cols`` tile: ``thread_bits`` of its index bits
    (minus ``replicas``) on ``axis``, the rest register slots, strides shuffled; with
    ``replicas``, that many thread bits replicate instead."""
    bits = [(d, k) for d, n in ((0, rows), (1, cols)) for k in reversed(range(n.bit_length() - 1))]
    owned = thread_bits - replicas
    chosen = set(rng.sample(range(len(bits)), owned))
    thread_strides = [1 << k for k in range(thread_bits)]
    rng.shuffle(thread_strides)
    slot_count = len(bits) - owned
    slot_strides = [1 << k for k in range(slot_count)]
    rng.shuffle(slot_strides)
    ext, strides = [], []
    for i in range(len(bits)):
        ext.append("2")
        strides.append(f"{thread_strides.pop()}@{axis}" if i in chosen else
                       str(slot_strides.pop()))
    text = f"({','.join(ext)}):({','.join(strides)})"
    if replicas:
        reps = ",".join(f"{s}@{axis}" for s in thread_strides)
        text += f", replicate<({','.join('2' for _ in thread_strides)}):({reps})>"
    return text


@settings(max_examples=examples(5, 150))
@given(st.integers(0, 2**32 - 1), st.sampled_from(["f32", "f16"]),
       st.sampled_from(["auto", "shuffle", "shared"]), st.sampled_from(["warp", "cta"]),
       st.booleans())
def test_random_layout_pairs_land_where_the_destination_says(
        seed: int, dtype: str, conversion: str, scope: str, replicated: bool) -> None:
    rng = random.Random(seed)
    rows, cols = rng.choice([(8, 8), (16, 8), (8, 16)])
    block = 64 if scope == "cta" else rng.choice([32, 64])
    tbits = 6 if scope == "cta" else 5
    axis = "tx" if scope == "cta" else "laneid"
    a = _random_layout(rng, rows, cols, tbits, axis)
    b = _random_layout(rng, rows, cols, tbits, axis, replicas=1 if replicated else 0)
    text = _case_kernel(rows, cols, dtype, a, b, scope, block)
    values = np.arange(rows * cols).astype(
        np.float32 if dtype == "f32" else np.float16).reshape(rows, cols)
    threads = 64 if scope == "cta" else 32
    _check_registers(_module(text), values, threads, block)  # the reference semantics
    _check_registers(_lowered(text, conversion), values, threads, block)


def _plan(c: Case) -> Any:
    def sliced(lay: str) -> Any:
        return slice_region(parse_layout(lay), (c.rows, c.cols), (0, 0), (c.rows, c.cols))
    bits = 32 if c.dtype == "f32" else 16
    per = c.rows * c.cols // 32
    return classify(sliced(c.a), sliced(c.b), 32, bits, "shuffle", (per, per))


@pytest.mark.parametrize("case, shuffles", [(ACC_F32, 4), (ACC_BF16, 4)])
def test_accumulator_to_rows_shuffles_at_the_ideal(case: Case, shuffles: int) -> None:
    plan = _plan(case)
    assert plan.kind is Kind.SHUFFLE
    assert plan.shuffle.shuffles == plan.ideal_shuffles == shuffles
    values = np.arange(case.rows * case.cols).astype(
        np.float32 if case.dtype == "f32" else np.float16).reshape(case.rows, case.cols)
    text = _case_kernel(case.rows, case.cols, "f32" if case.dtype == "f32" else "f16",
                        case.a, case.b, "warp", 32)
    _check_registers(_lowered(text, "shuffle"), values, 32, 32)


CTA_SMALL = Case("cta rows->columns 16x16", 16, 16, "f32", "(16,4,4):(4@tx,1@tx,1)",
                 "(4,4,16):(1,16@tx,1@tx)", "cta", 64)


@pytest.mark.parametrize("case", [ACC_F32, ACC_BF16, CTA_SMALL])
@pytest.mark.parametrize("form", ["shuffle", "shared", "hand"])
def test_bench_kernels_round_trip_on_the_cpu(case: Case, form: str) -> None:
    """``A -> B -> A`` once: the output is the input (bf16 as raw 16-bit patterns)."""
    if form == "shuffle" and case.scope == "cta":
        pytest.skip("elements move between warps: no shuffle form")
    module = lower(case, form)
    dtype = np.float32 if case.dtype == "f32" else np.uint16
    a = np.arange(case.rows * case.cols).astype(dtype).reshape(case.rows, case.cols)
    out = run_on_cpu(module, "k", [a, np.zeros_like(a), 1])[1]
    assert np.array_equal(out, a)


RENAME = Case("rename", 32, 8, "f32", "(32,2,4):(1@laneid,4,1)", "(32,2,4):(1@laneid,1,2)")


SASS_KINDS = [(RENAME, "auto", 0, 0, 0), (ACC_F32, "shuffle", 8, 0, 0),
              (ACC_F32, "shared", 0, None, None)]


@cache
def _kind_listings() -> dict[tuple[str, str], str]:
    """The SASS of each kind's kernel, ``{(case, form): listing}``, from one compile and one
    disassembly of the three (``sass_batch``)."""
    sources = {(case.name, form): print_cuda(lower(case, form))
               for case, form, *_ in SASS_KINDS}
    listings = batched_sass(list(sources.values()))
    return {key: "".join(parts.values()) for key, parts in zip(sources, listings, strict=True)}


@pytest.mark.parametrize("case, form, shfl, shared, bars", SASS_KINDS)
def test_sass_of_each_kind(case: Case, form: str, shfl: int, shared: int | None,
                           bars: int | None) -> None:
    """SHFL as planned (two conversions a loop iteration, the loop kept rolled by the
    dynamic trip count, or unrolled: a multiple), shared memory and barriers only for the
    round trip, never local memory."""
    sass = _kind_listings()[case.name, form]
    n = sass_counts(sass)
    assert n["LDL"] + n["STL"] == 0
    moved = n["LDS"] + n["STS"] + n["LDSM"] + n["STSM"]
    if shared is None:
        assert moved > 0 and n["BAR"] > 0 and n["SHFL"] == 0
    else:
        assert moved == shared and n["BAR"] == bars
        assert n["SHFL"] % shfl == 0 if shfl else n["SHFL"] == 0
        assert n["SHFL"] >= shfl
    if case is RENAME:  # register moves only: the loop body holds no instruction that moves data
        assert not re.search(r"\b(SHFL|LDS|STS|BAR)\b", sass)


def test_remark_states_kind_counts_and_scratch(capsys: pytest.CaptureFixture[str]) -> None:
    text = kernel_text(CASES[3], "auto")
    module = _module(text)
    LowerRegCopyPass(remarks=True).apply(regcopy_context(), module)
    err = capsys.readouterr().err
    assert "conversion by shared round trip through a 16384-byte shared.dyn scratch tile, " \
        "2 barriers (CTA, CTA)" in err
    assert "not shuffled: elements move between warps" in err
    module = _lowered(_case_kernel(16, 8, "f32", ACC_F32.a, ACC_F32.b, "warp", 32), "auto")
    assert sum(op.name == "gpu.shuffle" for op in module.walk()) == 4


HAS_GPU, WHY = gpu_available()


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_GPU, reason=WHY)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
@pytest.mark.parametrize("form", ["auto", "shuffle", "shared"])
def test_gpu_conversions_are_bit_exact(case: Case, form: str) -> None:
    from regcopy_backend.cuda.kernel_info import kernel_info, kernels
    from regcopy_backend.runtime.runner import run_kernel

    if form == "shuffle" and case.scope == "cta":
        pytest.skip("elements move between warps: no shuffle form")
    grid = 8
    module = lower(case, form, grid)
    dtype = np.float32 if case.dtype == "f32" else np.uint16
    rng = np.random.default_rng(1)
    a = rng.integers(0, 1 << 15, size=(grid * case.rows, case.cols)).astype(dtype)
    result = run_kernel(print_cuda(module), kernel_info(kernels(module)[0]),
                        [a, np.zeros_like(a), 3])
    assert np.array_equal(result.arrays[1], a)
    assert prod(a.shape) > 0


def test_round_trips_share_one_scratch_offset() -> None:
    """Two conversions (A -> B, B -> A) each get a scratch tile; the kernel's dynamic shared
    memory is one tile's bytes (they sit at one offset), not two."""
    from regcopy_backend.cuda.kernel_info import kernel_info, kernels

    module = lower(CTA_SMALL, "shared")
    scratch = [op for op in module.walk()
               if isinstance(op, memref.AllocaOp) and "regcopy.scratch" in op.attributes]
    assert len(scratch) == 2
    assert kernel_info(kernels(module)[0]).dynamic_shared_bytes == 16 * 16 * 4
    source = print_cuda(module)
    assert source.count("(rc_smem + 0)") == 2


@pytest.mark.parametrize("name", ["mmav2_dot_reg", "blocked_blocked_shuffle_swap",
                                  "mmav3_mmav3", "blocked_blocked"])
def test_triton_cases_no_worse_than_triton(name: str) -> None:
    """Ported Triton convert_layout cases: renaming costs nothing; forced to shuffles, the
    swap takes no more shuffles and selects than Triton's CHECK lines; the 4-warp blocked
    re-deal needs no more shared transfers and barriers than Triton's."""
    from regcopy_bench.triton_convert_cases import CASES as TRITON
    from regcopy_bench.triton_convert_cases import measure

    case = next(c for c in TRITON if c.name == name)
    kind, ours = measure(case, "shuffle" if "shuffle" in name else "auto")
    t = case.triton
    for mine, theirs in ((ours.shuffles, t.shuffles), (ours.selects, t.selects),
                         (ours.shared, t.shared), (ours.barriers, t.barriers)):
        if theirs is not None:
            assert mine is not None and mine <= theirs, (kind, ours, t)


@settings(max_examples=examples(25, 500))
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 2, 4, 8]))
def test_schedule_delivers_every_word(seed: int, n: int) -> None:
    """Any permutation of a warp's words: the schedule's moves and rounds (a lane pulls one
    word a round from the lane it names, which offers one word a round) deliver exactly the
    asked source word to every destination word, in no more rounds than words a lane."""
    from regcopy_passes.convert.plan import Delivery, schedule

    rng = random.Random(seed)
    dst = [(lane, u) for lane in range(32) for u in range(n)]
    src = dst[:]
    rng.shuffle(src)
    want = {d: s for d, s in zip(dst, src)}
    plan = schedule([Delivery(t, u, p, s) for (t, u), (p, s) in want.items()], 1, 32)
    got: dict[tuple[int, int], tuple[int, int]] = {}
    for unit, src_unit in plan.moves:
        for lane in range(32):
            got[(lane, unit)] = (lane, src_unit)
    for r in plan.rounds:
        for t, unit in enumerate(r.recv):
            if unit is not None:
                assert (t, unit) not in got
                got[(t, unit)] = (r.source[t], r.send[r.source[t]])
    assert got == want
    assert plan.shuffles <= len(plan.rounds) <= 32 * n


def test_four_accumulators_shuffle_through_butterflies() -> None:
    """Four m16n8 f32 accumulators to rows, forced to shuffles: 16 shuffles (the ideal) and
    one butterfly of 2 stages x 16 words on each side (64 selects, where chains need 96); the
    round trip A -> B -> A gives the input back on the CPU."""
    case = CASES[0]
    plan = _plan(case)
    assert plan.shuffle.shuffles == plan.ideal_shuffles == 16
    assert plan.shuffle.send_butterfly is not None and plan.shuffle.recv_butterfly is not None
    assert plan.shuffle.selects == 64
    module = lower(case, "shuffle")
    assert sum(op.name == "gpu.shuffle" for op in module.walk()) == 32  # A -> B and B -> A
    a = np.arange(case.rows * case.cols, dtype=np.float32).reshape(case.rows, case.cols)
    out = run_on_cpu(module, "k", [a, np.zeros_like(a), 1])[1]
    assert np.array_equal(out, a)
