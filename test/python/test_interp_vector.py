"""Vectors in the CPU interpreter (``interp_vector``, ``interp_arith.run_lanes``): arith lane
by lane with each op's scalar semantics (wrap-around, f32/f16 rounding, refusals),
``vector.bitcast`` through the buffers' element encodings, one-line errors, and the scalar
f32 ops rounded like the lanes."""

from __future__ import annotations

import struct
from typing import Any

import numpy as np
import pytest
from copy_harness import parse
from xdsl.utils.exceptions import InterpretationError

from regcopy_backend.interpreter.arith import round_f16, round_f32
from regcopy_backend.interpreter.driver import KernelError, make_interpreter

I32_MAX, I32_MIN = 2**31 - 1, -(2**31)


def run(body: str, args: dict[str, tuple[str, Any]], results: list[tuple[str, str]]
        ) -> tuple[Any, ...]:
    """Call ``@f`` with ``args`` (name -> (type, value)), ``body``, returning ``results``
    (name, type)."""
    params = ", ".join(f"%{n}: {t}" for n, (t, _) in args.items())
    outs = ", ".join(t for _, t in results)
    text = (f"func.func @f({params}) -> ({outs}) {{\n{body}\n"
            f"  func.return {', '.join('%' + n for n, _ in results)} : {outs}\n}}\n")
    interp = make_interpreter(parse(text))
    return interp.call_op("f", tuple(v for _, v in args.values()))


def binary(op: str, t: str, a: tuple[Any, ...], b: tuple[Any, ...]) -> tuple[Any, ...]:
    (z,) = run(f"  %z = {op} %a, %b : {t}", {"a": (t, a), "b": (t, b)}, [("z", t)])
    return z


def bitcast(value: tuple[Any, ...], source: str, result: str) -> tuple[Any, ...]:
    (z,) = run(f"  %z = vector.bitcast %a : {source} to {result}", {"a": (source, value)},
               [("z", result)])
    return z


# ---- integer lanes -------------------------------------------------------------------------


def test_i32_lanes_wrap_around_like_the_scalar_ops() -> None:
    a, b = (I32_MAX, I32_MIN, -5, 1 << 20), (1, -1, 3, 1 << 12)
    assert binary("arith.addi", "vector<4xi32>", a, b) == (I32_MIN, I32_MAX, -2, 1052672)
    assert binary("arith.subi", "vector<4xi32>", a, b) == (I32_MAX - 1, I32_MIN + 1, -8, 1044480)
    assert binary("arith.muli", "vector<4xi32>", a, b) == (I32_MAX, I32_MIN, -15, 0)
    assert binary("arith.xori", "vector<4xi32>", a, b) == (I32_MAX - 1, I32_MAX, -8,
                                                           (1 << 20) | (1 << 12))
    scalar = binary("arith.muli", "i32", I32_MAX, 3)  # type: ignore[arg-type]
    assert binary("arith.muli", "vector<1xi32>", (I32_MAX,), (3,)) == (scalar,)


def test_narrow_lanes_wrap_to_their_own_width() -> None:
    assert binary("arith.addi", "vector<8xi16>", (32767, -32768, 1, 2, 3, 4, 5, -1),
                  (1, -1, 1, 1, 1, 1, 1, 1)) == (-32768, 32767, 2, 3, 4, 5, 6, 0)
    assert binary("arith.muli", "vector<4xi8>", (16, -128, 3, 127), (16, -1, -3, 2)) == \
        (0, -128, -9, -2)
    assert binary("arith.shli", "vector<2xi64>", (1, -1), (63, 1)) == (-(2**63), -2)


def test_ops_of_every_scalar_implementation_run_lane_by_lane() -> None:
    """xDSL's (floordivsi), interp_arith's extra (maxui) and fast (divui, remsi) ones."""
    t = "vector<4xi32>"
    a, b = (-7, 7, -1, 10), (2, -2, 3, 3)
    assert binary("arith.floordivsi", t, a, b) == (-4, -4, -1, 3)
    assert binary("arith.maxui", t, a, b) == (-7, -2, -1, 10)  # -2 is 2^32 - 2 unsigned
    assert binary("arith.divui", t, (-2, 7, 9, 10), (2, 2, 3, 3)) == (I32_MAX, 3, 3, 3)
    assert binary("arith.remsi", t, a, b) == (-1, 1, -1, 1)


def test_vector_cmpi_compares_lane_by_lane() -> None:
    t = "vector<4xi32>"
    (z,) = run(f"  %z = arith.cmpi ult, %a, %b : {t}", {"a": (t, (1, -1, 5, 0)),
                                                         "b": (t, (2, 1, 5, -1))}, [("z", "i1")])
    assert z == (True, False, False, True)


def test_select_with_a_scalar_condition_picks_a_whole_vector() -> None:
    t = "vector<2xi32>"
    for cond, want in ((True, (1, 2)), (False, (3, 4))):
        (z,) = run(f"  %z = arith.select %c, %a, %b : {t}",
                   {"c": ("i1", cond), "a": (t, (1, 2)), "b": (t, (3, 4))}, [("z", t)])
        assert z == want


# ---- float lanes ---------------------------------------------------------------------------


def _f32(x: float) -> float:
    return float(np.float32(x))


def test_f32_lanes_round_to_f32_like_numpy() -> None:
    rng = np.random.default_rng(5)
    a = rng.standard_normal(4).astype(np.float32) * np.float32(1e3)
    b = rng.standard_normal(4).astype(np.float32)
    t = "vector<4xf32>"
    for op, fn in (("arith.addf", np.add), ("arith.subf", np.subtract),
                   ("arith.mulf", np.multiply)):
        got = binary(op, t, tuple(a.tolist()), tuple(b.tolist()))
        assert got == tuple(fn(a, b).tolist()), op  # numpy float32 arithmetic: IEEE single
    big = binary("arith.mulf", "vector<2xf32>", (3e38, -3e38), (2.0, 1.0))
    assert big == (float("inf"), _f32(-3e38))


def test_f16_lanes_round_to_f16_and_f64_lanes_do_not_round() -> None:
    h = binary("arith.addf", "vector<3xf16>", (1.0, 65504.0, 65504.0), (2.0**-11, 8.0, 16.0))
    assert h == (1.0, 65504.0, float("inf"))  # ties to even: 1 + 2^-11 -> 1, 65520 -> inf
    assert binary("arith.addf", "vector<2xf64>", (1.0, 0.1), (2.0**-40, 0.2)) == \
        (1.0 + 2.0**-40, 0.1 + 0.2)


def test_scalar_f32_ops_round_like_the_lanes() -> None:
    x, y = _f32(1.1), _f32(3.3)
    (z,) = run("  %z = arith.mulf %a, %b : f32", {"a": ("f32", x), "b": ("f32", y)},
               [("z", "f32")])
    assert z == _f32(x * y) == binary("arith.mulf", "vector<1xf32>", (x,), (y,))[0]
    assert z != x * y  # the f64 product is not an f32 value


def test_divf_is_ieee_division_rounded_to_the_type() -> None:
    """``divf`` (scalar and lanes) rounds like numpy's float32 division; by zero it gives a
    signed infinity, ``0/0`` NaN, never a Python ZeroDivisionError."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal(4).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    got = binary("arith.divf", "vector<4xf32>", tuple(a.tolist()), tuple(b.tolist()))
    assert got == tuple((a / b).tolist())
    (z,) = run("  %z = arith.divf %a, %b : f32", {"a": ("f32", 1.0), "b": ("f32", 3.0)},
               [("z", "f32")])
    assert z == _f32(1.0 / 3.0) and z != 1.0 / 3.0
    by_zero = binary("arith.divf", "vector<4xf32>", (1.0, -1.0, 0.0, 2.0), (0.0, 0.0, 0.0, -0.0))
    assert by_zero[:2] == (float("inf"), float("-inf")) and by_zero[2] != by_zero[2]
    assert by_zero[3] == float("-inf")


def test_float_constants_are_rounded_to_their_type() -> None:
    """``arith.constant 0.1 : f32`` is the f32 nearest 0.1 (as the CUDA literal ``0.1f``);
    an f64 constant keeps its double."""
    (s, h, d) = run("  %s = arith.constant 0.1 : f32\n  %h = arith.constant 0.1 : f16\n"
                    "  %d = arith.constant 0.1 : f64", {}, [("s", "f32"), ("h", "f16"),
                                                         ("d", "f64")])
    assert s == _f32(0.1) != 0.1
    assert h == float(np.float16(0.1))
    assert d == 0.1


@pytest.mark.parametrize("x", [0.0, -0.0, 1e-45, 3.4028235e38, 3.4028236e38, 1e39, -1e39,
                               float("inf"), 1.0000001])
def test_round_f32_is_numpys(x: float) -> None:
    with np.errstate(over="ignore"):
        want = float(np.float32(x))
    assert struct.pack("<d", round_f32(x)) == struct.pack("<d", want)


@pytest.mark.parametrize("x", [65504.0, 65519.0, 65520.0, 1e6, 2.0**-25, 1.0 + 2.0**-11])
def test_round_f16_is_numpys(x: float) -> None:
    with np.errstate(over="ignore"):
        want = float(np.float16(x))
    assert round_f16(x) == want


# ---- vector.bitcast ------------------------------------------------------------------------


def test_bitcast_i16x8_to_i32x4_and_back() -> None:
    h = (32767, -1, 2, 3, 4, 5, 6, -32768)
    w = bitcast(h, "vector<8xi16>", "vector<4xi32>")
    assert w == (-32769, (3 << 16) | 2, (5 << 16) | 4, -2147483642)  # little-endian
    assert w == tuple(np.array(h, dtype="<i2").view("<i4").tolist())
    assert bitcast(w, "vector<4xi32>", "vector<8xi16>") == h


def test_bitcast_f32x4_to_i32x4_gives_the_ieee_bits_and_back() -> None:
    f = (1.0, -2.5, float("inf"), _f32(0.1))
    bits = bitcast(f, "vector<4xf32>", "vector<4xi32>")
    assert bits == (0x3F800000, -0x3FE00000, 0x7F800000, 0x3DCCCCCD)
    assert bitcast(bits, "vector<4xi32>", "vector<4xf32>") == f
    patterns = (0x7FC00001, -1, 1, 0x00800000)  # a quiet NaN payload, -NaN, denormal, normal
    assert bitcast(bitcast(patterns, "vector<4xi32>", "vector<4xf32>"), "vector<4xf32>",
                   "vector<4xi32>") == patterns


def test_bitcast_of_raw_bit_and_unsigned_lanes() -> None:
    """bf16 and fp8 lanes are raw bits (unsigned), ``ui`` lanes unsigned, f16 IEEE half."""
    assert bitcast((0x3F80, 0xBF80), "vector<2xbf16>", "vector<1xi32>") == (-0x407FC080,)
    assert bitcast((-1,), "vector<1xi32>", "vector<4xf8E4M3FN>") == (255, 255, 255, 255)
    assert bitcast((1.0, -2.0), "vector<2xf16>", "vector<2xui16>") == (0x3C00, 0xC000)
    assert bitcast((0x3C00, 0xC000), "vector<2xui16>", "vector<2xf16>") == (1.0, -2.0)


# ---- errors --------------------------------------------------------------------------------


def _error(body: str, args: dict[str, tuple[str, Any]], results: list[tuple[str, str]]) -> str:
    with pytest.raises(InterpretationError) as e:
        run(body, args, results)
    assert "\n" not in str(e.value)
    assert isinstance(e.value, KernelError)  # located: the op, the thread
    return str(e.value.error)


def test_arithmetic_on_bf16_lanes_is_a_one_line_error() -> None:
    t = "vector<4xbf16>"
    message = _error(f"  %z = arith.addf %a, %b : {t}", {"a": (t, (1, 2, 3, 4)),
                                                          "b": (t, (1, 2, 3, 4))}, [("z", t)])
    assert message == ("arith.addf on vector<4xbf16>: arith.addf on bf16 is not supported by "
                       "the interpreter (f64, f32 and f16 only; bf16 and fp8 values are raw "
                       "bit patterns here)")


def test_a_failing_lane_is_a_one_line_error() -> None:
    t = "vector<2xi32>"
    message = _error(f"  %z = arith.divsi %a, %b : {t}", {"a": (t, (1, 2)), "b": (t, (1, 0))},
                     [("z", t)])
    assert message == "arith.divsi on vector<2xi32>: arith.divsi by zero"


def test_an_op_without_an_implementation_is_a_one_line_error() -> None:
    t = "vector<2xi32>"
    message = _error(f"  %z, %o = arith.addui_extended %a, %b : {t}, vector<2xi1>",
                     {"a": (t, (1, 2)), "b": (t, (1, 2))}, [("z", t)])
    assert "arith.addui_extended" in message


def test_bitcast_of_i1_lanes_is_a_one_line_error() -> None:
    message = _error("  %z = vector.bitcast %a : vector<8xi1> to vector<1xi8>",
                     {"a": ("vector<8xi1>", (True,) * 8)}, [("z", "vector<1xi8>")])
    assert message == ("vector.bitcast from vector<8xi1> to vector<1xi8>: i1 lanes (source) "
                       "have no bytes in the interpreter")


def test_bitcast_of_a_non_number_is_a_one_line_error() -> None:
    message = _error("  %z = vector.bitcast %a : vector<2xf32> to vector<2xi32>",
                     {"a": ("vector<2xf32>", ("tag", 1.0))}, [("z", "vector<2xi32>")])
    assert message.startswith("vector.bitcast from vector<2xf32> to vector<2xi32>: a lane is "
                              "not a f32 value")
