"""Locations, labels and the diagnostic sink (regcopy_dialect.source, .diagnostics)."""

from __future__ import annotations

import dataclasses
import time
from io import BytesIO, StringIO

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
    format_error,
    op_error,
    op_location,
    parse_error,
)
from regcopy_dialect.regcopy import CopyOp
from regcopy_dialect.source import parse_located, quote, remember_source

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


def test_op_error_is_one_line_then_the_source_line_and_a_caret() -> None:
    module = parse_located(regcopy_context(), TEXT, "k.mlir")
    text = op_error(_copies(module)[0], "is wrong")
    assert text.splitlines() == [
        "k.mlir:4:3: error: 'regcopy.copy' op is wrong",
        TEXT.splitlines()[3],
        "  ^"]
    assert format_error("regcopy-opt", text) == text


def test_op_error_without_a_location_shows_the_printed_op() -> None:
    module = Parser(regcopy_context(), TEXT, "k.mlir").parse_module()
    text = op_error(_copies(module)[0], "is wrong")
    assert text.splitlines() == [
        "'regcopy.copy' op is wrong",
        "  at: regcopy.copy warp %S -> %R : memref<32x8xf32, #regcopy.mem<shared>> -> "
        "memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>"]
    assert format_error("regcopy-opt", text) == f"regcopy-opt: error: {text}"


def test_parse_error_is_one_line_then_the_source_line_and_carets() -> None:
    text = "func.func @k() {\n\t%x = arith.constant 8 : i1\n}\n"
    with pytest.raises(ParseError) as info:
        parse_located(regcopy_context(), text, "p.mlir", line_offset=10)
    # the line offset (a --split-input-file chunk) is added by the driver, on the span
    info.value.span = dataclasses.replace(info.value.span, line_offset=10)
    lines = parse_error(info.value).splitlines()
    assert lines[0].startswith("p.mlir:12:2: error: Integer value 8 is out of range")
    assert lines[1:] == ["\t%x = arith.constant 8 : i1", "\t" + "^" * 26]


def test_quote_lines_the_caret_up_with_tabs_and_knows_no_unparsed_file() -> None:
    remember_source("t.mlir", "a\n\t  bc\n", line_offset=4)
    assert quote("t.mlir", 6, 4, width=2) == ["\t  bc", "\t  ^^"]
    assert quote("t.mlir", 9, 1) == []  # past the text that was parsed
    assert quote("never-parsed.mlir", 1, 1) == []
    remember_source("t.mlir", "z\n")  # a new parse from the top forgets the old lines
    assert quote("t.mlir", 6, 1) == [] and quote("t.mlir", 1, 1) == ["z", "^"]


def test_diagnostic_quotes_the_source_line_before_its_notes() -> None:
    parse_located(regcopy_context(), TEXT, "k.mlir")
    d = Diagnostic("remark", "vec 4", "copy #1 in @k", "k.mlir:4:3", ("why: y",))
    assert str(d).splitlines() == ["k.mlir:4:3: remark: vec 4 [copy #1 in @k]",
                                   TEXT.splitlines()[3], "  ^", "  why: y"]


def test_diagnostic_format_and_capture(capsys: pytest.CaptureFixture[str]) -> None:
    d = Diagnostic("warning", "not lowered: x", "copy #1 in @k", "gone.mlir:4:3", ("fix: y",))
    assert str(d) == "gone.mlir:4:3: warning: not lowered: x [copy #1 in @k]\n  fix: y"
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


def test_xdsl_opt_mains_parse_with_locations_once_the_universe_is_loaded() -> None:
    """The universe hook: a stock ``xDSLOptMain`` (as ``xdsl-opt``) gives ops their
    ``file:line:col`` (line numbers from the top of the file under --split-input-file)."""
    from regcopy_tools.universe import locate_parsed_ops
    from xdsl.xdsl_opt_main import xDSLOptMain

    locate_parsed_ops()  # idempotent; already run when the universe was loaded
    assert getattr(xDSLOptMain.parse_chunk, "regcopy_locating", False)
    tool = xDSLOptMain(args=["k.mlir"])
    module = tool.parse_chunk(BytesIO(TEXT.encode()), "mlir", 20)
    assert module is not None
    assert op_location(_copies(module)[0]) == "k.mlir:24:3"
