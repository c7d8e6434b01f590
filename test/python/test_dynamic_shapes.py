"""Runtime shapes in the dialect: dynamic global buffers, the extent promise
``{regcopy.divisibility = array<i64: ...>}`` (its verifier and its readers
``extent_divisibility`` / ``divisibility_of`` / the analysis on ``memref.dim``), and the one-line
errors of buffers that may not be dynamic."""

from __future__ import annotations

import pytest
from xdsl.dialects import func
from xdsl.parser import Parser

from regcopy_dialect.context import regcopy_context
from regcopy_dialect.diagnostics import first_invalid_op
from regcopy_dialect.promises import argument_extent_promise, extent_divisibility
from regcopy_dialect.regcopy import storage_type
from regcopy_passes.core.divisibility import divisibility

G = "#regcopy.mem<global>"


def _kernel(args: str, body: str = "") -> func.FuncOp:
    text = f"func.func @k({args}) {{\n{body}\n  func.return\n}}"
    module = Parser(regcopy_context(), text).parse_module()
    kernel = module.body.block.first_op
    assert isinstance(kernel, func.FuncOp)
    return kernel


def _error(args: str) -> str:
    bad = first_invalid_op(_kernel(args))
    assert bad is not None
    return str(bad[1])


@pytest.mark.parametrize(("args", "message"), [
    (f"%A: memref<?x?xf32, {G}> {{regcopy.divisibility = array<i64: 4>}}",
     "has 1 entries for a rank-2 memref; give one divisor per dimension, such as "
     "array<i64: 4, 4>"),
    (f"%A: memref<?x?xf32, {G}> {{regcopy.divisibility = array<i64: 0, 4>}}",
     "entry 0 of argument #0 (%A) must be >= 1 (1: no promise), got 0"),
    (f"%A: memref<?x?xf32, {G}> {{regcopy.divisibility = array<i64: 1, -4>}}",
     "entry 1 of argument #0 (%A) must be >= 1 (1: no promise), got -4"),
    (f"%A: memref<?x6xf32, {G}> {{regcopy.divisibility = array<i64: 2, 4>}}",
     "entry 1 of argument #0 (%A) is 4, which does not divide the static size 6; use 1 or a "
     "divisor of 6"),
    (f"%A: memref<?x?xf32, {G}> {{regcopy.divisibility = 4 : i64}}",
     "must be an array with one divisor per dimension, such as array<i64: 4, 4>, got 4 : i64"),
    (f"%A: memref<?x?xf32, {G}> {{regcopy.divisibility = array<i32: 1, 4>}}",
     "must be an array with one divisor per dimension"),
    ("%S: memref<?x64xf32, #regcopy.mem<shared>>",
     "dynamic sizes [?, 64] in a shared buffer: only global buffers (kernel arguments) take "
     "runtime extents; give shared and local buffers static sizes"),
    ("%R: memref<?xf32, #regcopy.mem<local>>", "dynamic sizes [?] in a local buffer"),
    (f"%A: memref<?x8xf32, #regcopy.layout<(4,8):(8,1)>, {G}>",
     "dynamic buffer [?, 8] with a layout: a buffer with runtime extents is row-major and "
     "contiguous; drop the layout"),
])
def test_argument_errors_are_one_line(args: str, message: str) -> None:
    error = _error(args)
    assert message in error
    assert "\n" not in error


def test_extent_promises() -> None:
    kernel = _kernel(f"%A: memref<?x?x8xf32, {G}> {{regcopy.divisibility = array<i64: 1, 4, 2>}},"
                     f" %B: memref<?x?xf32, {G}>", """
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %m = memref.dim %A, %c0 : memref<?x?x8xf32, #regcopy.mem<global>>
  %n = memref.dim %A, %c1 : memref<?x?x8xf32, #regcopy.mem<global>>
  %k = memref.dim %A, %c2 : memref<?x?x8xf32, #regcopy.mem<global>>
  %b = memref.dim %B, %c1 : memref<?x?xf32, #regcopy.mem<global>>
  %n6 = arith.muli %n, %c2 : index""")
    assert first_invalid_op(kernel) is None
    a, b = kernel.body.block.args
    assert [extent_divisibility(a, d) for d in range(3)] == [1, 4, 8]
    assert [extent_divisibility(b, d) for d in range(2)] == [1, 1]
    assert argument_extent_promise(kernel, 0) == (1, 4, 2)
    assert argument_extent_promise(kernel, 1) is None
    values = {op.results[0].name_hint: op.results[0] for op in kernel.walk() if op.results}
    assert [divisibility(values[x]) for x in ("m", "n", "k", "b", "n6")] == [1, 4, 8, 1, 8]


def test_storage_of_a_dynamic_buffer_is_dynamic() -> None:
    kernel = _kernel(f"%A: memref<?x128xf16, {G}>")
    assert str(storage_type(kernel.body.block.args[0].type)) == f"memref<?xf16, {G}>"


def test_plan_key_reads_the_bounds_inputs() -> None:
    """Copies alike but for an extent promise, the padding or {in_bounds} are planned apart."""
    from regcopy_dialect.regcopy import CopyOp
    from regcopy_passes.lower_reg_copy import plan_key

    r = "memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>"
    a = f"memref<?x?xf32, {G}>"
    variants = [("", ""), ("", "{padding = 1.0 : f32}"), ("", "{in_bounds}"),
                (" {regcopy.divisibility = array<i64: 1, 4>}", "")]
    keys = []
    for promise, attrs in variants:
        kernel = _kernel(f"%A: {a}{promise}, %R: {r}", f"""
  regcopy.copy warp %A[0, 0] [32, 8] -> %R {attrs} : {a} -> {r}""")
        (op,) = [o for o in kernel.walk() if isinstance(o, CopyOp)]
        keys.append(plan_key(op, 32))
    assert len(set(keys)) == len(keys)
