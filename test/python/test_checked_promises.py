"""Checked mode (``regcopy-run --checked``, ``print_cuda(..., checked_promises=True)``): every
``regcopy.multiple_of`` tests its promise at run time; a broken one prints the op's
``file:line:col`` from the device and traps. Without a GPU: the printed test, that it is absent
by default, and that it compiles; on the GPU (marked ``gpu``): the trap and its line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from regcopy_backend.cuda.printer import print_cuda
from regcopy_backend.cuda.nvrtc import compile_cuda
from regcopy_tools.regcopy_run import parse_and_lower

PROMISE = """func.func @rows(%A: memref<64x64xf32, #regcopy.mem<global>>,
                %k: index {regcopy.divisibility = 8 : i64}, %d: index)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %j = arith.addi %k, %d : index
  %j8 = regcopy.multiple_of %j, 8 : index
  regcopy.copy warp %A[0, %k] [32, 8] -> %R : memref<64x64xf32, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %A[32, %j8] [32, 8] : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<64x64xf32, #regcopy.mem<global>>
  func.return
}
"""
CHECK = ('if ((j) % 8 != 0) { printf("promise.mlir:6:3: error: regcopy.multiple_of: %lld is '
         'not a multiple of 8 (block %u, thread %u): the promise is broken\\n", (long long)(j), '
         'blockIdx.x, threadIdx.x); __trap(); }')


def test_checked_mode_tests_every_promise_at_its_location() -> None:
    module = parse_and_lower(PROMISE, "promise.mlir")
    assert "printf" not in print_cuda(module)  # off by default: the promise costs nothing
    checked = print_cuda(module, checked_promises=True)
    assert [line.strip() for line in checked.splitlines() if "printf" in line] == [CHECK]
    compiled = compile_cuda(checked)
    assert not compiled.warnings, compiled.log


@pytest.mark.gpu
def test_a_broken_promise_traps_with_its_location(tmp_path: Path) -> None:
    """%d = 3 breaks the promise (%k + 3 is no multiple of 8): the checked launch prints the
    op's line from the device and fails (exit 1); with %d = 8 it runs."""
    from regcopy_backend.runtime.runner import gpu_available

    ok, why = gpu_available()
    if not ok:
        pytest.skip(why)
    path = tmp_path / "promise.mlir"
    path.write_text(PROMISE)
    tool = str(Path(sys.executable).parent / "regcopy-run")
    run = subprocess.run([tool, "--checked", str(path), "--arg", "k=8", "--arg", "d=3"],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 1, run.stdout + run.stderr
    assert (f"{path}:6:3: error: regcopy.multiple_of: 11 is not a multiple of 8 (block 0, "
            "thread 0): the promise is broken") in run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    good = subprocess.run([tool, "--checked", str(path), "--arg", "k=8", "--arg", "d=8"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert good.returncode == 0, good.stdout + good.stderr
