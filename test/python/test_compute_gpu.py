"""The compute ops on the GPU against the CPU interpreter: math functions within CUDA's ulp
bounds (sqrt and fma bit-exact), maximumf/minimumf and gpu.shuffle bit-exact, and
examples/softmax.mlir against numpy at bandwidth-sized ragged shapes, plus a short run of
bench_softmax. Skipped, with the reason, without a GPU."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from regcopy_backend.cuda.kernel_info import kernel_info, kernels
from regcopy_backend.cuda.printer import print_cuda
from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_backend.runtime.runner import gpu_available, run_kernel
from regcopy_tools.regcopy_run import parse_and_lower
from regcopy_tools.tolerance import ulp_mismatch
from test_compute_ops import (
    CONST5,
    REVERSE,
    SWAP,
    bf16,
    bf16_float,
    elementwise,
    shuffle_kernel,
    values,
)
from xdsl.dialects.builtin import Float32Type

HAS_GPU, WHY = gpu_available()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not HAS_GPU, reason=WHY)]
SOFTMAX = Path(__file__).resolve().parents[2] / "examples" / "softmax.mlir"


def gpu_and_cpu(text: str, args: list[np.ndarray | int], grid: list[int] | None = None
                ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The buffers after a GPU run and a CPU run of the one kernel of ``text`` (lowered)."""
    module = parse_and_lower(text, "k.mlir")
    info = kernel_info(kernels(module)[0])

    def fresh() -> list[np.ndarray | int]:
        return [a.copy() if isinstance(a, np.ndarray) else a for a in args]

    gpu = run_kernel(print_cuda(module), info, fresh(), grid=grid).arrays
    cpu = run_on_cpu(module, info.name, fresh(), grid)
    return gpu, cpu


@pytest.mark.parametrize("op,ulps", [
    ("math.exp", 2), ("math.exp2", 2), ("math.log", 1), ("math.sqrt", 0), ("math.rsqrt", 2),
    ("math.tanh", 2)])
def test_unary_math_within_cuda_bounds(op: str, ulps: int) -> None:
    x = values()
    x[20:40] = np.abs(x[20:40])
    gpu, cpu = gpu_and_cpu(elementwise(op, "f32"), [x, np.zeros_like(x)])
    assert ulp_mismatch(gpu[1], cpu[1], Float32Type(), ulps, "gpu", "cpu") is None


def test_fma_and_minmax_bit_exact() -> None:
    x, y, z = values(), values()[::-1].copy(), np.roll(values(), 5)
    gpu, cpu = gpu_and_cpu(elementwise("math.fma", "f32", arity=3), [x, y, z, np.zeros_like(x)])
    assert ulp_mismatch(gpu[3], cpu[3], Float32Type(), 0, "gpu", "cpu") is None
    for op in ("arith.maximumf", "arith.minimumf"):
        gpu, cpu = gpu_and_cpu(elementwise(op, "f32", arity=2), [x, y, np.zeros_like(x)])
        assert ulp_mismatch(gpu[2], cpu[2], Float32Type(), 0, "gpu", "cpu") is None
        gpu, cpu = gpu_and_cpu(elementwise(op, "bf16", arity=2),
                               [bf16(x), bf16(y), np.zeros(64, np.uint16)])
        assert np.array_equal(gpu[2], cpu[2])


@pytest.mark.parametrize("mode,offset", [("xor", CONST5), ("up", CONST5), ("down", CONST5),
                                         ("idx", REVERSE)])
@pytest.mark.parametrize("t", ["f32", "i32", "bf16", "f64"])
def test_shuffle_bit_exact(mode: str, offset: str, t: str) -> None:
    dtype = {"f32": np.float32, "i32": np.int32, "bf16": np.uint16, "f64": np.float64}[t]
    v = (np.arange(32) * 7 + 3).astype(dtype)
    gpu, cpu = gpu_and_cpu(shuffle_kernel(mode, t, offset),
                           [v, np.zeros_like(v), np.zeros(32, np.int32)])
    assert np.array_equal(gpu[1], cpu[1]) and np.array_equal(gpu[2], cpu[2])


def test_carried_values_update_together() -> None:
    gpu, cpu = gpu_and_cpu(SWAP, [np.zeros(32, np.int32), 10])
    assert gpu[0].tolist() == cpu[0].tolist() == [55] * 32


@pytest.mark.parametrize("m,n", [(37, 1001), (8, 4096), (13, 4093), (4, 17)])
def test_softmax_example_matches_numpy(m: int, n: int) -> None:
    rng = np.random.default_rng(n)
    x = bf16((rng.standard_normal((m, n)) * 4).astype(np.float32))
    module = parse_and_lower(SOFTMAX.read_text(), str(SOFTMAX))
    info = kernel_info(kernels(module)[0])
    y = run_kernel(print_cuda(module), info, [x, np.zeros_like(x)], grid=[-(-m // 4)]).arrays[1]
    xf = bf16_float(x).astype(np.float64)
    want = np.exp(xf - xf.max(axis=1, keepdims=True))
    want /= want.sum(axis=1, keepdims=True)
    got = bf16_float(y)
    assert np.all(np.abs(got - want) <= 2.0 ** -7 * want + 1e-30), np.abs(got - want).max()


def test_layernorm_example_matches_numpy() -> None:
    from test_softmax_example import LAYERNORM, layernorm_reference

    m, n = 37, 1000
    rng = np.random.default_rng(6)
    x = bf16((rng.standard_normal((m, n)) * 2 + 1).astype(np.float32))
    g = bf16(rng.uniform(0.5, 1.5, n).astype(np.float32))
    b = bf16(rng.standard_normal(n).astype(np.float32))
    module = parse_and_lower(LAYERNORM.read_text(), str(LAYERNORM))
    info = kernel_info(kernels(module)[0])
    y = run_kernel(print_cuda(module), info, [x, g, b, np.zeros_like(x)],
                   grid=[-(-m // 4)]).arrays[3]
    want = layernorm_reference(x, g, b)
    assert np.all(np.abs(bf16_float(y) - want) <= 2.0 ** -7 * np.abs(want) + 1e-4)


def test_bench_softmax_small_run(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch", reason="bench_softmax needs torch for its device tensors")
    from regcopy_bench.bench_softmax import main

    code = main(["--n", "1001,1024", "--mib", "8", "--iters", "3"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "WRONG" not in out and len([ln for ln in out.splitlines()
                                       if ln.strip().startswith(("1001", "1024"))]) == 2
