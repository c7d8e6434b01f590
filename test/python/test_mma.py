"""``regcopy.mma``: the PTX fragment layouts, the layout match, every refusal of the verifier,
and the CPU interpreter (un-lowered reference and lowered ``regcopy.mma_sync``) against numpy
for every dtype/shape pair of the instruction table; hypothesis over warp tile shapes and
register orders."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from mma_cases import (
    BITS,
    KINDS,
    case_data,
    decoded,
    mma_kernel,
    tile_layout,
    word_digits,
)
from ptx_fragments import fragment as ldmatrix_fragment
from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_tools.regcopy_run import parse_and_lower

from regcopy_dialect.builders import parse_module
from regcopy_dialect.layout import WARP
from regcopy_dialect.mma_fragments import (
    M16N8K8,
    M16N8K16,
    M16N8K32,
    SHAPES,
    FragmentMismatch,
    Operand,
    fragment_cell,
    fragment_elements,
    fragment_layout,
    match_fragments,
    operand_tile,
)
from regcopy_dialect.mma_ops import MMA_KINDS

# ---- the fragments -------------------------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("operand", list(Operand))
@pytest.mark.parametrize("transpose_b", [False, True])
def test_fragment_layout_is_the_isa_rule(shape, operand, transpose_b) -> None:
    layout = fragment_layout(shape, operand, transpose_b)
    rows, cols = operand_tile(shape, operand, transpose_b)
    assert layout.size == rows * cols
    seen = set()
    for lane in range(WARP):
        for i in range(fragment_elements(shape, operand)):
            r, c = fragment_cell(shape, operand, lane, i, transpose_b)
            assert layout.apply(r * cols + c) == ({"laneid": lane}, i)
            seen.add((r, c))
    assert len(seen) == rows * cols


def test_m16n8k16_fragments_are_ldmatrix_x4_and_x2() -> None:
    """Independent table (the ldmatrix figure of the PTX ISA): the A fragment is the 4
    matrices of ldmatrix.x4 (top-left, bottom-left, top-right, bottom-right), word by word;
    the N x K B fragment is ldmatrix.x2 of its two 8 x 8 halves."""
    plain = ldmatrix_fragment(False)
    for (lane, half), (row, col) in plain.items():
        for m, (dr, dc) in enumerate(((0, 0), (8, 0), (0, 8), (8, 8))):
            assert fragment_cell(M16N8K16, Operand.A, lane, 2 * m + half) == (row + dr, col + dc)
        for m in range(2):
            assert fragment_cell(M16N8K16, Operand.B, lane, 2 * m + half, True) == (
                row, col + 8 * m)


@pytest.mark.parametrize(("shape", "text"), [
    (M16N8K16, "(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)"),
    (M16N8K8, "(2,8,2,4):(1,4@laneid,2,1@laneid)"),
    (M16N8K32, "(2,8,2,4,4):(4,4@laneid,8,1@laneid,1)"),
])
def test_a_fragment_text(shape, text) -> None:
    assert str(fragment_layout(shape, Operand.A)) == text


def test_match_any_register_order() -> None:
    layout = tile_layout(M16N8K16, Operand.C, 32, (2, 2), order=(3, 0, 2, 1))
    tiles = match_fragments(layout, (32, 16), M16N8K16, Operand.C, 32)
    words = sorted(w for row in tiles.tiles for t in row for w in t)
    assert words == list(range(16))


@pytest.mark.parametrize(("layout", "shape", "why"), [
    ("(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)", (16, 24), "not a multiple"),
    ("(2,8,2,4,2):(2,1@laneid,4,8@laneid,1)", (16, 16), "belongs to lane"),
    ("(2,8,2,4,2):(1,4@laneid,4,1@laneid,2)", (16, 16), "not one 32-bit word"),
    ("(2,8,2,4,2):(2,4@warpid,4,1@laneid,1)", (16, 16), "laneid only"),
])
def test_match_refusals(layout, shape, why) -> None:
    from regcopy_dialect.builders import parse_layout

    with pytest.raises(FragmentMismatch, match=why):
        match_fragments(parse_layout(layout), shape, M16N8K16, Operand.A, 16)


# ---- the verifier --------------------------------------------------------------------------

A = "memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>"
BT = "memref<8x16xf16, #regcopy.layout<(8,2,4,2):(4@laneid,2,1@laneid,1)>, #regcopy.mem<local>>"
C = "memref<16x8xf32, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>>"


def _kernel(op: str, types: tuple[str, str, str] = (A, BT, C)) -> str:
    allocs = "".join(f"  %{n} = memref.alloca() : {t}\n" for n, t in zip("ABC", types,
                                                                          strict=True))
    return ("func.func @k() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = "
            f"[1]>}} {{\n{allocs}  {op} : {', '.join(types)}\n  func.return\n}}\n")


@pytest.mark.parametrize(("op", "types", "message"), [
    ("regcopy.mma warp %A, %B, %C", (A, BT, C), "shapes do not multiply"),
    ("regcopy.mma cta %A, %B, %C {transpose_b}", (A, BT, C), "scope must be warp"),
    ("regcopy.mma warp %A, %B, %C {transpose_b, precision = tf32}", (A, BT, C),
     "needs f32 operands"),
    ("regcopy.mma warp %A, %B, %C {transpose_b, precision = f16}", (A, BT, C),
     "precision must be tf32"),
    ("regcopy.mma warp %A, %B, %C {transpose_b, fast}", (A, BT, C), "unknown attribute"),
    ("regcopy.mma warp %A, %B, %C {transpose_b}", (A, BT, C.replace("f32", "i32")),
     "no mma.sync for f16, f16 -> i32"),
    ("regcopy.mma warp %A, %B, %C {transpose_b}",
     (A, BT.replace("4@laneid,2,1@laneid,1", "4@laneid,1,1@laneid,2"), C),
     ("operand B is not a m16n8k16 fragment tile.*expected #regcopy.layout"
     r"<\(8,2,4,2\):\(4@laneid,2,1@laneid,1\)> on 8x16")),
    ("regcopy.mma warp %A, %B, %C {transpose_b}",
     (A, BT, C.replace("(2,4@laneid,1@laneid,1)", "(2,1@laneid,8@laneid,1)")),
     r"operand C .*expected #regcopy.layout<\(2,8,4,2\):\(2,4@laneid,1@laneid,1\)> on 16x8"),
    ("regcopy.mma warp %A, %B, %C {transpose_b}", (A.replace("local", "shared"), BT, C),
     "thread axes|must be a local register tile"),
])
def test_verifier_refusals(op, types, message) -> None:
    with pytest.raises(Exception, match=message):
        parse_module(_kernel(op, types))


def test_tf32_needs_precision() -> None:
    a = A.replace("16x16xf16", "16x8xf32").replace("(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)",
                                                      "(2,8,2,4):(1,4@laneid,2,1@laneid)")
    b = BT.replace("8x16xf16", "8x8xf32").replace("(8,2,4,2):(4@laneid,2,1@laneid,1)",
                                                     "(8,2,4):(4@laneid,1,1@laneid)")
    with pytest.raises(Exception, match="say so with"):
        parse_module(_kernel("regcopy.mma warp %A, %B, %C {transpose_b}", (a, b, C)))
    parse_module(_kernel("regcopy.mma warp %A, %B, %C {transpose_b, precision = tf32}",
                         (a, b, C)))


# ---- the interpreter against numpy ---------------------------------------------------------


def _run(kind, tiles, transpose_b, orders=(None, None, None), seed=0) -> None:
    shape = MMA_KINDS[kind]
    text = mma_kernel(kind, shape, tiles, transpose_b, orders)
    args, want = case_data(kind, shape, tiles, transpose_b, seed)
    for module in (parse_module(text), parse_and_lower(text, "mma.mlir")):
        out = run_on_cpu(module, "mma", args)
        assert np.array_equal(decoded(out[2], kind[2]), want), kind


@pytest.mark.parametrize("kind", KINDS, ids="-".join)
def test_interpreter_every_kind(kind) -> None:
    _run(kind, (2, 1, 2) if BITS[kind[0]] != 8 else (1, 2, 1), transpose_b=kind[0] != "f16")


@settings(max_examples=examples(6, 60))
@given(data=st.data())
def test_interpreter_tiles_and_orders(data) -> None:
    kind = data.draw(st.sampled_from([("f16", "f16", "f32"), ("bf16", "bf16", "f32"),
                                      ("i8", "i8", "i32")]))
    shape = MMA_KINDS[kind]
    tiles = tuple(data.draw(st.integers(1, 3)) for _ in range(3))
    transpose_b = data.draw(st.booleans())
    orders = []
    for operand, t, dims in ((Operand.A, kind[0], (tiles[0], tiles[2])),
                             (Operand.B, kind[1], (tiles[1], tiles[2]) if transpose_b
                              else (tiles[2], tiles[1])),
                             (Operand.C, kind[2], (tiles[0], tiles[1]))):
        n = word_digits(shape, operand, BITS[t], dims)
        orders.append(data.draw(st.permutations(range(n))))
    _run(kind, tiles, transpose_b, tuple(orders), seed=sum(tiles))
