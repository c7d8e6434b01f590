"""The lowering never mis-lowers: execute the lowered IR on the CPU, thread by thread, and
compare with the placement predicted by the layout algebra and with the reference semantics
of the un-lowered ``regcopy.copy`` (``copy_harness.check_copy``).

Cases: the seed table, every worked example, the TIRx bugs
B1-B4 (where TIRx mis-lowers), CTA and warpgroup scopes, every S memory space, ``max-vector-bits`` variations,
dynamic offsets, and a hypothesis property over random layouts ("accepted => correct").
"""

from __future__ import annotations

import json
import math
import os
import time
from collections import Counter

import hypothesis_profiles
import pytest
from copy_harness import (
    BlockRow,
    CopyCase,
    Lowering,
    MisLowered,
    Side,
    check_both,
    check_copy,
    find_alloca,
    lower,
    memory_problems,
    memref_type,
    parse,
    rejection_reason,
)
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples as scaled
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr

from regcopy_backend.interpreter.driver import Buffer, gpu_state, launch, make_interpreter
from regcopy_dialect.layout import Iter, Layout, LayoutError, group, slice_region


def lanes(k: int, rows: int = 32, reg_stride: int = 1, lane_stride: int = 1) -> Side:
    """R ``(rows,k):(lane_stride@laneid,reg_stride)`` over ``[rows, k]``."""
    return Side((rows, k), "local", f"({rows},{k}):({lane_stride}@laneid,{reg_stride})")


def assert_numbers(got: tuple[Lowering, Lowering], vec: int | None, rounds: int) -> None:
    """Both directions lowered with ``vec`` elements a transfer and ``rounds`` rounds, or, with
    ``vec`` None, as ``rounds`` ld/stmatrix instructions a warp."""
    for direction, numbers in zip(("S -> R", "R -> S"), got, strict=True):
        assert numbers.accepted, direction
        assert (numbers.vec, numbers.rounds) == (vec, rounds), f"{direction}: {numbers}"


# --------------------------------------------------------------------------------------------
# Seed table and ui8
# --------------------------------------------------------------------------------------------

SEED_TABLE = [("f32", 8, 4, 2), ("f32", 16, 4, 4), ("f16", 8, 8, 1), ("f16", 16, 8, 2)]


@pytest.mark.parametrize(("dtype", "k", "vec", "rounds"), SEED_TABLE,
                         ids=[f"{d}-k{k}" for d, k, _, _ in SEED_TABLE])
def test_seed_table(dtype: str, k: int, vec: int, rounds: int) -> None:
    case = CopyCase(lanes(k), Side((32, k), "shared"), dtype)
    assert_numbers(check_both(case), vec, rounds)


def test_ui8_k8() -> None:
    case = CopyCase(lanes(8), Side((32, 8), "shared"), "ui8")
    assert_numbers(check_both(case), 8, 1)


@pytest.mark.parametrize("space", ["shared", "shared.dyn", "global"])
def test_seed_row_every_memory_space(space: str) -> None:
    case = CopyCase(lanes(8), Side((32, 8), space), "f32")
    assert_numbers(check_both(case), 4, 2)


MAX_BITS = [  # (dtype, k, max-vector-bits, vec, rounds)
    ("f32", 8, 64, 2, 4), ("f32", 8, 32, 1, 8), ("f16", 16, 64, 4, 4), ("f16", 16, 32, 2, 8),
    ("f16", 16, 16, 1, 16), ("f16", 8, 8, 1, 8), ("ui8", 8, 32, 4, 2), ("ui8", 8, 8, 1, 8),
]


@pytest.mark.parametrize(("dtype", "k", "bits", "vec", "rounds"), MAX_BITS,
                         ids=[f"{d}-k{k}-max{b}" for d, k, b, _, _ in MAX_BITS])
def test_max_vector_bits(dtype: str, k: int, bits: int, vec: int, rounds: int) -> None:
    case = CopyCase(lanes(k), Side((32, k), "shared"), dtype)
    assert_numbers(check_both(case, max_vector_bits=bits), vec, rounds)


# --------------------------------------------------------------------------------------------
# Worked examples
# --------------------------------------------------------------------------------------------


def test_thread_scope_3d_region() -> None:
    case = CopyCase(Side((8, 8), "local"), Side((4, 16, 16), "global", None, (3, 8, 8), (1, 8, 8)),
                    "f16", "thread", block=32)
    assert_numbers(check_both(case), 8, 8)


def test_thread_scope_base_is_904() -> None:
    """The S base of the thread-scope example: 3*256 + 8*16 + 8 (a constant in the IR)."""
    case = CopyCase(Side((8, 8), "local"), Side((4, 16, 16), "global", None, (3, 8, 8), (1, 8, 8)),
                    "f16", "thread", block=1)
    module = lower(case.kernel_text(False))
    consts = {op.value.value.data for op in module.walk()
              if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr)}
    assert 904 in consts


@pytest.mark.parametrize("space", ["shared", "global"])
def test_warp_sliced_columns_2_to_10(space: str) -> None:
    case = CopyCase(Side((32, 16), "local", "(32,16):(1@laneid,1)", (0, 2), (32, 8)),
                    Side((32, 16), space, None, (0, 2), (32, 8)), "f32")
    assert_numbers(check_both(case), 2, 4)


@pytest.mark.parametrize("space", ["shared", "shared.dyn"])
def test_warpgroup_swizzled(space: str) -> None:
    case = CopyCase(Side((128, 64), "local", "(128,64):(1@tid_in_wg,1)"),
                    Side((128, 64), space, "(128,64):(64,1), swizzle<3,3,3>"), "f16",
                    "warpgroup", block=128)
    assert_numbers(check_both(case), 8, 8)


def test_swizzled_subtile_with_offset() -> None:
    """A 32x8 region at (32, 8) of a swizzled 128x64 tile: the swizzle acts on base + round."""
    case = CopyCase(lanes(8), Side((128, 64), "shared", "(128,64):(64,1), swizzle<3,3,3>",
                                   (32, 8), (32, 8)), "f16")
    assert_numbers(check_both(case), 8, 1)


def test_swizzle_chunk_limits_width() -> None:
    """swizzle<2,3,3> keeps 4 elements contiguous: f16 narrows from 8 to 4."""
    case = CopyCase(lanes(8), Side((32, 64), "shared", "(32,64):(64,1), swizzle<2,3,3>",
                                   (0, 8), (32, 8)), "f16")
    assert_numbers(check_both(case), 4, 2)


# --------------------------------------------------------------------------------------------
# B1-B4 (where TIRx mis-lowers)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("space", ["shared", "global"])
def test_b1_thread_stride_alignment(space: str) -> None:
    """S [32,10] f32 cols 0..8: lane * 40 bytes is only 8-byte aligned, so n = 2 (the
    interpreter rejects any misaligned vector access)."""
    case = CopyCase(lanes(8), Side((32, 10), space, None, (0, 0), (32, 8)), "f32")
    assert_numbers(check_both(case), 2, 4)


def test_b2_register_gaps() -> None:
    case = CopyCase(lanes(8, reg_stride=2), Side((32, 8), "shared"), "f32")
    assert_numbers(check_both(case), 1, 8)


B2_OWNER_STORE = """
func.func @kernel(%in: memref<32x8xf32, #regcopy.mem<global>>,
                  %out: memref<32x8xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,2)>, #regcopy.mem<local>>
  %lane = "gpu.lane_id"() : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %j = %c0 to %c8 step %c1 {
    %v = memref.load %in[%lane, %j] : memref<32x8xf32, #regcopy.mem<global>>
    memref.store %v, %R[%lane, %j] : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,2)>, #regcopy.mem<local>>
  }
  regcopy.copy warp %R -> %out : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,2)>, #regcopy.mem<local>> -> memref<32x8xf32, #regcopy.mem<global>>
  func.return
}
"""


@pytest.mark.parametrize("lowered", [False, True], ids=["reference", "lowered"])
def test_b2_store_by_owner_then_r_to_s(lowered: bool) -> None:
    """The owner writes R[lane, j] = in[lane, j] (slot 2j), then R -> S must give out == in."""
    module = lower(B2_OWNER_STORE) if lowered else parse(B2_OWNER_STORE)
    fn_type = module.body.block.first_op.function_type  # type: ignore[union-attr]
    t_in = fn_type.inputs.data[0]
    data = [float(i) for i in range(256)]
    a, out = Buffer.from_logical(t_in, data), Buffer.new(t_in, -1.0)
    launch(make_interpreter(module), "kernel", (a, out))
    assert out.to_logical() == data


def _writes_of_threads(case: CopyCase, threads: list[int]) -> list[int]:
    """Addresses of a global S that ``threads`` alone change, running the lowered R -> S."""
    module = lower(case.kernel_text(True))
    interp = make_interpreter(module)
    s = Buffer.new(memref_type(case.s, case.dtype), "untouched")
    r_alloca = find_alloca(module, "R")
    assert r_alloca is not None
    for t in threads:
        regs = gpu_state(interp).buffer_for(r_alloca, (0, 0, 0), t)
        regs.storage = [("r", t, k) for k in range(len(regs.storage))]
    launch(interp, "kernel", (s,), threads=threads)
    return [p for p, v in enumerate(s.storage) if v != "untouched"]


def test_b3_lane_stride_two() -> None:
    """R (16,8):(2@laneid,1): lane 2i owns row i, odd lanes idle."""
    case = CopyCase(lanes(8, rows=16, lane_stride=2), Side((16, 8), "shared"), "f32")
    got = check_both(case)
    assert all(n.guarded for n in got)
    assert_numbers(got, 4, 2)


def test_b3_odd_lanes_write_nothing() -> None:
    case = CopyCase(lanes(8, rows=16, lane_stride=2), Side((16, 8), "global"), "f32")
    assert _writes_of_threads(case, list(range(1, 32, 2))) == []
    assert len(_writes_of_threads(case, list(range(0, 32, 2)))) == 16 * 8


def test_b4_partial_coverage() -> None:
    """Rows 0..16 of R (32,8):(1@laneid,1) to rows 0..16 of a 32-row S."""
    case = CopyCase(Side((32, 8), "local", "(32,8):(1@laneid,1)", (0, 0), (16, 8)),
                    Side((32, 8), "shared", None, (0, 0), (16, 8)), "f32")
    got = check_both(case)
    assert all(n.guarded for n in got)
    assert_numbers(got, 4, 2)


def test_b4_upper_lanes_write_nothing() -> None:
    case = CopyCase(Side((32, 8), "local", "(32,8):(1@laneid,1)", (0, 0), (16, 8)),
                    Side((32, 8), "global", None, (0, 0), (16, 8)), "f32")
    assert _writes_of_threads(case, list(range(16, 32))) == []
    assert _writes_of_threads(case, list(range(16))) == list(range(16 * 8))


def test_b4_single_row_region_is_guarded() -> None:
    """Only lane 0 owns a one-row region: accepted, guarded, correct (the extent-1 lane iter
    still pins the owner to lane 0; it is no replica)."""
    case = CopyCase(Side((32, 8), "local", "(32,8):(1@laneid,1)", (0, 0), (1, 8)),
                    Side((32, 8), "global", None, (0, 0), (1, 8)), "f32")
    for r_to_s in (False, True):
        numbers = check_copy(case, r_to_s)
        assert numbers.accepted and numbers.guarded


# --------------------------------------------------------------------------------------------
# CTA and warpgroup scopes, dynamic offsets
# --------------------------------------------------------------------------------------------

CTA_R = Side((8, 1024), "local", "(8,256,4):(4,1@tx,1)")


def test_cta_global_8x1024() -> None:
    case = CopyCase(CTA_R, Side((8, 1024), "global"), "f32", "cta", block=256)
    assert_numbers(check_both(case), 4, 8)


def test_cta_sliced_global_static_row_offset() -> None:
    case = CopyCase(CTA_R, Side((64, 1024), "global", None, (16, 0), (8, 1024)), "f32", "cta",
                    block=256)
    assert_numbers(check_both(case), 4, 8)


@pytest.mark.parametrize("layout", ["(4,32,8):(1@wid_in_wg,1@laneid,1)",
                                    "(32,4,8):(1@laneid,1@wid_in_wg,1)"])
def test_warpgroup_laneid_and_wid_in_wg(layout: str) -> None:
    shape = (128, 8) if layout.startswith("(4,") else (32, 32)
    case = CopyCase(Side(shape, "local", layout), Side(shape, "shared.dyn"), "f16", "warpgroup",
                    block=128)
    assert_numbers(check_both(case), 8, 1)


def test_dynamic_row_offset_two_blocks() -> None:
    """S rows [32 * blockIdx.x, +32) of a 64-row global buffer, grid 2."""
    case = CopyCase(lanes(8), Side((64, 8), "global", None, (BlockRow(32), 0), (32, 8)), "f32",
                    grid=2)
    assert_numbers(check_both(case), 4, 2)


def test_dynamic_offset_of_unknown_divisibility_narrows() -> None:
    """Row offset blockIdx.x in a [40,10] buffer: base 10 * bid is only even, so n = 2."""
    case = CopyCase(lanes(8), Side((40, 10), "global", None, (BlockRow(1), 0), (32, 8)), "f32",
                    grid=2)
    assert_numbers(check_both(case), 2, 4)


MORE = {  # name: (case, vec, rounds)
    "R-transposed-registers": (CopyCase(Side((32, 8), "local", "(32,2,4):(1@laneid,1,2)"),
                                        Side((32, 8), "shared"), "f32"), 1, 8),
    "R-register-gap-between-runs": (CopyCase(Side((32, 8), "local", "(32,2,4):(1@laneid,8,1)"),
                                             Side((32, 8), "shared"), "f32"), 4, 2),
    # lane l's 8 words are S[r][l]: bytes 4l + 128r, i.e. rows of 16 bytes (4 lanes each):
    # two ldmatrix.x4 / stmatrix.x4 a warp instead of 8 rounds of 32-bit accesses
    "lane-owns-column": (CopyCase(Side((8, 32), "local", "(8,32):(1,1@laneid)"),
                                  Side((8, 32), "shared"), "f32"), None, 2),
    "lane-owns-column-per-thread": (CopyCase(Side((8, 32), "local", "(8,32):(1,1@laneid)"),
                                             Side((8, 32), "global"), "f32"), 1, 8),
    "lane-owns-column-S-col-major": (CopyCase(Side((8, 32), "local", "(8,32):(1,1@laneid)"),
                                              Side((8, 32), "shared", "(8,32):(1,8)"), "f32"),
                                     4, 2),
    "S-padded-rows": (CopyCase(lanes(8), Side((32, 8), "shared", "(32,8):(12,1)"), "f32"), 4, 2),
    "S-odd-row-stride": (CopyCase(lanes(8), Side((32, 8), "shared", "(32,8):(9,1)"), "f32"),
                         1, 8),
    "f64": (CopyCase(lanes(8), Side((32, 8), "global"), "f64"), 2, 4),
    "i8-two-lane-iters": (CopyCase(Side((32, 16), "local", "(4,8,16):(8@laneid,1@laneid,1)"),
                                   Side((32, 16), "global"), "i8"), 16, 1),
    "lanes-interleaved-with-registers": (
        CopyCase(Side((16, 16), "local", "(8,2,4,4):(4@laneid,8,1@laneid,1)"),
                 Side((16, 16), "shared"), "f32"), 4, 2),
    "cta-wgid": (CopyCase(Side((256, 8), "local", "(2,128,8):(1@wgid,1@tid_in_wg,1)"),
                          Side((256, 8), "global"), "f16", "cta", 256), 8, 1),
    "cta-warpid-laneid": (CopyCase(Side((256, 4), "local", "(8,32,4):(1@warpid,1@laneid,1)"),
                                   Side((256, 4), "global"), "f32", "cta", 256), 4, 1),
    "cta-half-block-guarded": (CopyCase(Side((128, 4), "local", "(128,4):(1@tx,1)"),
                                        Side((128, 4), "global"), "f32", "cta", 256), 4, 1),
    "warpgroup-two-warps-guarded": (
        CopyCase(Side((64, 8), "local", "(2,32,8):(2@wid_in_wg,1@laneid,1)"),
                 Side((64, 8), "shared"), "f16", "warpgroup", 128), 8, 1),
    "warp-scope-in-block-64": (CopyCase(lanes(8), Side((32, 8), "shared"), "f32", "warp", 64),
                               4, 2),
    "R-dynamic-register-offset": (
        CopyCase(Side((32, 16), "local", "(32,16):(1@laneid,1)", (0, BlockRow(8)), (32, 8)),
                 Side((64, 8), "global", None, (BlockRow(32), 0), (32, 8)), "f32", grid=2), 4, 2),
    "S-rank-3-dynamic": (CopyCase(lanes(8), Side((2, 32, 8), "global", None, (BlockRow(1), 0, 0),
                                                 (1, 32, 8)), "f32", grid=2), 4, 2),
    "lane-stride-4": (CopyCase(lanes(8, rows=8, lane_stride=4), Side((8, 8), "shared"), "f32"),
                      4, 2),
    "lane-bits-0-and-2..4": (CopyCase(Side((16, 8), "local", "(2,8,8):(1@laneid,4@laneid,1)"),
                                      Side((16, 8), "shared"), "f32"), 4, 2),
    "thread-scope-in-warp": (CopyCase(Side((4, 8), "local"), Side((4, 8), "shared"), "f16",
                                      "thread", 32), 8, 4),
    "swizzled-dynamic-rows": (
        CopyCase(lanes(8), Side((64, 64), "shared", "(64,64):(64,1), swizzle<3,3,3>",
                                (BlockRow(32), 8), (32, 8)), "f16", grid=2), 8, 1),
    "swizzled-cols-4..12": (CopyCase(lanes(8), Side((32, 64), "shared",
                                                    "(32,64):(64,1), swizzle<3,3,3>", (0, 4),
                                                    (32, 8)), "f16"), 4, 2),
    "warpgroup-in-block-256": (CopyCase(Side((128, 8), "local", "(128,8):(1@tid_in_wg,1)"),
                                        Side((128, 8), "shared"), "f32", "warpgroup", 256), 4, 2),
    "cta-tx-split-over-dims": (CopyCase(Side((8, 32), "local", "(64,4):(1@tx,1)"),
                                        Side((8, 40), "global", None, (0, 4), (8, 32)), "f32",
                                        "cta", 64), 4, 1),
    "lanes-split-over-dims-sliced": (
        CopyCase(Side((4, 64), "local", "(32,8):(1@laneid,1)", (0, 0), (4, 32)),
                 Side((4, 32), "shared"), "f16"), 8, 1),
    "i8-12-registers": (CopyCase(lanes(12), Side((32, 12), "global"), "i8"), 4, 3),
    "f16-6-registers-at-col-2": (CopyCase(lanes(6), Side((32, 8), "global", None, (0, 2),
                                                         (32, 6)), "f16"), 2, 3),
}


@pytest.mark.parametrize("name", list(MORE))
def test_more_layouts(name: str) -> None:
    case, vec, rounds = MORE[name]
    assert_numbers(check_both(case), vec, rounds)


# --------------------------------------------------------------------------------------------
# The checker itself is not vacuous
# --------------------------------------------------------------------------------------------


def test_harness_detects_a_wrong_lowering() -> None:
    """Perturb the lane stride of a correct lowering (8 -> 16): the run must disagree."""
    case = CopyCase(lanes(8), Side((64, 8), "global", None, (0, 0), (32, 8)), "f32")
    module = lower(case.kernel_text(False))
    eights = [op for op in module.walk() if isinstance(op, arith.ConstantOp)
              and isinstance(op.value, IntegerAttr) and op.value.value.data == 8]
    assert eights
    for op in eights:
        op.value = IntegerAttr.from_index_int_value(16)
    assert memory_problems(case, module, False)
    assert not memory_problems(case, lower(case.kernel_text(False)), False)


def test_rejected_copy_is_reported_not_checked() -> None:
    """A true replica (every warp of the warpgroup owns each element) is rejected (check 7);
    ``check_copy`` says so."""
    case = CopyCase(lanes(8), Side((32, 8), "shared"), "f32", "warpgroup", block=128)
    with pytest.raises(MisLowered, match="rejected"):
        check_copy(case, False)
    assert not check_copy(case, False, require_accepted=False).accepted
    assert "is replicated: 4 threads of the warpgroup own the same element" in \
        (rejection_reason(case.kernel_text(False)) or "")


# --------------------------------------------------------------------------------------------
# Property: random layouts, accepted => correct
# --------------------------------------------------------------------------------------------

DTYPES = ("f16", "f32", "i8")


def _layout_text(extents: list[int], strides: list[str]) -> str:
    return f"({','.join(map(str, extents))}):({','.join(strides)})"


#: scope -> (block size, bits of the scope-local thread index)
SCOPES: dict[str, tuple[int, int]] = {"thread": (1, 0), "warp": (32, 5), "warpgroup": (128, 7),
                                      "cta": (64, 6)}


@st.composite
def random_cases(draw: st.DrawFn, scopes: tuple[str, ...] = ("thread", "warp", "warp", "warp",
                                                              "warp", "warp"),
                 free: bool = False) -> tuple[CopyCase, bool, int]:
    """A random copy (see the helpers; ``free``: always free-form thread maps). Returns
    (case, R -> S?, max-vector-bits)."""
    scope = draw(st.sampled_from(scopes))
    block, _ = SCOPES[scope]
    iters = _random_r_iters(draw, scope, free)
    layout = Layout(tuple(Iter(e, st_, ax) for e, st_, ax in iters))
    shape = _random_r_shape(draw, iters)
    assume(_groups(layout, shape))
    offsets, sizes = _random_region(draw, shape)
    if offsets is not None and sizes is not None:
        try:
            slice_region(layout, shape, offsets, sizes)
        except LayoutError:
            assume(False)
    text = _layout_text([e for e, _, _ in iters],
                        [f"{s_}@{ax}" if ax else str(s_) for _, s_, ax in iters])
    r = Side(shape, "local", text, offsets, sizes)
    s = _random_s(draw, sizes or shape)
    dtype = draw(st.sampled_from(DTYPES))
    case = CopyCase(r, s, dtype, scope, block=block)
    assume(_verifies(case))
    return case, draw(st.booleans()), draw(st.sampled_from([128, 128, 64, 32]))


def _axis_iter(scope: str, split: bool, run: list[int]) -> list[tuple[int, int, str]]:
    """Thread iters for a run of consecutive thread-index bits: on the scope's fused axis
    (laneid/tid_in_wg/tx) or, with ``split``, cut at the warp boundary onto laneid and
    wid_in_wg/warpid."""
    fused = {"warp": "laneid", "warpgroup": "tid_in_wg", "cta": "tx"}[scope]
    if scope == "warp" or not split:
        return [(1 << len(run), 1 << run[0], fused)]
    upper = "wid_in_wg" if scope == "warpgroup" else "warpid"
    low, high = [b for b in run if b < 5], [b for b in run if b >= 5]
    out = [(1 << len(high), 1 << (high[0] - 5), upper)] if high else []
    return out + ([(1 << len(low), 1 << low[0], "laneid")] if low else [])


def _random_r_iters(draw: st.DrawFn, scope: str,
                    free: bool = False) -> list[tuple[int, int, str | None]]:
    """R's iters ``(extent, stride, axis)``: thread iters over disjoint bits of the thread
    index (all bits, or fewer: partial coverage), memory iters with a random register order
    and gaps; either "natural" (threads outermost, registers in logical order) or shuffled."""
    iters: list[tuple[int, int, str | None]] = []
    _, n_bits = SCOPES[scope]
    if n_bits and (free or draw(st.integers(0, 4)) == 0):
        iters += _free_thread_iters(draw, scope)
    elif n_bits:
        bits = draw(st.permutations(range(n_bits)))
        n_used = draw(st.sampled_from([n_bits, n_bits, n_bits, n_bits - 1, n_bits - 2]))
        cut = draw(st.integers(1, n_used))
        split = draw(st.booleans())  # one style per layout: mixed styles own nothing
        for part in (sorted(bits[:cut]), sorted(bits[cut:n_used])):
            for run in _runs(part):
                iters += _axis_iter(scope, split, run)
    n_mem = draw(st.integers(1, 3))
    mem_ext = [draw(st.sampled_from([4, 8, 2, 3, 1, 2, 4])) for _ in range(n_mem)]
    assume(math.prod(mem_ext) <= 64)
    natural = draw(st.booleans())
    order = list(range(n_mem)) if natural else draw(st.permutations(range(n_mem)))
    stride, strides = 1, [0] * n_mem
    for k in reversed(order):  # order[-1] innermost
        strides[k] = stride
        stride = stride * mem_ext[k] * draw(st.sampled_from([1, 1, 1, 2]))
    iters += [(e, s_, None) for e, s_ in zip(mem_ext, strides, strict=True)]
    return iters if natural else list(draw(st.permutations(iters)))


def _free_thread_iters(draw: st.DrawFn, scope: str) -> list[tuple[int, int, str | None]]:
    """Gapped, non-nested or pinned thread maps (issue 9's over-rejected families): 1-3
    iters on the scope's fused axis with any small extents and strides, and sometimes an
    extent-1 iter pinning a wider axis (``1@wgid``); layouts the verifier refuses are
    filtered by the caller."""
    fused = {"warp": "laneid", "warpgroup": "tid_in_wg", "cta": "tx"}[scope]
    out: list[tuple[int, int, str | None]] = [
        (draw(st.sampled_from([1, 2, 3, 4, 8])), draw(st.sampled_from([1, 2, 3, 4, 5, 8, 16])),
         fused) for _ in range(draw(st.integers(1, 3)))]
    if scope == "cta" and draw(st.booleans()):
        out.insert(0, (1, 1, "wgid"))
    return out


def _verifies(case: CopyCase) -> bool:
    try:
        parse(case.kernel_text(False))
    except Exception:  # noqa: BLE001 - any verifier refusal: not a copy to test
        return False
    return True


def _random_r_shape(draw: st.DrawFn, iters: list[tuple[int, int, str | None]]
                    ) -> tuple[int, ...]:
    """Dims made of consecutive iters, or (sometimes) a refactoring that splits iters."""
    total = math.prod(e for e, _, _ in iters)
    if draw(st.integers(0, 3)) == 0:
        d0 = draw(st.sampled_from([d for d in range(1, total + 1) if total % d == 0]))
        return (d0, total // d0)
    cuts = sorted(draw(st.sets(st.integers(1, len(iters) - 1), max_size=2))) \
        if len(iters) > 1 else []
    shape, start = [], 0
    for c in [*cuts, len(iters)]:
        shape.append(math.prod(e for e, _, _ in iters[start:c]))
        start = c
    return tuple(shape)


def _groups(layout: Layout, shape: tuple[int, ...]) -> bool:
    try:
        group(layout, shape)
    except LayoutError:
        return False
    return True


def _random_region(draw: st.DrawFn, shape: tuple[int, ...]
                   ) -> tuple[tuple[int, ...] | None, tuple[int, ...] | None]:
    """The whole buffer, or per dim a size dividing it at an aligned offset (may not slice
    cleanly: the caller filters)."""
    if draw(st.integers(0, 2)) != 0:
        return None, None
    sizes = tuple(draw(st.sampled_from([z for z in range(1, n + 1) if n % z == 0][::-1]))
                  for n in shape)
    offsets = tuple(draw(st.integers(0, n // z - 1)) * z for n, z in zip(shape, sizes))
    return offsets, sizes


def _runs(bits: list[int]) -> list[list[int]]:
    """Split sorted bit positions into runs of consecutive bits."""
    runs: list[list[int]] = []
    for b in bits:
        if runs and runs[-1][-1] == b - 1:
            runs[-1].append(b)
        else:
            runs.append([b])
    return runs


def _random_s(draw: st.DrawFn, r_sizes: tuple[int, ...] | None) -> Side:
    """S over the same logical sizes: padded dims at random offsets, row-major or of a random
    dim order with padding (and maybe an element gap), maybe swizzled, maybe with a leading
    unit dim (rank change)."""
    assert r_sizes is not None
    sizes = tuple(z for z in r_sizes if z != 1) or (1,)
    pads = [draw(st.sampled_from([0, 0, 1, 2, 4])) for _ in sizes]
    shape = [z + p for z, p in zip(sizes, pads, strict=True)]
    offsets = [draw(st.integers(0, p)) for p in pads]
    space = draw(st.sampled_from(["shared", "shared.dyn", "global"]))
    layout = None
    kind = draw(st.sampled_from(["row-major", "row-major", "permuted", "swizzled"]))
    if kind == "permuted":
        order = draw(st.permutations(range(len(shape))))
        strides, acc = [0] * len(shape), draw(st.sampled_from([1, 1, 1, 2]))
        for d in reversed(order):
            strides[d] = acc
            acc = acc * shape[d] + draw(st.sampled_from([0, 0, 1, 4]))
        layout = _layout_text(shape, list(map(str, strides)))
    elif kind == "swizzled" and space != "global":
        m, b = draw(st.integers(1, 3)), draw(st.integers(1, 3))
        sh = draw(st.integers(b, 4))
        row_major = [math.prod(shape[d + 1:]) for d in range(len(shape))]
        layout = _layout_text(shape, list(map(str, row_major))) + f", swizzle<{m},{b},{sh}>"
    sizes_full, offsets_full = list(sizes), offsets
    if draw(st.integers(0, 3)) == 0:  # a leading unit dim of a rank-higher S
        lead = draw(st.integers(1, 3))
        shape, offsets_full, sizes_full = [lead, *shape], [draw(st.integers(0, lead - 1)),
                                                           *offsets], [1, *sizes]
        if layout is not None:
            layout = None  # keep the rank change simple: row-major
    return Side(tuple(shape), space, layout, tuple(offsets_full), tuple(sizes_full))


#: ``REGCOPY_HYPOTHESIS`` (hypothesis_profiles.py): ``ci`` (default) is small and derandomized,
#: ``thorough`` checks a few hundred copies, ``big`` >= 50,000 over the property tests (long).
PROFILE = hypothesis_profiles.PROFILE
#: with the big profile, progress and every mis-lowering go to this file (JSON lines)
STATS_FILE = os.environ.get("REGCOPY_HYPOTHESIS_STATS")


def _report(stats: Counter[str], label: str, failure: str | None = None) -> None:
    if STATS_FILE is None:
        return
    with open(STATS_FILE, "a", encoding="utf-8") as out:
        out.write(json.dumps({"test": label, "time": time.time(), **stats,
                              **({"failure": failure} if failure else {})}) + "\n")


def _run_property(scopes: tuple[str, ...], examples: int, label: str = "",
                  free: bool = False) -> Counter[str]:
    """Check ``examples`` random copies (deterministic: derandomized); count what happened.
    With the big profile a mis-lowering is recorded (``REGCOPY_HYPOTHESIS_STATS``) and
    counted, the run goes on, and the test fails at the end if there was any."""
    stats: Counter[str] = Counter()
    big = PROFILE == "big"

    @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(random_cases(scopes, free))
    def prop(drawn: tuple[CopyCase, bool, int]) -> None:
        case, r_to_s, bits = drawn
        try:
            numbers = check_copy(case, r_to_s, require_accepted=False, max_vector_bits=bits)
        except MisLowered as e:
            if not big:
                raise
            stats["mislowered"] += 1
            _report(stats, label, str(e))
            return
        stats["total"] += 1
        stats["accepted"] += numbers.accepted
        stats[f"vec{numbers.vec}"] += numbers.accepted
        stats["guarded"] += numbers.guarded
        if big and stats["total"] % 500 == 0:
            _report(stats, label)

    prop()
    _report(stats, label)
    assert stats["mislowered"] == 0, stats
    return stats


def test_random_layouts_accepted_implies_correct() -> None:
    """Thread and warp scope (warp 5 times in 6)."""
    examples = scaled(60, 200, 40_000)
    stats = _run_property(("thread", "warp", "warp", "warp", "warp", "warp"), examples,
                          "thread+warp")
    assert stats["accepted"] >= 0.6 * stats["total"], stats
    assert stats["guarded"] > 0 and stats["vec1"] > 0 and stats["vec8"] + stats["vec16"] > 0, stats


def test_random_warpgroup_and_cta_layouts_accepted_implies_correct() -> None:
    """Warpgroup (128 threads) and CTA (64 threads) scope, fused or split thread axes."""
    examples = scaled(10, 40, 12_000)
    stats = _run_property(("warpgroup", "cta"), examples, "warpgroup+cta")
    assert stats["accepted"] >= 0.4 * stats["total"], stats


def test_random_gapped_and_pinned_thread_maps_accepted_implies_correct() -> None:
    """Free-form thread maps only (gapped, non-nested, pinned: issue 9's families)."""
    examples = scaled(15, 60, 8_000)
    stats = _run_property(("warp", "warp", "warpgroup", "cta"), examples, "free", free=True)
    assert stats["accepted"] >= 0.5 * stats["total"] and stats["guarded"] > 0, stats
