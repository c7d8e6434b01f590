"""``backend/cuda_arith.py`` on vectors and ``i1`` truncations (issue 8), op by op:

* a vector ``arith.select`` prints as a bitwise blend; its mask is integer arithmetic on ``x``
  (``0u - (unsigned)(x & 1)``) when the condition is ``x`` truncated to ``i1`` and the printer
  can name ``x``, else it is built from the ``bool`` condition;
* ``trunci``/``index_cast`` to ``i1`` keep bit 0 (C's ``(bool)x`` would test ``x != 0``);
* bitwise ``and``/``or``/``xor`` on vectors print word by word; other vector arithmetic is
  refused (a 32-bit add is not a lane-wise 16-bit add).
"""

from __future__ import annotations

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerType, VectorType, i1, i16, i32
from xdsl.ir import Block, SSAValue

from regcopy_backend.cuda_arith import ArithError, expression
from regcopy_backend.cuda_types import ctype

V4 = VectorType(i32, [4])
V2H = VectorType(i16, [2])


def _args(*types: object) -> tuple[SSAValue, ...]:
    return tuple(Block(arg_types=list(types)).args)


def test_select_on_a_truncated_bit_blends_with_an_integer_mask() -> None:
    x, a, b = _args(IndexType(), V4, V4)
    cond = arith.IndexCastOp(x, i1)
    select = arith.SelectOp(cond.result, a, b)
    names = {x: "x", cond.result: "c", a: "a", b: "b"}
    text = expression(select, ["c", "a", "b"], ctype, names.__getitem__)
    assert text.count("(0u - (unsigned)(x & 1))") == 4
    assert text.startswith("{b.x ^ ((a.x ^ b.x) & ") and "?" not in text
    # without a way to name x, the mask comes from the bool
    fallback = expression(select, ["c", "a", "b"], ctype)
    assert fallback.count("(0u - (unsigned)c)") == 4 and "x &" not in fallback


def test_select_on_a_comparison_blends_with_the_bool() -> None:
    x, a, b = _args(IndexType(), V4, V4)
    cond = arith.CmpiOp(x, x, "ne")
    select = arith.SelectOp(cond.result, a, b)
    text = expression(select, ["c", "a", "b"], ctype, {x: "x"}.__getitem__)
    assert text.count("(0u - (unsigned)c)") == 4


@pytest.mark.parametrize("source", [IndexType(), IntegerType(32)])
def test_truncation_to_i1_keeps_bit_0(source: object) -> None:
    (x,) = _args(source)
    for op in (arith.IndexCastOp(x, i1),) + ((arith.TruncIOp(x, i1),)
                                             if isinstance(source, IntegerType) else ()):
        assert expression(op, ["x"], ctype) == "(bool)(x & 1)"
    assert expression(arith.IndexCastOp(x, i16), ["x"], ctype) == "(short)x"


def test_bitwise_ops_on_vectors_act_word_by_word() -> None:
    a, b, h, g = _args(V4, V4, V2H, V2H)
    assert expression(arith.XOrIOp(a, b), ["a", "b"], ctype) == \
        "{a.x ^ b.x, a.y ^ b.y, a.z ^ b.z, a.w ^ b.w}"
    assert expression(arith.AndIOp(a, b), ["a", "b"], ctype).count(" & ") == 4
    # two 16-bit lanes in one 32-bit word: a bitwise op on the word is the lane-wise op
    assert expression(arith.OrIOp(h, g), ["h", "g"], ctype) == "(uint32_t)(h | g)"


@pytest.mark.parametrize("op", [arith.AddiOp, arith.MuliOp, arith.ShLIOp])
def test_non_bitwise_vector_arithmetic_is_refused(op: type[arith.AddiOp]) -> None:
    h, g = _args(V2H, V2H)
    with pytest.raises(ArithError, match="bitwise and, or, xor and select only"):
        expression(op(h, g), ["h", "g"], ctype)
