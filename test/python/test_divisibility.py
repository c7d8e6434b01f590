"""The divisibility analysis (passes/core/divisibility.py) on small programs parsed from text, and
the argument-attribute verifier (regcopy_dialect.regcopy.verify_divisibility_attrs)."""

from __future__ import annotations

import pytest
from xdsl.dialects import func
from xdsl.ir import SSAValue
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

from regcopy_dialect.context import regcopy_context
from regcopy_dialect.regcopy import verify_divisibility_attrs
from regcopy_passes.core.divisibility import describe_value, divisibility
from regcopy_passes.core.planning import ValueName


def _kernel(args: str, body: str) -> func.FuncOp:
    text = f"func.func @k({args}) {{\n{body}\n  func.return\n}}"
    module = Parser(regcopy_context(), text).parse_module()
    kernel = module.body.block.first_op
    assert isinstance(kernel, func.FuncOp)
    return kernel


def _named(kernel: func.FuncOp, name: str) -> SSAValue:
    for op in kernel.walk():
        for v in [*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)]:
            if v.name_hint == name:
                return v
    raise KeyError(name)


def _div(args: str, body: str, name: str) -> int:
    kernel = _kernel(args, body)
    return divisibility(_named(kernel, name))


C = """
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c12 = arith.constant 12 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %m16 = arith.constant -16 : index
  %c7 = arith.constant 7 : index
"""


@pytest.mark.parametrize(("body", "want"), [
    ("%v = arith.addi %c64, %c12 : index", 4),
    ("%v = arith.subi %c128, %c64 : index", 64),
    ("%v = arith.muli %n, %c12 : index", 12),
    ("%v = arith.shli %n, %c3 : index", 8),
    ("%x = arith.muli %n, %c12 : index\n  %v = arith.andi %x, %m16 : index", 16),
    ("%x = arith.muli %n, %c64 : index\n  %v = arith.andi %x, %m16 : index", 64),
    ("%v = arith.andi %n, %c7 : index", 1),
    ("%v = arith.andi %n, %c0 : index", 0),
    ("%v = arith.select %b, %c64, %c12 : index", 4),
    ("%x = arith.muli %n, %c6 : index\n  %v = arith.remsi %x, %c8 : index", 2),
    ("%bx = \"gpu.block_id\"() <{dimension = #gpu<dim x>}> : () -> index\n"
     "  %v = arith.muli %bx, %c256 : index", 256),
    ("%t = \"gpu.thread_id\"() <{dimension = #gpu<dim x>}> : () -> index\n"
     "  %v = arith.addi %t, %c64 : index", 1),
    ("%v = regcopy.multiple_of %n, 8 : index", 8),
    ("%x = arith.muli %n, %c12 : index\n  %v = regcopy.multiple_of %x, 8 : index", 24),
    ("%v = regcopy.multiple_of %c0, 8 : index", 0),
    ("%x = arith.muli %n, %c64 : index\n  %v = arith.index_cast %x : index to i32", 64),
    ("%v = arith.index_cast %i : i32 to index", 32),
])
def test_arithmetic(body: str, want: int) -> None:
    args = "%n: index, %b: i1, %i: i32 {regcopy.divisibility = 32 : i64}"
    assert _div(args, C + "  " + body, "v") == want


def test_loop_induction_variables() -> None:
    body = C + """
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %b = arith.muli %bx, %c256 : index
  %lb = arith.addi %b, %c128 : index
  scf.for %k = %c0 to %n step %c64 {
    scf.for %j = %lb to %n step %c128 {
      scf.for %i = %k to %n step %c12 {
        %s = arith.addi %i, %j : index
      }
    }
  }
"""
    kernel = _kernel("%n: index", body)
    assert divisibility(_named(kernel, "k")) == 64
    assert divisibility(_named(kernel, "j")) == 128
    assert divisibility(_named(kernel, "i")) == 4


def test_loop_carried_value_by_induction() -> None:
    body = C + """
  %r = scf.for %k = %c0 to %n step %c8 iter_args(%acc = %c128) -> (index) {
    %nx = arith.addi %acc, %c64 : index
    scf.yield %nx : index
  }
  %r2 = scf.for %k2 = %c0 to %n step %c8 iter_args(%acc2 = %c128) -> (index) {
    %nx2 = arith.addi %acc2, %c12 : index
    scf.yield %nx2 : index
  }
  %r3 = scf.for %k3 = %c0 to %n step %c8 iter_args(%acc3 = %c64) -> (index) {
    %nx3 = arith.addi %acc3, %n : index
    scf.yield %nx3 : index
  }
"""
    kernel = _kernel("%n: index", body)
    assert divisibility(_named(kernel, "acc")) == 64
    assert divisibility(_named(kernel, "acc2")) == 4
    assert divisibility(_named(kernel, "acc3")) == 1


def test_argument_promises() -> None:
    kernel = _kernel("%a: index {regcopy.divisibility = 48 : i64}, %b: index, %c: i64 "
                     "{regcopy.divisibility = 1 : i64}", "")
    a, b, c = kernel.body.block.args
    assert [divisibility(a), divisibility(b), divisibility(c)] == [48, 1, 1]


def test_describe_value_kinds() -> None:
    kernel = _kernel("%a: index", C + """
  %v = arith.muli %a, %c3 : index
  scf.for %k = %c0 to %a step %c64 {
  }""")
    names = {n: describe_value(_named(kernel, n)) for n in ("a", "v", "k")}
    assert all(isinstance(x, ValueName) for x in names.values())
    assert [(str(x), x.kind) for x in names.values()] == [
        ("%a", "argument"), ("%v", "value"), ("%k", "loop")]
    assert names["a"].promise(8) == "add {regcopy.divisibility = 8 : i64} to kernel argument %a"
    assert "%v_8 = regcopy.multiple_of %v, 8 : index" in names["v"].promise(8)
    assert "lower bound and step multiples of 8" in names["k"].promise(8)


@pytest.mark.parametrize(("args", "message"), [
    ("%a: f32 {regcopy.divisibility = 8 : i64}", "only integer and index arguments"),
    ("%a: index {regcopy.divisibility = 0 : i64}", "must be >= 1, got 0"),
    ("%a: index {regcopy.divisibility = -4 : i64}", "must be >= 1, got -4"),
    ("%a: index {regcopy.divisibility = \"8\"}", "must be an integer attribute"),
    ("%a: index {regcopy.divisibility = true}", "must be an integer attribute"),
])
def test_argument_attribute_verifier(args: str, message: str) -> None:
    kernel = _kernel(args, "")
    with pytest.raises(VerifyException, match=message):
        verify_divisibility_attrs(kernel)
    assert divisibility(kernel.body.block.args[0]) == 1  # a broken promise promises nothing


def test_argument_attribute_verifier_accepts() -> None:
    kernel = _kernel("%a: index {regcopy.divisibility = 8 : i64}, %b: i32 "
                     "{regcopy.divisibility = 16 : i64}, %c: f32", "")
    verify_divisibility_attrs(kernel)  # no exception
    assert "(%a)" not in str(kernel)  # sanity: the verifier does not rewrite anything
