"""examples/softmax.mlir without a GPU: ``regcopy-run --check`` at a small ragged size (the
lowered kernel on the CPU interpreter against the un-lowered reference), the lowered kernel
against numpy's softmax on the aligned (N % 8 == 0) and the fallback path, and its SASS
(128-bit row loads and stores, warp shuffles, no local memory); examples/layernorm.mlir
against numpy. On the GPU: test_compute_gpu.py and lab/gpu/compute.sh."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_backend.runtime.nvrtc import disassemble
from regcopy_passes.lower_layout_access import lower_layout_access
from regcopy_tools.regcopy_run import main, prepare
from regcopy_tools.run_report import sass_memory_ops

SOFTMAX = Path(__file__).resolve().parents[2] / "examples" / "softmax.mlir"
LAYERNORM = SOFTMAX.with_name("layernorm.mlir")


def bf16_bits(x: np.ndarray) -> np.ndarray:
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_float(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


def test_check_at_a_ragged_size(capsys: pytest.CaptureFixture[str]) -> None:
    """N = 300: a whole chunk of 256 and a ragged one; row 3 of the CTA is off the matrix."""
    with pytest.raises(SystemExit) as done:
        main([str(SOFTMAX), "--check", "--arg", "X=3x300", "--arg", "Y=3x300", "--grid", "1"])
    out, _ = capsys.readouterr()
    assert done.value.code in (0, None)
    assert out.splitlines() == ["softmax.X bf16[3x300] equal (900 elements)",
                                "softmax.Y bf16[3x300] equal (900 elements)"]


@pytest.fixture(scope="module")
def prepared():
    return prepare(SOFTMAX.read_text(), str(SOFTMAX))


@pytest.mark.parametrize("m,n", [(3, 264), (4, 263)])
def test_lowered_kernel_matches_numpy(prepared, m: int, n: int) -> None:
    """264: the 128-bit path (rows 16-byte aligned); 263: the fallback; at M = 3 the CTA's
    last warp is off the matrix. Within one bf16 ulp of the f64 softmax."""
    rng = np.random.default_rng(n)
    x = bf16_bits((rng.standard_normal((m, n)) * 4).astype(np.float32))
    lowered = lower_layout_access(prepared.module.clone())
    _, y = run_on_cpu(lowered, "softmax", [x, np.zeros_like(x)], grid=[1])
    xf = bf16_float(x).astype(np.float64)
    want = np.exp(xf - xf.max(axis=1, keepdims=True))
    want /= want.sum(axis=1, keepdims=True)
    got = bf16_float(y)
    assert np.all(np.abs(got - want) <= 2.0 ** -7 * want + 1e-30), np.abs(got - want).max()
    assert np.allclose(got.sum(axis=1), 1.0, atol=0.02)


def test_sass_has_wide_rows_and_no_local_memory(prepared) -> None:
    sass = disassemble(prepared.compiled.cubin)
    ops = sass_memory_ops(sass)
    assert not any(op.startswith(("LDL", "STL")) for op in ops), ops
    assert any(op.startswith("LDG.E.128") for op in ops), ops
    assert any(op.startswith("STG.E.128") for op in ops), ops
    assert sass.count("SHFL.BFLY") >= 10 and "MUFU.EX2" in sass


def layernorm_reference(x: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
    xf, gf, bf = (bf16_float(a).astype(np.float64) for a in (x, g, b))
    mean = xf.mean(axis=1, keepdims=True)
    var = xf.var(axis=1, keepdims=True)
    return (xf - mean) / np.sqrt(var + 1e-5) * gf + bf


def test_layernorm_matches_numpy() -> None:
    """N = 300 (ragged, the fallback path); 3 rows, the CTA's last warp off the matrix. Within
    one bf16 ulp and a small absolute error (mean and variance are f32 sums)."""
    m, n = 3, 300
    rng = np.random.default_rng(5)
    x = bf16_bits((rng.standard_normal((m, n)) * 2 + 1).astype(np.float32))
    g = bf16_bits(rng.uniform(0.5, 1.5, n).astype(np.float32))
    b = bf16_bits(rng.standard_normal(n).astype(np.float32))
    lowered = lower_layout_access(prepare(LAYERNORM.read_text(), str(LAYERNORM)).module)
    *_, y = run_on_cpu(lowered, "layernorm", [x, g, b, np.zeros_like(x)], grid=[1])
    want = layernorm_reference(x, g, b)
    got = bf16_float(y)
    assert np.all(np.abs(got - want) <= 2.0 ** -7 * np.abs(want) + 1e-4), \
        np.abs(got - want).max()
