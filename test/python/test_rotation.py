"""Lane-rotated rounds on the CPU: every element still lands in its register slot (S -> R)
or its address (R -> S), in both directions, checked by running every thread of the lowered
kernel in the interpreter against the layout-algebra placement and the reference run
(``copy_harness``). Also: the rotated IR is unrolled with statically indexed registers and
``arith.select`` on vectors, and ``bank-rotation=off`` keeps the plain loop."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith, scf, vector
from xdsl.dialects.builtin import IndexType, ModuleOp, VectorType

from bank_cases import seed, seed_cta, swizzled_wg
from copy_harness import CopyCase, Side, diff_memory, lower, memory_problems, parse, run_case
from regcopy_dialect.regcopy import StorageOp
from regcopy_passes.core.banks import fma_swap_count




def vector_selects(module: ModuleOp) -> list[arith.SelectOp]:
    return [op for op in module.walk()
            if isinstance(op, arith.SelectOp) and isinstance(op.result.type, VectorType)]


def check_rotated(case: CopyCase, r_to_s: bool, **options: object) -> ModuleOp:
    """Lower ``case``, run it for every thread, compare with the expected placement and with
    the reference semantics of the unlowered copy; return the lowered module."""
    text = case.kernel_text(r_to_s)
    lowered = lower(text, **options)
    got = run_case(case, lowered, r_to_s)
    assert memory_problems(case, lowered, r_to_s, got) == []
    assert diff_memory(got, run_case(case, parse(text), r_to_s)) == []
    return lowered


ROTATED = {
    "f32-k8": seed("f32", 8),
    "f32-k16": seed("f32", 16),
    "f16-k16": seed("f16", 16),
    "cta-f32-k8": seed_cta("f32", 8),
    "cta-f16-k16": seed_cta("f16", 16),
    # 32-bit accesses 8-way conflicted over 8 rounds: a 3-bit rotation (3 selects a word)
    "b2-gaps": CopyCase(Side((32, 8), "local", "(32,8):(1@laneid,2)"), Side((32, 8), "shared")),
    # 128-bit accesses 8-way conflicted: 32 floats a lane, a 3-bit butterfly over 8 rounds
    "f32-k32": seed("f32", 32),
    # unswizzled warpgroup tile: 8-way, 3-bit rotation over 8 rounds
    "wg-plain": swizzled_wg(False),
}


@pytest.mark.parametrize("r_to_s", [False, True], ids=["S->R", "R->S"])
@pytest.mark.parametrize("name", list(ROTATED))
def test_rotated_copy_places_every_element(name: str, r_to_s: bool) -> None:
    lowered = check_rotated(ROTATED[name], r_to_s)
    selects = vector_selects(lowered)
    assert selects, "expected a rotated lowering"
    # unrolled: no round loop, every register access at a constant index
    assert not any(isinstance(op, scf.ForOp) for op in lowered.walk())
    for op in lowered.walk():
        if isinstance(op, vector.LoadOp | vector.StoreOp) and isinstance(
                op.base.owner, StorageOp) and "local" in str(op.base.type):
            assert all(isinstance(i.owner, arith.ConstantOp) for i in op.indices)
    # conditions are lane bits: i1 truncations of the integer (t >> bit) & 1 (t & 1 for bit 0)
    for s in selects:
        cast = s.cond.owner
        assert isinstance(cast, arith.IndexCastOp) and str(s.cond.type) == "i1"
        bit = cast.input.owner
        assert isinstance(bit, arith.AndIOp) and isinstance(bit.rhs.owner, arith.ConstantOp)
        assert bit.rhs.owner.value.value.data == 1


@pytest.mark.parametrize("r_to_s", [False, True], ids=["S->R", "R->S"])
def test_bank_rotation_off_keeps_plain_rounds(r_to_s: bool) -> None:
    lowered = check_rotated(seed("f32", 8), r_to_s, bank_rotation="off")
    assert not vector_selects(lowered)
    assert [op for op in lowered.walk() if isinstance(op, scf.ForOp)]


@pytest.mark.parametrize("case", [seed("f16", 8), swizzled_wg(), seed("f32", 8, "global")],
                         ids=["f16-k8", "swizzled", "global"])
def test_no_rotation_where_it_does_not_help(case: CopyCase) -> None:
    for r_to_s in (False, True):
        assert not vector_selects(check_rotated(case, r_to_s))


def test_rotated_s_offsets_are_hoisted() -> None:
    # the lane-dependent part of each round's S offset is a select of constants before the
    # transfers; each round then adds a constant
    lowered = lower(seed("f32", 8).kernel_text(False))
    index_selects = [op for op in lowered.walk() if isinstance(op, arith.SelectOp)
                     and isinstance(op.result.type, IndexType)]
    assert len(index_selects) == 2  # +4 for rounds with bit 0 clear, -4 for the others


@pytest.mark.parametrize("name,bits,rounds", [
    ("f32-k8", 1, 2), ("f32-k16", 2, 4), ("f32-k32", 3, 8), ("b2-gaps", 3, 8)])
@pytest.mark.parametrize("r_to_s", [False, True], ids=["S->R", "R->S"])
def test_butterfly_has_k_swaps_per_chunk(name: str, bits: int, rounds: int,
                                         r_to_s: bool) -> None:
    # a k-bit rotation is a butterfly of k conditional-swap stages: k * rounds / 2 swaps of
    # chunk pairs (each two vector selects, a blend per 32-bit word each, or one subtraction
    # and two multiply-adds), not the 2^k - 1 selects of a mux per chunk
    case = ROTATED[name]
    lowered = lower(case.kernel_text(r_to_s))
    chunk_bytes = 16 if name != "b2-gaps" else 4
    fma = fma_swap_count(bits, rounds, chunk_bytes)
    conds = {s.cond for s in vector_selects(lowered)}
    assert len(conds) == bits - fma // (rounds // 2)  # stages all in multiply-adds: no select
    assert len(vector_selects(lowered)) == bits * rounds - 2 * fma
    assert len(vector_ops(lowered, arith.SubiOp)) == fma
    assert len(vector_ops(lowered, arith.MuliOp)) == 2 * fma
    plain = lower(case.kernel_text(r_to_s), fma_swap_share=0.0)
    assert len(vector_selects(plain)) == bits * rounds and not vector_ops(plain, arith.MuliOp)


@pytest.mark.parametrize("share", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("r_to_s", [False, True], ids=["S->R", "R->S"])
@pytest.mark.parametrize("name,bits,rounds", [
    ("f32-k32", 3, 8), ("f32-k16", 2, 4), ("f16-k16", 1, 2), ("wg-plain", 3, 8)])
def test_multiply_add_swaps_place_every_element(name: str, bits: int, rounds: int,
                                                share: float, r_to_s: bool) -> None:
    # any share of multiply-add swaps (none, half, all) places every element, checked on
    # distinct values of the element type (copy_harness.TagCodes)
    lowered = check_rotated(ROTATED[name], r_to_s, fma_swap_share=share)
    assert len(vector_ops(lowered, arith.SubiOp)) == fma_swap_count(bits, rounds, 16, share)


def vector_ops(module: ModuleOp, kind: type) -> list:
    return [op for op in module.walk()
            if isinstance(op, kind) and isinstance(op.results[0].type, VectorType)]
