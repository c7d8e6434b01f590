"""Runtime errors of the CPU interpreter name the op (as printed), its ``file:line:col``, and
the block and thread that ran it, on one line; ``regcopy-run --check`` prints that line and
exits 1. Also: a reference copy's table is built once, not once per thread."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from xdsl.dialects.builtin import MemRefType, ModuleOp

from regcopy_backend.interpreter import buffers
from regcopy_backend.interpreter.driver import Buffer, KernelError, launch, make_interpreter
from regcopy_dialect.context import regcopy_context
from regcopy_dialect.source import parse_located
from tool_runner import run_tool

BIN = Path(sys.executable).parent

F32 = "memref<64x8xf32, #regcopy.mem<global>>"
REG = "memref<16x8xf32, #regcopy.layout<(16,8):(1@tx,1)>, #regcopy.mem<local>>"

# Block b copies rows 25*b .. 25*b+15 of %A (a window that slides by a dynamic offset): block
# 2 starts at row 50 and runs past row 63. The barrier makes each CTA run in barrier phases.
WINDOW = f"""func.func @window(%A: {F32}, %B: {F32})
    attributes {{regcopy.launch = #regcopy.launch<block = 16, grid = [3]>}} {{
  %R = memref.alloca() : {REG}
  %c25 = arith.constant 25 : index
  %bx = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %row = arith.muli %bx, %c25 : index
  regcopy.copy cta %A[%row, 0] [16, 8] -> %R : {F32} -> {REG}
  "gpu.barrier"() : () -> ()
  regcopy.copy cta %R -> %B[%row, 0] [16, 8] : {REG} -> {F32}
  func.return
}}
"""

SCALAR_LOAD = f"""func.func @load(%A: {F32}, %B: {F32}, %i: index)
    attributes {{regcopy.launch = #regcopy.launch<block = 4, grid = [1]>}} {{
  %c0 = arith.constant 0 : index
  %tid = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %r = arith.addi %i, %tid : index
  %v = memref.load %A[%r, %c0] : {F32}
  %q = arith.divui %r, %i : index
  memref.store %v, %B[%q, %c0] : {F32}
  func.return
}}
"""


def _module(text: str) -> ModuleOp:
    return parse_located(regcopy_context(), text, "k.mlir")


def _buffers(module: ModuleOp, kernel: str) -> list[Buffer]:
    fn = next(op for op in module.walk() if getattr(op, "sym_name", None)
              and op.sym_name.data == kernel)  # type: ignore[attr-defined]
    return [Buffer.new(t) for t in fn.function_type.inputs.data if isinstance(t, MemRefType)]


def test_an_offset_out_of_bounds_names_the_copy_its_line_and_thread() -> None:
    module = _module(WINDOW)
    with pytest.raises(KernelError) as e:
        launch(make_interpreter(module), "window", _buffers(module, "window"))
    assert re.fullmatch(
        r"k\.mlir:7:3: regcopy\.copy cta %A\[%row, 0\] \[16, 8\] -> %R: source %A: region "
        r"\[50, 0\] \.\. \[65, 7\] \(sizes \[16, 8\]\) is out of bounds of shape \[64, 8\] "
        r"\(block \(2, 0, 0\), thread \(\d+, 0, 0\)\)", str(e.value)), str(e.value)


def test_a_load_out_of_bounds_and_a_division_by_zero_are_located() -> None:
    module = _module(SCALAR_LOAD)
    a, b = _buffers(module, "load")
    with pytest.raises(KernelError) as e:
        launch(make_interpreter(module), "load", (a, b, 62))
    assert str(e.value) == ("k.mlir:6:3: %v = memref.load %A[%r, %c0]: index [64, 0] is out "
                            "of bounds of shape [64, 8] (block (0, 0, 0), thread (2, 0, 0))")
    with pytest.raises(KernelError) as e:
        launch(make_interpreter(module), "load", (a, b, 0))
    assert str(e.value).startswith("k.mlir:7:3: %q = arith.divui %r, %i: ZeroDivisionError")


def test_regcopy_run_check_reports_a_runtime_error_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "oob.mlir"
    path.write_text(WINDOW)
    proc = run_tool(["regcopy-run", str(path), "--check"], Path.cwd(), timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    last = proc.stderr.splitlines()[-1]
    assert last.startswith(
        f"regcopy-run: error: {path}:7:3: regcopy.copy cta %A[%row, 0] [16, 8] -> %R: source "
        "%A: region [50, 0] .. [65, 7] (sizes [16, 8]) is out of bounds of shape [64, 8] "
        "(block (2, 0, 0), thread ("), last


def test_a_copy_table_is_built_once_for_all_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every thread of a phased CTA needs the same table: it is built once per distinct
    (types, regions), not once per thread."""
    built: list[object] = []
    build = buffers._build_table  # pyright: ignore[reportPrivateUsage]

    def counting(*args: object) -> buffers.CopyTable:
        built.append(args)
        return build(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(buffers, "_build_table", counting)
    buffers._memo_table.cache_clear()  # pyright: ignore[reportPrivateUsage]
    buffers._by_op.clear()  # pyright: ignore[reportPrivateUsage]
    module = _module(WINDOW.replace("%c25 = arith.constant 25", "%c25 = arith.constant 16"))
    a, b = _buffers(module, "window")
    a.storage[:] = range(len(a.storage))
    launch(make_interpreter(module), "window", (a, b))
    assert b.storage[:48 * 8] == a.storage[:48 * 8]
    assert len(built) == 3  # one per block (its row offset); its two copies share it
