"""The compute ops on the CPU interpreter against numpy: math functions (f32, f64, bf16, f32
vector lanes), fma's single rounding, maximumf/minimumf (NaN, signed zeros), vector.broadcast,
gpu.shuffle in every mode (warp lockstep), a warp reduction carried by scf.for iter_args, and
the one-line errors of a bad shuffle. The same kernels on the GPU: test_compute_gpu.py."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from regcopy_backend.interpreter.engine import KernelError
from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_tools.tolerance import ulp_mismatch
from xdsl.dialects.builtin import BFloat16Type, Float32Type, Float64Type
from xdsl.utils.exceptions import InterpretationError

from regcopy_dialect.context import regcopy_context
from regcopy_dialect.source import parse_located

LAUNCH = "attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>}"
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, 2.0, 100.0, -100.0, 1e-30,
           -88.7, 88.7, 3.0e38, 1e-45]


def values(n: int = 64, scale: float = 4.0) -> np.ndarray:
    rng = np.random.default_rng(7)
    v = (rng.standard_normal(n) * scale).astype(np.float32)
    v[:len(SPECIAL)] = SPECIAL
    return v


def elementwise(op: str, t: str, n: int = 64, arity: int = 1) -> str:
    """Lane l computes ``op`` on elements l and l + 32 of its inputs (X, Y, Z) into O."""
    g = f"memref<{n}x{t}, #regcopy.mem<global>>"
    names = "XYZ"[:arity]
    params = ", ".join(f"%{a}: {g}" for a in (*names, "O"))
    loads = "\n".join(f"    %{a.lower()} = memref.load %{a}[%i] : {g}" for a in names)
    operands = ", ".join(f"%{a.lower()}" for a in names)
    return f"""
func.func @k({params}) {LAUNCH} {{
  %lane = "gpu.lane_id"() : () -> index
  %c32 = arith.constant 32 : index
  %c{n} = arith.constant {n} : index
  scf.for %i = %lane to %c{n} step %c32 {{
{loads}
    %r = {op} {operands} : {t}
    memref.store %r, %O[%i] : {g}
  }}
  func.return
}}"""


def run(text: str, *arrays: np.ndarray) -> list[np.ndarray]:
    module = parse_located(regcopy_context(), text, "k.mlir")
    return run_on_cpu(module, "k", list(arrays))


def same(got: np.ndarray, want: np.ndarray) -> bool:
    """Bit-equal, any NaN equal to any NaN."""
    nan = np.isnan(got) & np.isnan(want)
    return bool(np.all((got.view(np.uint32 if got.itemsize == 4 else np.uint64)
                        == want.view(np.uint32 if want.itemsize == 4 else np.uint64)) | nan))


def bf16(x: np.ndarray) -> np.ndarray:
    """f32 -> bf16 bits, nearest even; NaN as 0x7fff."""
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(x), np.uint16(0x7FFF), r)


def bf16_float(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


def rsqrt(x: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1.0 / np.sqrt(x)


NUMPY: dict[str, Callable[[np.ndarray], np.ndarray]] = {"math.exp": np.exp, "math.exp2": np.exp2, "math.log": np.log, "math.sqrt": np.sqrt,
         "math.rsqrt": rsqrt, "math.tanh": np.tanh}


@pytest.mark.parametrize("op", sorted(NUMPY))
def test_unary_math_f32_is_correctly_rounded(op: str) -> None:
    x = values()
    x[20:40] = np.abs(x[20:40])  # log/sqrt of positive values too
    (_, got) = run(elementwise(op, "f32"), x, np.zeros_like(x))
    with np.errstate(all="ignore"):
        want = NUMPY[op](x.astype(np.float64)).astype(np.float32)
    assert same(got, want), (op, x[got != want], got[got != want], want[got != want])


@pytest.mark.parametrize("op", ["math.exp", "math.log", "math.tanh", "math.rsqrt"])
def test_unary_math_f64_within_an_ulp_of_numpy(op: str) -> None:
    x = values().astype(np.float64)
    (_, got) = run(elementwise(op, "f64"), x, np.zeros_like(x))
    with np.errstate(all="ignore"):
        want = NUMPY[op](x)
    assert ulp_mismatch(got, want, Float64Type(), 1, "cpu", "numpy") is None


def test_math_on_bf16_computes_in_f32_and_rounds_back() -> None:
    x = bf16(values())
    (_, got) = run(elementwise("math.exp", "bf16"), x, np.zeros_like(x))
    with np.errstate(all="ignore"):
        want = bf16(np.exp(bf16_float(x).astype(np.float64)).astype(np.float32))
    assert np.array_equal(got, want)


def test_fma_rounds_once() -> None:
    one_ulp = np.float32(1 + 2**-20)
    a = np.full(64, one_ulp, np.float32)
    c = np.full(64, -np.float32(1 + 2**-19), np.float32)
    rng = np.random.default_rng(3)
    a[1:] = rng.standard_normal(63).astype(np.float32)
    b, c[1:] = a.copy(), rng.standard_normal(63).astype(np.float32)
    (_, _, _, got) = run(elementwise("math.fma", "f32", arity=3), a, b, c, np.zeros_like(a))
    assert got[0] == np.float32(2**-40)  # unfused in f32: a * b rounds to -c, giving 0
    want = (a.astype(np.float64) * b + c).astype(np.float32)
    assert same(got, want)


@pytest.mark.parametrize("op,fn", [("arith.maximumf", max), ("arith.minimumf", min)])
def test_maximumf_minimumf_propagate_nan_and_order_zeros(op: str, fn: object) -> None:
    x = np.array([0.0, -0.0, np.nan, 1.0, -np.inf, 2.0] * 11, np.float32)[:64]
    y = np.array([-0.0, 0.0, 1.0, np.nan, 3.0, -5.0] * 11, np.float32)[:64]
    (_, _, got) = run(elementwise(op, "f32", arity=2), x, y, np.zeros_like(x))
    expect = {"arith.maximumf": [0.0, 0.0, np.nan, np.nan, 3.0, 2.0],
              "arith.minimumf": [-0.0, -0.0, np.nan, np.nan, -np.inf, -5.0]}[op]
    want = np.array(expect * 11, np.float32)[:64]
    assert same(got, want)
    (_, _, hb) = run(elementwise(op, "bf16", arity=2), bf16(x), bf16(y), np.zeros(64, np.uint16))
    assert np.array_equal(hb, bf16(want))


def test_vector_math_and_broadcast_lane_by_lane() -> None:
    g = "memref<128xf32, #regcopy.mem<global>>"
    text = f"""
func.func @k(%V: {g}, %S: memref<32xf32, #regcopy.mem<global>>, %O: {g}) {LAUNCH} {{
  %lane = "gpu.lane_id"() : () -> index
  %c4 = arith.constant 4 : index
  %i = arith.muli %lane, %c4 : index
  %v = vector.load %V[%i] : {g}, vector<4xf32>
  %s = memref.load %S[%lane] : memref<32xf32, #regcopy.mem<global>>
  %b = vector.broadcast %s : f32 to vector<4xf32>
  %e = math.exp %v : vector<4xf32>
  %m = arith.maximumf %e, %b : vector<4xf32>
  %r = math.fma %m, %b, %v : vector<4xf32>
  vector.store %r, %O[%i] : {g}, vector<4xf32>
  func.return
}}"""
    v = values(128, 2.0)
    v[:16] = np.linspace(-3, 3, 16)
    s = np.linspace(-1, 4, 32).astype(np.float32)
    (_, _, got) = run(text, v, s, np.zeros_like(v))
    sb = np.repeat(s, 4).astype(np.float64)
    with np.errstate(all="ignore"):
        e = np.exp(v.astype(np.float64)).astype(np.float32).astype(np.float64)
        m = np.where(np.isnan(e) | np.isnan(sb), np.nan, np.maximum(e, sb))
        want = (m * sb + v).astype(np.float32)
    assert same(got, want)


def shuffle_kernel(mode: str, t: str, offset: str) -> str:
    """Lane l shuffles V[l] with ``offset`` (MLIR text using %lane, an i32) into O, and stores
    its valid bit in P."""
    g = f"memref<32x{t}, #regcopy.mem<global>>"
    return f"""
func.func @k(%V: {g}, %O: {g}, %P: memref<32xi32, #regcopy.mem<global>>) {LAUNCH} {{
  %lane = "gpu.lane_id"() : () -> index
  %l32 = arith.index_cast %lane : index to i32
  %w = arith.constant 32 : i32
  %v = memref.load %V[%lane] : {g}
  %off = {offset}
  %r, %ok = gpu.shuffle {mode} %v, %off, %w : {t}
  memref.store %r, %O[%lane] : {g}
  %p = arith.extui %ok : i1 to i32
  memref.store %p, %P[%lane] : memref<32xi32, #regcopy.mem<global>>
  func.return
}}"""


CONST5 = "arith.constant 5 : i32"
REVERSE = "arith.xori %l32, %w : i32"  # 32 ^ lane: its low five bits are the lane


@pytest.mark.parametrize("mode,offset,source", [
    ("xor", CONST5, lambda lane, b: (lane ^ b, True)),
    ("up", CONST5, lambda lane, b: (lane - b, True) if lane >= b else (lane, False)),
    ("down", CONST5, lambda lane, b: (lane + b, True) if lane + b < 32 else (lane, False)),
    ("idx", REVERSE, lambda lane, b: (b, True)),
])
@pytest.mark.parametrize("t", ["f32", "i32", "bf16"])
def test_shuffle_reads_the_source_lane(mode: str, offset: str, source: object, t: str) -> None:
    dtype = {"f32": np.float32, "i32": np.int32, "bf16": np.uint16}[t]
    v = (np.arange(32) * 7 + 3).astype(dtype)
    (_, got, valid) = run(shuffle_kernel(mode, t, offset), v, np.zeros_like(v),
                          np.zeros(32, np.int32))
    offsets = [5] * 32 if offset == CONST5 else [32 ^ lane for lane in range(32)]
    want = [source(lane, offsets[lane] & 31) for lane in range(32)]  # type: ignore[operator]
    assert got.tolist() == [v[src] for src, _ in want]
    assert valid.tolist() == [int(ok) for _, ok in want]


def test_warp_reduction_carried_by_iter_args() -> None:
    """Butterfly sum and max of 32 lanes: every lane ends with the warp's total."""
    g = "memref<32xi32, #regcopy.mem<global>>"
    text = f"""
func.func @k(%V: {g}, %O: {g}) {LAUNCH} {{
  %lane = "gpu.lane_id"() : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %one = arith.constant 1 : i32
  %w = arith.constant 32 : i32
  %o16 = arith.constant 16 : i32
  %v = memref.load %V[%lane] : {g}
  %sum, %last = scf.for %k = %c0 to %c5 step %c1 iter_args(%a = %v, %off = %o16) -> (i32, i32) {{
    %p, %ok = gpu.shuffle xor %a, %off, %w : i32
    %b = arith.addi %a, %p : i32
    %off1 = arith.shrui %off, %one : i32
    scf.yield %b, %off1 : i32, i32
  }}
  memref.store %sum, %O[%lane] : {g}
  func.return
}}"""
    v = np.random.default_rng(1).integers(-1000, 1000, 32).astype(np.int32)
    (_, got) = run(text, v, np.zeros_like(v))
    assert got.tolist() == [int(v.sum())] * 32


SWAP = f"""
func.func @k(%F: memref<32xi32, #regcopy.mem<global>>, %n: index) {LAUNCH} {{
  %lane = "gpu.lane_id"() : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i32
  %o = arith.constant 1 : i32
  %fa, %fb = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z, %b = %o) -> (i32, i32) {{
    %c = arith.addi %a, %b : i32
    scf.yield %b, %c : i32, i32
  }}
  memref.store %fa, %F[%lane] : memref<32xi32, #regcopy.mem<global>>
  func.return
}}"""
"""Carried values that swap (Fibonacci): the next iteration sees both updated at once."""


def test_carried_values_update_together() -> None:
    module = parse_located(regcopy_context(), SWAP, "k.mlir")
    (got,) = run_on_cpu(module, "k", [np.zeros(32, np.int32), 10])
    assert got.tolist() == [55] * 32


def test_shuffle_width_other_than_32_is_one_line() -> None:
    text = shuffle_kernel("xor", "f32", CONST5).replace("arith.constant 32 : i32",
                                                         "arith.constant 16 : i32")
    with pytest.raises(KernelError) as err:
        run(text, np.zeros(32, np.float32), np.zeros(32, np.float32), np.zeros(32, np.int32))
    message = str(err.value)
    assert "\n" not in message and "k.mlir:" in message and "width must be the constant 32" \
        in message


def test_diverged_shuffle_is_one_line() -> None:
    """Half a warp at a shuffle, the other half returned: an error naming both, no hang."""
    text = shuffle_kernel("xor", "f32", CONST5).replace(
        "  %off = arith.constant 5 : i32\n",
        "  %off = arith.constant 5 : i32\n  %c16 = arith.constant 16 : index\n"
        "  %low = arith.cmpi ult, %lane, %c16 : index\n  scf.if %low {\n"
        "  %x, %x1 = gpu.shuffle xor %v, %off, %w : f32\n"
        "  memref.store %x, %O[%lane] : memref<32xf32, #regcopy.mem<global>>\n  }\n")
    with pytest.raises(InterpretationError) as err:
        run(text, np.zeros(32, np.float32), np.zeros(32, np.float32), np.zeros(32, np.int32))
    message = str(err.value)
    assert "diverged" in message and "gpu.shuffle" in message and "\n" not in message


def test_ulp_tolerance_of_check() -> None:
    """--check's comparison of kernels with approximate math: within k ulps of the type."""
    want = np.array([1.0, 2.0, np.nan, -0.0], np.float32)
    near = np.nextafter(np.nextafter(want, np.float32(np.inf)), np.float32(np.inf))
    near[2:] = [np.nan, 0.0]
    assert ulp_mismatch(near, want, Float32Type(), 2, "gpu", "ref") is None
    assert "differ by more than 1 ulp" in str(ulp_mismatch(near, want, Float32Type(), 1,
                                                          "gpu", "ref"))
    b = bf16(np.array([1.0, 3.0], np.float32))
    assert ulp_mismatch(b + 1, b, BFloat16Type(), 1, "gpu", "ref") is None
    assert ulp_mismatch(b + 2, b, BFloat16Type(), 1, "gpu", "ref") is not None
