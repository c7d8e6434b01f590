"""Epilogue arithmetic: f32 <-> f16/bf16 conversions (round to nearest even), bitcasts, vector
constants, vector shifts and lane-wise ops on 8/16/64-bit lanes, on the CPU interpreter (against
an independent numpy model on edge values) and in the CUDA target (NVRTC, SASS: ``F2F`` for a
scalar and ``F2FP.*.PACK_AB`` for a pair of lanes). ``examples/epilogue.mlir`` runs them
all GPU against CPU (test_gpu.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from copy_harness import parse

from regcopy_backend.cuda.printer import print_cuda
from regcopy_backend.interpreter.driver import make_interpreter
from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble

REPO = Path(__file__).resolve().parents[2]
EPILOGUE = REPO / "examples" / "epilogue.mlir"
F32_MAX = float(np.finfo(np.float32).max)
TINY = float(np.finfo(np.float32).smallest_subnormal)


def f32(bits: int) -> float:
    return float(np.array([bits], dtype=np.uint32).view(np.float32)[0])


EDGES_AS_WRITTEN = [0.0, -0.0, 1.0, -1.5, 1.0 + 2**-8, 1.0 + 3 * 2**-8, 1.0 + 2**-8 + 2**-20,
         f32(0x3F808000), f32(0x3F818000), f32(0x3F80FFFF), TINY, -TINY, f32(0x00018000),
         f32(0x007FFFFF), F32_MAX, -F32_MAX, f32(0x7F7F7FFF), float("inf"), float("-inf"),
         float("nan"), 65504.0, 65520.0, 1e-8, 3.0e-5, 0.1]
EDGES = [float(np.float32(v)) for v in EDGES_AS_WRITTEN]
"""f32 values: ties (even and odd), just above a tie, f32 subnormals (and a subnormal tie),
overflow to inf (F32_MAX rounds up in bf16; 65520 in f16), infinities and NaN."""


def bf16_model(x: float) -> int:
    """Nearest bf16 by exact comparison of the two candidates around ``x`` (no bit trick):
    the truncation and the next bf16 away from zero; on a tie, the even one."""
    if x != x:
        return 0x7FFF
    bits = int(np.array([x], dtype=np.float32).view(np.uint32)[0])
    low = bits & 0xFFFF0000
    if low == bits:
        return bits >> 16
    high = low + 0x10000  # the next bf16 away from zero (its f32 bits)
    # the value of a candidate, with 2^128 (not inf) past the largest finite one: the tie
    # between the largest finite bf16 and 2^128 decides overflow, as IEEE rounding says
    high_value = 2.0**128 if (high & 0x7FFFFFFF) == 0x7F800000 else abs(f32(high))
    d_low, d_high = abs(x) - abs(f32(low)), high_value - abs(x)
    if d_low < d_high or (d_low == d_high and not (low >> 16) & 1):
        return low >> 16
    return (high >> 16) & 0xFFFF


def run(text: str, *args: Any) -> Any:
    return make_interpreter(parse(text)).call_op("f", args)


def truncf(x: float, result: str) -> Any:
    return run(f"func.func @f(%a: f32) -> {result} {{\n  %z = arith.truncf %a : f32 to {result}\n"
               f"  func.return %z : {result}\n}}\n", x)[0]


def test_bf16_rounding_matches_the_model_on_edge_values() -> None:
    for x in EDGES:
        assert truncf(x, "bf16") == bf16_model(x), x


def test_f16_rounding_matches_numpy_on_edge_values() -> None:
    for x in EDGES:
        got = truncf(x, "f16")
        with np.errstate(over="ignore"):
            want = float(np.array([x], dtype=np.float32).astype(np.float16)[0])
        assert (got != got and want != want) or (got == want and np.signbit(got) ==
                                                 np.signbit(want)), x


def test_vector_truncf_extf_and_constants() -> None:
    text = """func.func @f(%a: vector<4xf32>) -> (vector<4xbf16>, vector<4xf32>,
                                              vector<4xf32>) {
  %c = arith.constant dense<[0.5, 2.0, -1.0, 0.1]> : vector<4xf32>
  %m = arith.mulf %a, %c : vector<4xf32>
  %b = arith.truncf %m : vector<4xf32> to vector<4xbf16>
  %e = arith.extf %b : vector<4xbf16> to vector<4xf32>
  %h = arith.truncf %m : vector<4xf32> to vector<4xf16>
  %g = arith.extf %h : vector<4xf16> to vector<4xf32>
  func.return %b, %e, %g : vector<4xbf16>, vector<4xf32>, vector<4xf32>
}
"""
    a = (1.0 + 2**-8, 3.0e38, float("nan"), 10.0)
    b, e, g = run(text, a)
    c = np.array([0.5, 2.0, -1.0, 0.1], dtype=np.float32)
    with np.errstate(over="ignore"):
        m = (np.array(a, dtype=np.float32) * c).tolist()
    assert b == tuple(bf16_model(x) for x in m)
    assert e[:2] == (f32(b[0] << 16), f32(b[1] << 16)) and e[2] != e[2]
    assert g[1] == float("inf") and g[3] == float(np.float16(m[3]))


def test_bitcasts_and_lanewise_integer_ops() -> None:
    results = "i32, bf16, vector<8xi16>, vector<8xi16>, vector<2xi64>, vector<8xbf16>"
    text = """func.func @f(%a: f32, %v: vector<8xi16>, %w: vector<2xi64>) -> (RESULTS) {
  %i = arith.bitcast %a : f32 to i32
  %k = arith.constant 16256 : i16
  %h = arith.bitcast %k : i16 to bf16
  %s = arith.constant dense<[1, 2, 3, 15, 0, 4, 5, 7]> : vector<8xi16>
  %r = arith.shrsi %v, %s : vector<8xi16>
  %l = arith.shli %v, %s : vector<8xi16>
  %p = arith.muli %w, %w : vector<2xi64>
  %q = arith.bitcast %v : vector<8xi16> to vector<8xbf16>
  func.return %i, %h, %r, %l, %p, %q : RESULTS
}
""".replace("RESULTS", results)
    v = (-32768, -1, 12345, -2, 7, 255, -300, 1)
    i, h, r, sl, p, q = run(text, 1.0, v, (2**40 + 3, -(2**33)))
    assert i == 0x3F800000 and h == 16256
    shifts = np.array([1, 2, 3, 15, 0, 4, 5, 7])
    assert r == tuple((np.array(v, dtype=np.int16) >> shifts).tolist())
    assert sl == tuple((np.array(v, dtype=np.int16) << shifts).astype(np.int16).tolist())
    with np.errstate(over="ignore"):
        assert p == tuple((np.array([2**40 + 3, -(2**33)], dtype=np.int64) ** 2).tolist())
    assert q == tuple(x & 0xFFFF for x in v)  # bf16 lanes are their bits


def test_epilogue_compiles_to_the_conversion_instructions() -> None:
    module = parse(EPILOGUE.read_text())
    from regcopy_passes import lower_reg_copy  # noqa: F401 - registers the pass
    from xdsl.context import Context
    from xdsl.passes import PassPipeline

    from regcopy_tools.universe import REGCOPY_UNIVERSE

    PassPipeline.parse_spec(REGCOPY_UNIVERSE.all_passes, "lower-reg-copy").apply(Context(), module)
    source = print_cuda(module)
    assert "cvt.rn.bf16x2.f32" in source and "cvt.rn.f16x2.f32" in source
    compiled = compile_cuda(source)
    assert not compiled.warnings
    sass = disassemble(compiled.cubin)
    assert sass.count("F2FP.BF16.F32.PACK_AB") == 16  # 2 x 16 lanes, two a cvt
    assert sass.count("F2FP.F16.F32.PACK_AB") == 8
    assert "F2F.BF16.F32" in sass  # the scalar truncf
    assert "LDL" not in sass and "STL" not in sass


@pytest.mark.parametrize("op,t", [("arith.divsi", "vector<4xi32>"),
                                  ("arith.addf", "vector<8xf16>")])
def test_unsupported_vector_ops_are_one_line_errors(op: str, t: str) -> None:
    from regcopy_backend.cuda.function import CudaEmitError

    elem = t[t.index("x") + 1:-1]
    module = parse(f"""func.func @f(%m: memref<8x{elem}>) {{
  %c0 = arith.constant 0 : index
  %a = vector.load %m[%c0] : memref<8x{elem}>, {t}
  %z = {op} %a, %a : {t}
  vector.store %z, %m[%c0] : memref<8x{elem}>, {t}
  func.return
}}
""")
    with pytest.raises(CudaEmitError, match=f"{op}.*not supported by the CUDA target"):
        print_cuda(module)
