"""``backend/cuda/arith.py`` on vectors and ``i1`` truncations (issue 8), op by op:

* a vector ``arith.select`` prints as a bitwise blend; its mask is integer arithmetic on ``x``
  (``0u - (unsigned)(x & 1)``) when the condition is ``x`` truncated to ``i1`` and the printer
  can name ``x``, else it is built from the ``bool`` condition;
* ``trunci``/``index_cast`` to ``i1`` keep bit 0 (C's ``(bool)x`` would test ``x != 0``);
* bitwise ``and``/``or``/``xor`` on vectors print word by word;
* ``addi``/``subi``/``muli`` on ``i32`` lanes and ``addf``/``subf``/``mulf`` on ``f32`` lanes
  print lane by lane (one lane per 32-bit word; f32 through ``__uint_as_float`` and the
  ``__f*_rn`` intrinsics); other vector arithmetic is refused with what is supported (a 32-bit
  add is not a lane-wise 16-bit add);
* ``vector.bitcast`` between vectors of one size is the value itself.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache

import pytest
from copy_harness import parse
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    IndexType,
    IntegerType,
    VectorType,
    f32,
    i1,
    i8,
    i16,
    i32,
    i64,
)
from xdsl.ir import Block, SSAValue

from regcopy_backend.cuda.printer import CudaEmitError, print_cuda
from regcopy_backend.cuda.arith import ArithError, bitcast_expression, expression
from regcopy_backend.cuda.types import ctype
from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
from regcopy_backend.cuda.spills import kernel_sass

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


@pytest.mark.parametrize(("op", "c_op"), [(arith.AddiOp, "+"), (arith.SubiOp, "-"),
                                          (arith.MuliOp, "*")])
def test_integer_arithmetic_on_i32_lanes_is_word_by_word(op: type[arith.AddiOp],
                                                         c_op: str) -> None:
    a, b, p, q, s, t = _args(V4, V4, VectorType(i32, [2]), VectorType(i32, [2]),
                             VectorType(i32, [1]), VectorType(i32, [1]))
    assert expression(op(a, b), ["a", "b"], ctype) == \
        f"{{a.x {c_op} b.x, a.y {c_op} b.y, a.z {c_op} b.z, a.w {c_op} b.w}}"
    assert expression(op(p, q), ["p", "q"], ctype) == f"{{p.x {c_op} q.x, p.y {c_op} q.y}}"
    assert expression(op(s, t), ["s", "t"], ctype) == f"s {c_op} t"  # uint32_t: unsigned


@pytest.mark.parametrize(("op", "fn"), [(arith.AddfOp, "__fadd_rn"), (arith.SubfOp, "__fsub_rn"),
                                        (arith.MulfOp, "__fmul_rn")])
def test_float_arithmetic_on_f32_lanes_goes_through_the_float_bits(op: type[arith.AddfOp],
                                                                   fn: str) -> None:
    a, b, s, t = _args(VectorType(f32, [4]), VectorType(f32, [4]), VectorType(f32, [1]),
                       VectorType(f32, [1]))
    word = "__float_as_uint({fn}(__uint_as_float(a{w}), __uint_as_float(b{w})))"
    assert expression(op(a, b), ["a", "b"], ctype) == \
        "{" + ", ".join(word.format(fn=fn, w=w) for w in (".x", ".y", ".z", ".w")) + "}"
    assert expression(op(s, t), ["a", "b"], ctype) == word.format(fn=fn, w="")


@pytest.mark.parametrize(("op", "lanes"), [
    (arith.DivSIOp, V4),
    (arith.RemUIOp, VectorType(i16, [8])),
    (arith.AddfOp, VectorType(Float16Type(), [8])),
    (arith.MulfOp, VectorType(BFloat16Type(), [4])),
    (arith.DivfOp, VectorType(Float16Type(), [4])),
])
def test_other_vector_arithmetic_is_refused_with_what_is_supported(
        op: type[arith.AddiOp], lanes: VectorType) -> None:
    a, b = _args(lanes, lanes)
    with pytest.raises(ArithError) as e:
        expression(op(a, b), ["a", "b"], ctype)
    message = str(e.value)
    assert message.startswith(f"on {lanes} is not supported by the CUDA target: ")
    assert "select (any lanes)" in message
    assert "shrsi (8- to 64-bit integer lanes)" in message and "(f32 lanes)" in message
    assert "truncf f32 -> f16/bf16 and extf back" in message


@pytest.mark.parametrize(("op", "lanes"), [
    (arith.AddiOp, VectorType(i16, [2])),     # two 16-bit lanes in one word
    (arith.MuliOp, VectorType(i8, [4])),
    (arith.SubiOp, VectorType(i64, [2])),
    (arith.ShLIOp, V4),
    (arith.DivfOp, VectorType(f32, [4])),
])
def test_lanewise_vector_arithmetic_packs_its_lanes(op: type[arith.AddiOp],
                                                    lanes: VectorType) -> None:
    a, b = _args(lanes, lanes)
    text = expression(op(a, b), ["a", "b"], ctype)
    assert text.startswith(f"({ctype(lanes)})(") or text.startswith(f"{ctype(lanes)}{{")


def test_select_with_a_vector_condition_is_refused() -> None:
    c, a, b = _args(VectorType(i1, [4]), V4, V4)
    with pytest.raises(ArithError, match="with a vector condition"):
        expression(arith.SelectOp(c, a, b), ["c", "a", "b"], ctype)


@pytest.mark.parametrize(("source", "result"), [
    (VectorType(i16, [8]), V4), (V4, VectorType(Float32Type(), [4])),
    (VectorType(Float16Type(), [4]), VectorType(i32, [2])),
    (VectorType(i8, [4]), VectorType(i32, [1])),
    (VectorType(i8, [2]), VectorType(i16, [1])),
])
def test_bitcast_of_one_size_is_the_value_itself(source: VectorType, result: VectorType) -> None:
    assert bitcast_expression(source, result, "a") == "a"
    assert ctype(source) == ctype(result)  # one transfer type: `const uint4 b = a;`


@pytest.mark.parametrize(("source", "result", "why"), [
    (VectorType(i16, [4]), V4, "8 bytes) to vector<4xi32> (16 bytes)"),
    (VectorType(i1, [32]), V4, "i1 lanes have no fixed bytes"),
    (VectorType(IndexType(), [2]), VectorType(IndexType(), [2]), "index lanes"),
    (VectorType(i32, [3]), VectorType(i8, [12]), "12 bytes"),
])
def test_bitcast_refusals_say_why(source: VectorType, result: VectorType, why: str) -> None:
    with pytest.raises(ArithError, match="is not supported by the CUDA target") as e:
        bitcast_expression(source, result, "a")
    assert why in str(e.value)


# --------------------------------------------------------------------------------------------
# Whole kernels: the printed lines, NVRTC and SASS (no GPU needed)
# --------------------------------------------------------------------------------------------

G = "#regcopy.mem<global>"


def _kernel(body: str, x: str = "i32", y: str = "i32", n: int = 4, m: int = 4,
            out: str = "i32", y_row: int | None = None) -> str:
    """``@k``: thread t loads ``%x`` (vector<n x x>) and ``%y`` (vector<m x y>) at row t of
    ``%X``/``%Y`` (rows of ``y_row`` elements, default ``m``), runs ``body`` and stores ``%z``
    (vector<4 x out>) to row t of ``%Z``."""
    row = y_row or m
    return f"""func.func @k(%X: memref<64x{n}x{x}, {G}>, %Y: memref<64x{row}x{y}, {G}>,
                 %Z: memref<64x4x{out}, {G}>)
    attributes {{regcopy.launch = #regcopy.launch<block = 64, grid = [1]>}} {{
  %t = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %c0 = arith.constant 0 : index
  %x = vector.load %X[%t, %c0] : memref<64x{n}x{x}, {G}>, vector<{n}x{x}>
  %y = vector.load %Y[%t, %c0] : memref<64x{row}x{y}, {G}>, vector<{m}x{y}>
{body}
  vector.store %z, %Z[%t, %c0] : memref<64x4x{out}, {G}>, vector<4x{out}>
  func.return
}}
"""


def _cuda(text: str) -> str:
    return print_cuda(parse(text))


def _sass(text: str) -> Counter[str]:
    """Opcodes (with their modifiers) of the SASS of ``text``, one of ``SASS_KERNELS``: all of
    them are one module (kernels ``@k0``, ``@k1``, ...; ptxas allocates each alone), compiled
    and disassembled once (``_listing``)."""
    assert text in SASS_KERNELS, "add the kernel to SASS_KERNELS"
    k = SASS_KERNELS.index(text)
    sass = kernel_sass(_listing(), f"k{k}")
    assert sass != _listing(), f"no kernel k{k} in the listing"
    return Counter(re.findall(r"^\s+/\*[0-9a-f]+\*/\s+(?:@!?P\w+\s+)?([A-Z][A-Z0-9_.]*)", sass,
                              re.M))


@cache
def _listing() -> str:
    """The SASS of every kernel of ``SASS_KERNELS``, as one module."""
    module = "".join(text.replace("func.func @k(", f"func.func @k{k}(", 1)
                     for k, text in enumerate(SASS_KERNELS))
    return disassemble(compile_cuda(_cuda(module)).cubin)


def _kind(ops: Counter[str], head: str) -> int:
    return sum(c for op, c in ops.items() if op.split(".")[0] == head)


CONVERSIONS = ("I2F", "F2I", "F2F", "I2I", "FRND", "F2FP")

ADDF = _kernel("  %z = arith.addf %x, %y : vector<4xf32>", "f32", "f32", out="f32")
MULI = _kernel("  %z = arith.muli %x, %y : vector<4xi32>")
ADDI = _kernel("  %z = arith.addi %x, %y : vector<4xi32>")
BITCAST_ADDI = _kernel("  %w = vector.bitcast %y : vector<8xi16> to vector<4xi32>\n"
                       "  %z = arith.addi %x, %w : vector<4xi32>", y="i16", m=8)
MUL_ADD = _kernel("  %p = arith.mulf %x, %y : vector<4xf32>\n"
                  "  %z = arith.addf %p, %x : vector<4xf32>", "f32", "f32", out="f32")
ADDI_ROW8 = _kernel("  %z = arith.addi %x, %y : vector<4xi32>", y_row=8)
BITCAST_CHAIN = _kernel("  %f = vector.bitcast %y : vector<8xi16> to vector<4xf32>\n"
                        "  %b = vector.bitcast %f : vector<4xf32> to vector<16xi8>\n"
                        "  %w = vector.bitcast %b : vector<16xi8> to vector<4xi32>\n"
                        "  %z = arith.addi %x, %w : vector<4xi32>", y="i16", m=8)
SASS_KERNELS = [ADDF, MUL_ADD, MULI, ADDI, ADDI_ROW8, BITCAST_ADDI, BITCAST_CHAIN]
"""The kernels whose SASS the tests read (``_sass``)."""


def test_printed_lines_of_a_bitcast_kernel() -> None:
    source = _cuda(BITCAST_ADDI)
    assert "  const uint4 w = y;\n" in source
    assert "  const uint4 z = {x.x + w.x, x.y + w.y, x.z + w.z, x.w + w.w};\n" in source
    assert "#include" not in source
    f32 = _cuda(ADDF)
    assert ("const uint4 z = {__float_as_uint(__fadd_rn(__uint_as_float(x.x), "
            "__uint_as_float(y.x))), ") in f32


def test_a_refused_vector_op_names_the_op_and_its_line() -> None:
    text = _kernel("  %w = arith.remui %y, %y : vector<8xi16>\n"
                   "  %z = vector.bitcast %w : vector<8xi16> to vector<4xi32>", y="i16", m=8)
    with pytest.raises(CudaEmitError) as e:
        _cuda(text)
    first = str(e.value).splitlines()[0]
    assert first.startswith("'arith.remui' op on vector<8xi16> is not supported by the CUDA "
                            "target: vectors take select (any lanes)")


def test_f32_vector_addf_is_four_fadd_and_no_conversion() -> None:
    ops = _sass(ADDF)
    assert ops["FADD"] == 4 and ops["LDG.E.128"] + ops["LDG.E.128.CONSTANT"] == 2
    assert ops["STG.E.128"] == 1
    assert not any(_kind(ops, c) for c in CONVERSIONS)
    assert _kind(ops, "LDL") == _kind(ops, "STL") == 0


def test_f32_vector_mulf_then_addf_is_never_contracted() -> None:
    """MLIR's mulf + addf round twice; `*` then `+` in C would become one FFMA."""
    ops = _sass(MUL_ADD)
    assert ops["FMUL"] == 4 and ops["FADD"] == 4 and _kind(ops, "FFMA") == 0


def test_i32_vector_muli_is_imad_per_lane() -> None:
    muli, addi = _sass(MULI), _sass(ADDI)
    # same address math in both kernels: 4 lane IMAD in place of 4 lane IADD3
    assert muli["IMAD"] == 4 and addi["IADD3"] == 4
    assert muli - Counter({"IMAD": 4}) == addi - Counter({"IADD3": 4})
    assert _kind(muli, "LDL") == _kind(muli, "STL") == 0


def test_bitcast_costs_no_instruction() -> None:
    """A vector<8xi16> bitcast to vector<4xi32> and added: the same SASS as adding a
    vector<4xi32> loaded from a row of the same stride (8 elements), and a chain of bitcasts
    (i16 -> f32 -> i8 -> i32) the same again."""
    plain = _sass(ADDI_ROW8)
    with_bitcast = _sass(BITCAST_ADDI)
    chain = _sass(BITCAST_CHAIN)
    assert with_bitcast == plain == chain
    assert plain["IADD3"] == 4 and _kind(plain, "LDL") == _kind(plain, "STL") == 0


def test_broadcast_of_an_i32_fills_every_word() -> None:
    # vector.broadcast (the lane bits of a rotation's multiply-add swaps): the CUDA target
    # repeats the word, the interpreter the lane; anything but i32 -> vector<1|2|4 x i32> is
    # refused with what is supported
    from regcopy_backend.cuda.arith import broadcast_expression
    from regcopy_backend.interpreter.vector import VectorFunctions

    i32 = IntegerType(32)
    assert broadcast_expression(i32, VectorType(i32, [4]), "x") == \
        "{(unsigned)x, (unsigned)x, (unsigned)x, (unsigned)x}"
    assert broadcast_expression(i32, VectorType(i32, [2]), "x") == "{(unsigned)x, (unsigned)x}"
    assert broadcast_expression(i32, VectorType(i32, [1]), "x") == "(unsigned)x"
    with pytest.raises(ArithError, match="broadcasts an i32"):
        broadcast_expression(IntegerType(16), VectorType(IntegerType(16), [8]), "x")
    assert hasattr(VectorFunctions, "run_broadcast")
