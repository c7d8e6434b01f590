"""Locations, labels and the diagnostic sink (regcopy_dialect.source, .diagnostics)."""

from __future__ import annotations

import time
from io import StringIO

import pytest
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError

from regcopy_dialect.context import regcopy_context
from regcopy_dialect.diagnostics import (
    Diagnostic,
    capture_diagnostics,
    copy_labels,
    emit,
    op_error,
    op_location,
)
from regcopy_dialect.regcopy import CopyOp
from regcopy_dialect.source import parse_located

TEXT = """\
func.func @k() {
  %S = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S -> %R : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %S : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x8xf32, #regcopy.mem<shared>>
  regcopy.copy warp %S -> %R : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
"""


def _copies(module: Operation) -> list[CopyOp]:
    return [op for op in module.walk() if isinstance(op, CopyOp)]


def test_every_parsed_op_gets_its_first_token_as_location() -> None:
    module = parse_located(regcopy_context(), TEXT, "k.mlir", line_offset=100)
    located = {op.name: op_location(op) for op in module.walk() if op is not module}
    assert located == {"func.func": "k.mlir:101:1", "memref.alloca": "k.mlir:103:3",
                       "regcopy.copy": "k.mlir:106:3", "func.return": "k.mlir:107:3"}
    assert op_location(module) is None  # the implicit module has no text


def test_an_explicit_loc_wins() -> None:
    text = TEXT.replace("  func.return\n", '  func.return loc("gen.py":7:9)\n')
    module = parse_located(regcopy_context(), text, "k.mlir")
    (ret,) = [op for op in module.walk() if op.name == "func.return"]
    assert op_location(ret) == "gen.py:7:9"


def test_plain_xdsl_parser_gives_no_location() -> None:
    module = Parser(regcopy_context(), TEXT, "k.mlir").parse_module()
    assert all(op_location(op) is None for op in module.walk())


def test_labels_are_names_when_unique_else_ordinals() -> None:
    module = parse_located(regcopy_context(), TEXT, "k.mlir")
    labels = copy_labels(module)
    assert [labels[c] for c in _copies(module)] == [
        "copy #1 %S -> %R in @k", "copy %R -> %S in @k", "copy #3 %S -> %R in @k"]


def test_op_error_carries_the_location_line() -> None:
    module = parse_located(regcopy_context(), TEXT, "k.mlir")
    text = op_error(_copies(module)[0], "is wrong")
    assert text.splitlines() == [
        "'regcopy.copy' op is wrong",
        "  at: regcopy.copy warp %S -> %R : memref<32x8xf32, #regcopy.mem<shared>> -> "
        "memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>",
        "  --> k.mlir:4:3"]


def test_diagnostic_format_and_capture(capsys: pytest.CaptureFixture[str]) -> None:
    d = Diagnostic("warning", "not lowered: x", "copy #1 in @k", "k.mlir:4:3", ("fix: y",))
    assert str(d) == "k.mlir:4:3: warning: not lowered: x [copy #1 in @k]\n  fix: y"
    with capture_diagnostics() as outer:
        emit(d)
        with capture_diagnostics() as inner:
            emit(d)
    assert (outer, inner) == ([d], [d])
    emit(d)
    assert capsys.readouterr().err == f"{d}\n"


def test_unterminated_string_is_a_parse_error_not_a_hang() -> None:
    """xDSL 0.74's string-literal regex backtracks exponentially on an unterminated '"'."""
    text = TEXT.replace("%S -> %R :", '%S -> "%R :', 1)
    start = time.monotonic()
    with pytest.raises(ParseError, match="closing string literal"):
        parse_located(regcopy_context(), text, "k.mlir")
    assert time.monotonic() - start < 5


def test_locations_print_with_debuginfo() -> None:
    module = parse_located(regcopy_context(), TEXT, "k.mlir")
    out = StringIO()
    Printer(stream=out, print_debuginfo=True).print_op(module)
    assert 'loc("k.mlir":4:3)' in out.getvalue()


@pytest.mark.parametrize(("line", "where", "message"), [
    ("%c = arith.constant 8 : i1", "k.mlir:7:3", "Integer value 8 is out of range for type i1"),
    ("%c = arith.constant 1 : f32\n  %d = arith.addi %c, %c : tensor<2xf32>", "k.mlir:8:3",
     "Unexpected attribute f32"),
])
def test_errors_while_building_an_op_become_located_parse_errors(line: str, where: str,
                                                                 message: str) -> None:
    """xDSL checks some attribute values while it builds an op (a ValueError or a
    VerifyException with no location); the locating parser reports them at the op."""
    text = TEXT.replace("  func.return", f"  {line}\n  func.return")
    with pytest.raises(ParseError) as info:
        parse_located(regcopy_context(), text, "k.mlir")
    assert str(info.value).startswith(f"{where}\n")
    assert message in str(info.value)
