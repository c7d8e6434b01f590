"""examples/softmax.mlir without a GPU: ``regcopy-run --check`` of a warp-a-row and a
CTA-a-row kernel of the family at a small ragged size (the lowered kernel on the CPU
interpreter against the un-lowered reference), the lowered kernels against numpy's softmax on
the aligned (N % 8 == 0) and the fallback path, and their SASS (128-bit row loads and stores,
warp shuffles, no local memory); examples/layernorm.mlir against numpy. On the GPU:
test_compute_gpu.py and lab/gpu/compute.sh (which also --checks the whole file)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from regcopy_backend.cuda.spills import kernel_sass
from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_backend.cuda.nvrtc import disassemble
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


def example_kernel(name: str) -> str:
    """The text of one kernel of examples/softmax.mlir (each is self-contained)."""
    text = SOFTMAX.read_text()
    start = text.index(f"func.func @{name}(")
    end = text.find("\nfunc.func @", start)
    return text[start:] if end < 0 else text[start:end + 1]


def test_check_at_a_ragged_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """N = 300, not a multiple of 8, grid = M (softmax_4k runs a CTA a row; softmax_1k a warp
    a row, CTAs 1 and 2 wholly off the matrix): softmax_1k (row 3 of CTA 0 is off the
    matrix) and softmax_4k (a CTA a row, shared memory and a barrier). The whole file is
    checked on the GPU machine (lab/gpu/compute.sh): its 512-thread kernel takes the CPU
    interpreter a while."""
    src = tmp_path / "two.mlir"
    src.write_text(example_kernel("softmax_1k") + example_kernel("softmax_4k"))
    with pytest.raises(SystemExit) as done:
        main([str(src), "--check", "--arg", "X=3x300", "--arg", "Y=3x300", "--grid", "3"])
    out, _ = capsys.readouterr()
    assert done.value.code in (0, None)
    assert out.splitlines() == [f"{k}.{b} bf16[3x300] equal (900 elements)"
                                for k in ("softmax_1k", "softmax_4k") for b in "XY"]


@pytest.fixture(scope="module")
def prepared():
    return prepare(SOFTMAX.read_text(), str(SOFTMAX))


@pytest.fixture(scope="module")
def lowered(prepared):
    return lower_layout_access(prepared.module.clone())


@pytest.mark.parametrize("kernel,m,n,grid", [
    ("softmax", 3, 264, 1), ("softmax", 4, 263, 1), ("softmax_1k", 3, 1024, 1),
    ("softmax_1k", 5, 1001, 2), ("softmax_4k", 1, 4093, 1), ("softmax_8k", 1, 8192, 1)])
def test_lowered_kernel_matches_numpy(lowered, kernel: str, m: int, n: int, grid: int) -> None:
    """Multiples of 8: the 128-bit path (rows 16-byte aligned); the others: the fallback; at
    M = 3 or 5 the 4-row CTA's last warps are off the matrix; 1024, 8192: rows that fill the
    kernel's tile. Within one bf16 ulp of the f64 softmax."""
    rng = np.random.default_rng(n)
    x = bf16_bits((rng.standard_normal((m, n)) * 4).astype(np.float32))
    _, y = run_on_cpu(lowered, kernel, [x, np.zeros_like(x)], grid=[grid])
    xf = bf16_float(x).astype(np.float64)
    want = np.exp(xf - xf.max(axis=1, keepdims=True))
    want /= want.sum(axis=1, keepdims=True)
    got = bf16_float(y)
    assert np.all(np.abs(got - want) <= 2.0 ** -7 * want + 1e-30), np.abs(got - want).max()
    assert np.allclose(got.sum(axis=1), 1.0, atol=0.02)


def test_sass_has_wide_rows_and_no_local_memory(prepared) -> None:
    """Every kernel: four 128-bit loads a thread on the aligned path (the row-in-registers
    kernels: the whole row, read once; the two-pass one: a chunk), 128-bit stores, 10 warp shuffles (maximum and
    sum), no local memory; the CTA-a-row kernels combine their warps through shared memory."""
    sass = disassemble(prepared.compiled.cubin)
    assert {info.name for info in prepared.kernels} == {
        "softmax", "softmax_1k", "softmax_4k", "softmax_8k", "softmax_16k"}
    for info in prepared.kernels:
        code = kernel_sass(sass, info.symbol)
        ops = sass_memory_ops(code)
        assert not any(op.startswith(("LDL", "STL")) for op in ops), (info.name, ops)
        wide = sum(k for op, k in ops.items() if op.startswith("LDG.E.128"))
        assert wide >= 4, (info.name, ops)  # the aligned path's four (+ realigned pieces)
        assert any(op.startswith("STG.E.128") for op in ops), (info.name, ops)
        assert code.count("SHFL.BFLY") >= 10 and "MUFU.EX2" in code, info.name
        shared = any(op.startswith(("STS", "LDS")) for op in ops)
        assert shared == (info.name in ("softmax_4k", "softmax_8k", "softmax_16k")), info.name


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
