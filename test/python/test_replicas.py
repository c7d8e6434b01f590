"""Replicated register layouts (``replicate<...>``): the layout algebra, acceptance, and the
copies on the CPU interpreter, before and after ``lower-reg-copy``.

A load into a replicated tile must fill every replica; a store out of it must write each
element once, from replica 0. The expected placement is computed here from the layout's
main iters (``Layout.apply``) and the replica iters enumerated by hand, not from the pass.
The Triton cases are the ones replicas exist for: mma.m16n8k16 dot operands with
``warpsPerCTA = [2, 2]`` (A is shared by the two warps along N, B by the two along M) and a
blocked layout whose CTA tile is taller than the tensor (warps 2, 3 repeat warps 0, 1)."""

from __future__ import annotations

from functools import cache
from itertools import product
from typing import Any

import numpy as np
import pytest
from bank_cases import planned
from copy_harness import CopyCase, Side, find_alloca, lower, memref_type, parse
from regcopy_backend.interpreter.driver import (
    Buffer,
    gpu_state,
    launch,
    make_interpreter,
    threads_of,
)
from regcopy_passes.core.banks import bank_report
from regcopy_passes.core.dispatch import Rejected, accept
from regcopy_passes.reg_copy.matrix_plan import MatrixTransfer, plan_matrix
from xdsl.dialects.builtin import ModuleOp

from regcopy_dialect.builders import local_buffer_type, parse_layout
from regcopy_dialect.layout import THREAD_AXES, Layout, Scope, ownership, replica_shifts
from regcopy_dialect.regcopy import CopyOp
from regcopy_dialect.viz import layout_text

MMA_A = "(2,2,8,2,4,2):(2@warpid,2,4@laneid,4,1@laneid,1), replicate<2:1@warpid>"
"""A of mma.m16n8k16 (f16), M = 32 over wm = 0, 1 (warp = 2 wm + wn), K = 16: lane 4g + q
holds rows g, g + 8 and columns 2q, 2q + 1, 2q + 8, 2q + 9; warps wn = 0, 1 hold copies."""
MMA_B = "(2,4,2,2,8):(2,1@laneid,1,1@warpid,4@laneid), replicate<2:2@warpid>"
"""B of mma.m16n8k16 (f16), K = 16, N = 16 over 2 warps (wn): lane 4g + q holds column g,
rows 2q, 2q + 1, 2q + 8, 2q + 9; warps wm = 0, 1 (warpid stride 2) hold copies."""
BLOCKED = "(2,8,4,4):(1@warpid,4@laneid,1@laneid,1), replicate<2:2@warpid>"
"""Triton ``#blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1]}>``
over a 16x16 tensor: the CTA tile has 32 rows, so warps 2, 3 repeat warps 0, 1."""

CASES = {
    "lanes": CopyCase(Side((16, 8), "local", "(16,8):(1@laneid,1), replicate<2:16@laneid>"),
                      Side((16, 8), "global")),
    "warpgroup": CopyCase(Side((16, 8), "local",
                               "(16,8):(1@laneid,1), replicate<(2,4):(16@laneid,1@wid_in_wg)>"),
                          Side((16, 8), "global"), scope="warpgroup", block=128),
    "mma_a": CopyCase(Side((32, 16), "local", MMA_A), Side((32, 16), "global"), "f16",
                      scope="cta", block=128),
    "mma_b": CopyCase(Side((16, 16), "local", MMA_B), Side((16, 16), "global"), "f16",
                      scope="cta", block=128),
    "blocked": CopyCase(Side((16, 16), "local", BLOCKED), Side((16, 16), "global"),
                        scope="cta", block=128),
}


@cache
def _owners(name: str) -> list[tuple[tuple[int, ...], int]]:
    """Per logical element of ``CASES[name]`` (row-major = its S address): its owner threads
    (replica 0 first) and its register slot."""
    case = CASES[name]
    lay = parse_layout(case.r.layout or "")
    reps = lay.replicas
    names = list(dict.fromkeys(i.axis for i in lay.owner_iters))
    by_values: dict[tuple[int, ...], list[int]] = {}
    for t in range(case.block):
        values = tuple(THREAD_AXES[a].value(t % case.scope_threads) for a in names)
        by_values.setdefault(values, []).append(t)
    out = []
    for l in range(lay.size):
        axes, slot = lay.without_replicas().apply(l)
        owners: list[int] = []
        for digits in product(*(range(i.extent) for i in reps)):
            want = dict.fromkeys(names, 0) | axes
            for c, it in zip(digits, reps):
                want[it.axis] += c * it.stride
            owners += by_values.get(tuple(want[a] for a in names), [])
        out.append((tuple(owners), slot))
    return out


def _run(case: CopyCase, module: ModuleOp, r_to_s: bool) -> tuple[list[Any], dict[int, list[Any]]]:
    """S and every thread's registers after the kernel: S holds ``("s", addr)`` (a load) or
    sentinels (a store); thread ``t``'s registers ``("r", t, slot)`` (a store) or None."""
    interp = make_interpreter(module)
    state = gpu_state(interp)
    r_alloca = find_alloca(module, "R")
    s = Buffer.new(memref_type(case.s, case.dtype))
    s.storage = ["sentinel" if r_to_s else ("s", p) for p in range(len(s.storage))]
    regs: dict[int, list[Any]] = {}
    for th in threads_of(case.block, (1, 1, 1)):
        buf = state.buffer_for(r_alloca, th.block_id, th.tid[0])
        buf.storage = [("r", th.tid[0], k) if r_to_s else None for k in range(len(buf.storage))]
        regs[th.tid[0]] = buf.storage
    launch(interp, "kernel", (s,))
    return s.storage, regs


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("lowered", [False, True], ids=["reference", "lowered"])
def test_load_fills_every_replica(name: str, lowered: bool) -> None:
    case = CASES[name]
    text = case.kernel_text(False)
    module = lower(text, strict=True) if lowered else parse(text)
    _, regs = _run(case, module, False)
    want: dict[int, list[Any]] = {t: [None] * len(r) for t, r in regs.items()}
    replicas = parse_layout(case.r.layout or "").replica_count
    for addr, (owners, slot) in enumerate(_owners(name)):
        assert len(owners) == replicas
        for t in owners:
            want[t][slot] = ("s", addr)
    assert regs == want


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("lowered", [False, True], ids=["reference", "lowered"])
def test_store_writes_once_from_replica_0(name: str, lowered: bool) -> None:
    case = CASES[name]
    text = case.kernel_text(True)
    module = lower(text, strict=True) if lowered else parse(text)
    s, _ = _run(case, module, True)
    assert s == [("r", owners[0], slot) for owners, slot in _owners(name)]


def test_store_guard_is_one_comparison() -> None:
    """One ``scf.if`` per copy (not per element) guards out replicas other than 0."""
    text = lower(CASES["mma_a"].kernel_text(True), strict=True)
    ifs = [op for op in text.walk() if op.name == "scf.if"]
    assert len(ifs) == 1
    load = lower(CASES["lanes"].kernel_text(False), strict=True)
    assert not [op for op in load.walk() if op.name == "scf.if"]


def test_replica_algebra() -> None:
    lay = parse_layout("(16,8):(1@laneid,1), replicate<(2,2):(16@laneid,1@warpid)>")
    assert str(lay) == "(16,8):(1@laneid,1), replicate<(2,2):(16@laneid,1@warpid)>"
    assert lay.replica_count == 4
    assert replica_shifts(lay) == ({"laneid": 0, "warpid": 0}, {"laneid": 0, "warpid": 1},
                                   {"laneid": 16, "warpid": 0}, {"laneid": 16, "warpid": 1})
    own = ownership(lay, Scope.CTA, 64)
    assert (own.fewest, own.most, own.fused_exact) == (4, 4, True)
    assert own.owners == frozenset(range(64))
    assert local_buffer_type([16, 8], "f32", "(16,8):(1@laneid,1)", replicate="2:16@laneid") \
        == local_buffer_type([16, 8], "f32", "(16,8):(1@laneid,1), replicate<2:16@laneid>")


def test_viz_lists_every_replica() -> None:
    text = layout_text(parse_layout("(16,8):(1@laneid,1), replicate<2:16@laneid>"), [16, 8])
    assert "0,16:0" in text and "15,31:7" in text and "replica 0" in text


def _accept(case: CopyCase, r_to_s: bool = False) -> Any:
    op = next(o for o in parse(case.kernel_text(r_to_s)).walk() if isinstance(o, CopyOp))
    return accept(op)


@pytest.mark.parametrize("layout,block,scope,reason", [
    ("(16,8):(1@laneid,1), replicate<2:1@warpid>", 32, "cta", "only 1 of them lie inside"),
    ("(16,8):(1@laneid,1), replicate<2:16@laneid>", 128, "warpgroup",
     "8 threads of the warpgroup own the same element but the layout declares 2 replicas"),
])
def test_replicas_that_do_not_fit_the_scope_are_rejected(layout: str, block: int, scope: str,
                                                        reason: str) -> None:
    case = CopyCase(Side((16, 8), "local", layout), Side((16, 8), "global"), scope=scope,
                    block=block)
    with pytest.raises(Rejected, match=reason):
        _accept(case)


def test_replicas_are_broadcasts_in_the_bank_model() -> None:
    """Lanes 16..31 read what lanes 0..15 read (a broadcast): 2 wavefronts a round, as for
    lanes 0..15 alone, where 32 lanes reading 32 distinct rows take 4."""
    rep = CopyCase(Side((16, 4), "local", "(16,4):(1@laneid,1), replicate<2:16@laneid>"),
                   Side((16, 4), "shared"))
    half = CopyCase(Side((32, 4), "local", "(32,4):(1@laneid,1)"),
                    Side((32, 4), "shared"))
    _, plan = planned(rep, max_vector_bits=32)
    _, plan_half = planned(half, max_vector_bits=32)
    assert bank_report(plan, 4).wavefronts == 2 * plan.rounds  # 16 distinct words: 2 a bank
    assert bank_report(plan_half, 4).wavefronts == 4 * plan.rounds  # 32 words: 4 a bank
    _, store = planned(rep, r_to_s=True, max_vector_bits=32)
    assert bank_report(store, 4).wavefronts == 2 * plan.rounds


def test_matrix_path_loads_replicas_and_refuses_storing_them() -> None:
    """A load into a replicated tile may be an ldmatrix (each replica group issues the same
    one: here the B operand, transposed); a store from one is not a stmatrix (every replica
    would store)."""
    case = CopyCase(Side((16, 16), "local", MMA_B), Side((16, 16), "shared"), "f16",
                    scope="cta", block=128)
    acc, plan = planned(case)
    got = plan_matrix(acc, plan, True)
    assert isinstance(got, MatrixTransfer) and got.kind == "ldmatrix" and got.trans
    acc, plan = planned(case, r_to_s=True)
    assert "replica 0 stores" in str(plan_matrix(acc, plan, True))


def test_layout_type_is_unchanged_without_replicas() -> None:
    assert Layout(parse_layout("(32,8):(1@laneid,1)").iters) == \
        parse_layout("(32,8):(1@laneid,1)")


@pytest.mark.parametrize("name,shapes", [
    ("replicated", ((16, 8), (64, 8), (64, 8), (16, 8))),
    ("replicated_region", ((32, 8), (128, 8), (128, 8), (32, 8))),
])
def test_gpu_kernel_expectation_holds_on_the_cpu(name: str, shapes: tuple[Any, ...]) -> None:
    """test/gpu/kernels/NAME.mlir, lowered, on the CPU interpreter: its numpy expectation
    (the GPU run checks the same one) and its plan."""
    from cases import CASES as GPU_CASES
    from cases import compare, lowering_plan
    from regcopy_backend.runtime.cpu_run import run_on_cpu

    case = next(c for c in GPU_CASES if c.name == name)
    module = lower(case.path.read_text())
    assert lowering_plan(module) == list(case.plan)
    rng = np.random.default_rng(0)
    before = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    after = run_on_cpu(module, name, [b.copy() for b in before])
    assert compare(case, ["in", "fresh", "all", "out"], before, after) == []
