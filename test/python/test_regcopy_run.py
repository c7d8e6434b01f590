"""``regcopy-run`` without a GPU: ``--compile-only`` (NVRTC + ptxas resources + SASS summary),
``--check`` (CPU reference vs the lowered IR, or vs the GPU where there is one), scalar
arguments (``--arg``), and diagnostics that only suggest commands that exist."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from regcopy_backend.cuda.spills import ptxas_resources
from regcopy_backend.runtime.runner import gpu_available
from regcopy_tools.regcopy_run import check_kernel, parse_module, prepare
from regcopy_tools.run_report import (
    ArgumentSpecError,
    host_arguments,
    parse_arg_specs,
)
from tool_runner import run_tool

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
SEED = REPO / "examples" / "seed_demo.mlir"
HAS_GPU, WHY = gpu_available()


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return run_tool(["regcopy-run", *args], Path.cwd(), timeout=300)


def test_compile_only_reports_resources_without_a_gpu() -> None:
    proc = _run(str(SEED), "--compile-only")
    assert proc.returncode == 0, proc.stderr
    (line,) = proc.stdout.splitlines()
    assert line.startswith("seed_demo: compiled for sm_90; ")
    assert "2048 bytes static shared" in line and "(0 LDL/STL)" in line
    assert "LDS.128*4" in line and "STS.128*4" in line  # the seed table: 2 copies x 2 rounds


def test_ptxas_resources_are_parsed() -> None:
    log = ("ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
           "ptxas         .     16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
           "ptxas info    : Used 40 registers, used 1 barriers, 98304 bytes smem\n")
    r = ptxas_resources(log)["k"]
    assert (r.registers, r.stack_bytes, r.spill_stores, r.spill_loads, r.shared_bytes) == \
        (40, 16, 8, 4, 98304)


@pytest.mark.parametrize("example", ["seed_demo.mlir", "cta_tile.mlir"])
def test_check_compares_every_buffer(example: str) -> None:
    proc = _run(str(REPO / "examples" / example), "--check", "--seed", "2")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines and all(" equal (" in ln for ln in lines), proc.stdout
    if HAS_GPU:
        assert proc.stderr == ""
    else:
        (note,) = proc.stderr.splitlines()
        assert note.startswith("regcopy-run: no CUDA GPU available (")
        assert "GPU run skipped" in note


def test_check_reports_the_first_mismatch() -> None:
    text = SEED.read_text()
    prepared = prepare(text, str(SEED))
    info = prepared.kernels[0]
    args = [np.arange(256, dtype=np.float32).reshape(32, 8), np.zeros((32, 8), np.float32)]
    got = [args[0].copy(), args[0].copy()]
    got[1][3, 5] = -1.0
    lines = check_kernel(info, args, parse_module(text, str(SEED))[1], got, "gpu")
    assert lines[0] == "seed_demo.in f32[32x8] equal (256 elements)"
    assert lines[1] == ("seed_demo.out f32[32x8] MISMATCH: 1 of 256 elements differ, first at "
                        "(3, 5): gpu -1.0, reference 29.0")


def test_any_nan_matches_any_nan_but_not_a_number() -> None:
    """GPU and CPU make different NaN payloads; a NaN against a number still differs."""
    from regcopy_tools.run_report import mismatch

    gpu_nan = np.array([1.0, 0.0], np.float32)
    gpu_nan[1] = np.uint32(0x7FFFFFFF).view(np.float32)
    cpu_nan = np.array([1.0, float("nan")], np.float32)
    assert mismatch(gpu_nan, cpu_nan, "gpu", "reference") is None
    problem = mismatch(gpu_nan, np.array([1.0, 2.0], np.float32), "gpu", "reference")
    assert problem is not None and problem.startswith("1 of 2 elements differ, first at (1,)")
    bits = np.array([0x7FC0, 1], np.uint16)  # raw bit patterns (bf16) are compared as bits
    assert mismatch(bits, np.array([0x7FC1, 1], np.uint16), "gpu", "reference") is not None


def test_plain_run_without_a_gpu_is_one_line() -> None:
    if HAS_GPU:
        pytest.skip(f"a GPU is present ({WHY}): the plain run is tested in test_gpu.py")
    proc = _run(str(SEED))
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1


REJECTED = """
func.func @k() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<128x8xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<128x8xf32, #regcopy.layout<(128,8):(1@tid_in_wg,1)>, #regcopy.mem<local>>
  regcopy.copy warpgroup %S -> %R : memref<128x8xf32, #regcopy.mem<shared>> -> memref<128x8xf32, #regcopy.layout<(128,8):(1@tid_in_wg,1)>, #regcopy.mem<local>>
  func.return
}
"""


@pytest.mark.parametrize("mode", [(), ("--compile-only",), ("--check",)])
def test_a_rejected_copy_gives_the_reason_and_only_real_options(
        tmp_path: Path, mode: tuple[str, ...]) -> None:
    path = tmp_path / "rejected.mlir"
    path.write_text(REJECTED)
    proc = _run(str(path), *mode)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "rejected by lower-reg-copy: block of 32 threads is not a multiple" in proc.stderr
    assert f"regcopy-opt -p 'lower-reg-copy{{remarks=true}}' {path}" in proc.stderr
    assert "-t cuda" not in proc.stderr and "{strict" not in proc.stderr


SCALAR = """
func.func @offset_copy(%in: memref<64x8xf32, #regcopy.mem<global>>,
                       %out: memref<32x8xf32, #regcopy.mem<global>>,
                       %row: index {regcopy.divisibility = 8 : i64})
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %in[%row, 0] [32, 8] -> %R : memref<64x8xf32, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %out : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x8xf32, #regcopy.mem<global>>
  func.return
}
"""


def test_host_arguments_take_scalars_from_arg_specs() -> None:
    fn = next(iter(parse_module(SCALAR, "s.mlir")[1].ops))
    rng = np.random.default_rng(0)
    a, b, row = host_arguments(fn, rng, parse_arg_specs(["row=16"]))
    assert a.shape == (64, 8) and b.shape == (32, 8) and row == 16
    with pytest.raises(ArgumentSpecError, match=r"needs a value .*%row: index \(a multiple "
                       r"of 8\); pass --arg row=\.\.\."):
        host_arguments(fn, rng, {})
    with pytest.raises(ArgumentSpecError, match="give a multiple of 8"):
        host_arguments(fn, rng, parse_arg_specs(["row=12"]))
    with pytest.raises(ArgumentSpecError, match="expected NAME=VALUE"):
        parse_arg_specs(["row"])


def test_check_with_a_scalar_argument(tmp_path: Path) -> None:
    path = tmp_path / "scalar.mlir"
    path.write_text(SCALAR)
    proc = _run(str(path), "--check", "--arg", "row=24")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count(" equal (") == 2
    missing = _run(str(path), "--check")
    assert missing.returncode == 1 and "pass --arg row=..." in missing.stderr
    unknown = _run(str(path), "--check", "--arg", "row=8", "--arg", "col=3")
    assert unknown.returncode == 1 and "--arg col" in unknown.stderr
