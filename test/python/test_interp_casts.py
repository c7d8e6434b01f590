"""``interp_casts``: the arith casts and float ops the CUDA target prints run on the CPU
interpreter with MLIR's semantics where MLIR defines them (i1 sign extension is -1, rounding to
the result type) and the GPU's where it does not (float -> int saturates, NaN -> 0), (xDSL 0.74
verifies these casts on scalars only); ``test/gpu/kernels/casts.mlir`` runs them through ``regcopy-run --check``
(test_gpu.py compares the GPU with the CPU on it)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
from copy_harness import parse

from regcopy_backend.cuda.arith import expression
from regcopy_backend.cuda.types import ctype
from regcopy_backend.interpreter.driver import make_interpreter
from tool_runner import run_tool

REPO = Path(__file__).resolve().parents[2]
CASTS = REPO / "test" / "gpu" / "kernels" / "casts.mlir"
BIN = Path(sys.executable).parent
NAN = float("nan")


def cast(op: str, value: Any, source: str, result: str) -> Any:
    text = (f"func.func @f(%a: {source}) -> {result} {{\n  %z = {op} %a : {source} to {result}\n"
            f"  func.return %z : {result}\n}}\n")
    return make_interpreter(parse(text)).call_op("f", (value,))[0]


def binary(op: str, t: str, a: Any, b: Any) -> Any:
    text = (f"func.func @f(%a: {t}, %b: {t}) -> {t} {{\n  %z = {op} %a, %b : {t}\n"
            f"  func.return %z : {t}\n}}\n")
    return make_interpreter(parse(text)).call_op("f", (a, b))[0]


def test_integer_extensions_and_truncations() -> None:
    assert cast("arith.extsi", 1, "i1", "i32") == -1  # MLIR: true sign-extends to all ones
    assert cast("arith.extui", 1, "i1", "i32") == 1
    assert cast("arith.extsi", -1, "i8", "i32") == -1
    assert cast("arith.extui", -1, "i8", "i32") == 255
    assert cast("arith.trunci", 0x1FF, "i32", "i8") == -1
    assert cast("arith.trunci", 6, "i32", "i1") == 0 and cast("arith.trunci", 7, "i32", "i1") == 1
    assert cast("arith.extui", 2**31, "ui32", "i64") == 2**31


def test_int_to_float_rounds_to_the_result_type() -> None:
    assert cast("arith.sitofp", 2**24 + 1, "i32", "f32") == 2.0**24
    assert cast("arith.sitofp", 2**24 + 1, "i32", "f64") == 2.0**24 + 1
    assert cast("arith.uitofp", -1, "i32", "f32") == 2.0**32  # 2^32 - 1 rounds up in f32
    assert cast("arith.sitofp", 2049, "i32", "f16") == 2048.0


def test_float_to_int_truncates_and_saturates_like_the_gpu() -> None:
    assert [cast("arith.fptosi", x, "f32", "i32") for x in (3.9, -3.9, 1e20, -1e20, NAN)] == \
        [3, -3, 2**31 - 1, -(2**31), 0]
    assert [cast("arith.fptoui", x, "f32", "i32") for x in (3.9, -5.0, 1e20)] == [3, 0, -1]
    assert cast("arith.fptosi", 300.5, "f32", "i8") == 127


def test_float_conversions_and_ops() -> None:
    assert cast("arith.truncf", 0.1, "f64", "f32") == float(np.float32(0.1))
    assert cast("arith.truncf", 1e39, "f64", "f32") == float("inf")
    assert cast("arith.extf", float(np.float32(0.1)), "f32", "f64") == float(np.float32(0.1))
    neg = make_interpreter(parse("func.func @f(%a: f32) -> f32 {\n  %z = arith.negf %a : f32\n"
                                 "  func.return %z : f32\n}\n")).call_op("f", (0.0,))[0]
    assert str(neg) == "-0.0"
    assert binary("arith.minnumf", "f32", 2.0, NAN) == 2.0
    assert binary("arith.maxnumf", "f32", NAN, -2.0) == -2.0
    assert str(binary("arith.minnumf", "f32", 0.0, -0.0)) == "-0.0"
    assert str(binary("arith.maxnumf", "f32", -0.0, 0.0)) == "0.0"


def test_printer_sign_extends_i1_and_converts_to_unsigned_results() -> None:
    module = parse("func.func @f(%b: i1, %x: f32) -> (i32, i32, index) {\n"
                   "  %s = arith.extsi %b : i1 to i32\n  %u = arith.fptoui %x : f32 to i32\n"
                   "  %i = arith.index_cast %b : i1 to index\n"
                   "  func.return %s, %u, %i : i32, i32, index\n}\n")
    ext, fptoui, index_cast = list(module.walk())[2:5]
    assert expression(ext, ["b"], ctype) == "(int)(-(int)b)"
    assert expression(fptoui, ["x"], ctype) == "(int)(unsigned int)x"
    assert expression(index_cast, ["b"], ctype) == "(int)(-(int)b)"  # MLIR: sign-extends


def test_casts_kernel_checks_on_the_cpu() -> None:
    """``regcopy-run --check`` (no GPU here: the lowered kernel on the CPU against the
    reference) runs every cast of the kernel."""
    proc = run_tool(["regcopy-run", str(CASTS), "--check", "--seed", "1"], Path.cwd(), timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert sum(" equal (" in ln for ln in proc.stdout.splitlines()) == 4, proc.stdout
