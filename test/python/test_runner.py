"""The runner's pure parts (no GPU needed): the alignment check that refuses misaligned global
pointers before launch, kernel facts, host data, and ``regcopy-run``'s behaviour without a GPU."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    IntegerType,
    Signedness,
)

from xdsl.ir import Attribute

from regcopy_backend.host_data import as_float64, checksum, numpy_dtype, random_values
from regcopy_backend.kernel_info import KernelInfo, kernel_info, kernels
from regcopy_backend.runner import (
    AlignmentError,
    NoGpuError,
    check_alignment,
    check_arrays,
    gpu_available,
    run_kernel,
)
from regcopy_tools.regcopy_run import checksum_lines, parse_and_lower, random_inputs

REPO = Path(__file__).resolve().parents[2]
SEED = REPO / "examples" / "seed_demo.mlir"
BIN = Path(sys.executable).parent


def seed_info() -> KernelInfo:
    module = parse_and_lower(SEED.read_text(), str(SEED))
    (f,) = kernels(module)
    return kernel_info(f)


# ---- alignment -----------------------------------------------------------------------------


def test_kernel_info_of_the_seed_demo() -> None:
    info = seed_info()
    assert (info.name, info.block, info.grid3, info.index64) == ("seed_demo", 32, (1, 1, 1), False)
    assert [(p.name, p.shape, p.elements) for p in info.params] == [
        ("in", (32, 8), 256), ("out", (32, 8), 256)]
    # the seed demo's global buffers are only touched by scalar loads/stores: 4-byte alignment
    assert [p.alignment for p in info.params] == [4, 4]


def test_alignment_follows_the_widest_vector_through_storage() -> None:
    path = REPO / "examples" / "cta_tile.mlir"
    (f,) = kernels(parse_and_lower(path.read_text(), str(path)))
    info = kernel_info(f)
    assert info.widest_vector == 16
    assert [p.alignment for p in info.params] == [16, 16]


def test_misaligned_pointer_is_refused() -> None:
    path = REPO / "examples" / "cta_tile.mlir"
    (f,) = kernels(parse_and_lower(path.read_text(), str(path)))
    info = kernel_info(f)
    check_alignment(info.name, info.params, [0x7F0000000000, 0x7F0000001000])
    with pytest.raises(AlignmentError) as err:
        check_alignment(info.name, info.params, [0x7F0000000000, 0x7F0000001008])
    message = str(err.value)
    assert "cta_tile" in message and "'C'" in message and "16-byte" in message
    assert "refusing to launch" in message and "\n" not in message
    with pytest.raises(AlignmentError, match="takes 2 buffers"):
        check_alignment(info.name, info.params, [0])


def test_array_sizes_are_checked() -> None:
    info = seed_info()
    with pytest.raises(ValueError, match="takes 2 buffers"):
        check_arrays(info, [np.zeros(256, np.float32)])
    with pytest.raises(ValueError, match="spans 256"):
        check_arrays(info, [np.zeros(256, np.float32), np.zeros(255, np.float32)])


# ---- host data -----------------------------------------------------------------------------

TYPES = [Float32Type(), Float16Type(), BFloat16Type(), Float8E4M3FNType(), Float8E5M2Type(),
         IntegerType(8), IntegerType(64), IntegerType(8, Signedness.UNSIGNED)]


@pytest.mark.parametrize("t", TYPES, ids=str)
def test_random_values_are_exact_and_deterministic(t: Attribute) -> None:
    a = random_values(t, 1000, np.random.default_rng(7))
    b = random_values(t, 1000, np.random.default_rng(7))
    assert a.dtype == numpy_dtype(t) and np.array_equal(a, b)
    values = as_float64(a, t)
    assert np.all(np.isfinite(values))
    if t.__class__.__name__.startswith(("Float", "BFloat")):
        assert np.all(values * 4 == np.round(values * 4))  # quarters at most: exact
        assert len(np.unique(values)) > 5


def test_fp8_and_bf16_decoding() -> None:
    assert as_float64(np.array([0x3F80, 0xC000], np.uint16), BFloat16Type()).tolist() == [1, -2]
    assert as_float64(np.array([0x38, 0xB8, 0x7E], np.uint8), Float8E4M3FNType()).tolist() == [
        1.0, -1.0, 448.0]
    assert as_float64(np.array([0x3C, 0x40], np.uint8), Float8E5M2Type()).tolist() == [1.0, 2.0]


def test_checksum_lines() -> None:
    info = seed_info()
    arrays = random_inputs(info, np.random.default_rng(0))
    assert [a.shape for a in arrays] == [(32, 8), (32, 8)]
    lines = checksum_lines(info, arrays)
    total, digest = checksum(arrays[0], Float32Type())
    assert lines[0] == f"seed_demo.in f32[32x8] sum={total!r} sha256={digest}"
    assert lines == checksum_lines(info, random_inputs(info, np.random.default_rng(0)))


# ---- without a GPU -------------------------------------------------------------------------


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "regcopy-run"), *args], capture_output=True, text=True,
                          timeout=300)


def test_regcopy_run_without_or_with_a_gpu() -> None:
    """No GPU here: one line on stderr and exit code 2. (On a GPU machine: checksums, and the
    seed demo's output equals its input.)"""
    proc = _run(str(SEED), "--seed", "3")
    has_gpu, why = gpu_available()
    if not has_gpu:
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.startswith("regcopy-run: no CUDA GPU available (")
        assert len(proc.stderr.strip().splitlines()) == 1 and proc.stdout == ""
        with pytest.raises(NoGpuError):
            run_kernel("", seed_info(), random_inputs(seed_info(), np.random.default_rng(0)))
        return
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 2 and lines[0].split()[2:] == lines[1].split()[2:]


def test_regcopy_run_bad_input_is_one_diagnostic(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @k() {\n  %x = arith.constant : index\n}\n")
    proc = _run(str(bad))
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"regcopy-run: error: {bad}:2:")
    assert "Traceback" not in proc.stderr


def test_regcopy_run_needs_a_kernel(tmp_path: Path) -> None:
    empty = tmp_path / "none.mlir"
    empty.write_text("func.func @helper() {\n  func.return\n}\n")
    proc = _run(str(empty))
    assert proc.returncode == 1 and "no kernel" in proc.stderr

