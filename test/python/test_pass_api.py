"""The pass as a library: importable, composable in a PassPipeline, options as fields."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import builtin, vector
from xdsl.parser import Parser
from xdsl.passes import PassPipeline
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
from xdsl.universe import Universe
from xdsl.utils.exceptions import PassFailedException

from regcopy_dialect.context import regcopy_context
from regcopy_dialect.diagnostics import capture_diagnostics
from regcopy_dialect.regcopy import CopyOp
from regcopy_dialect.source import parse_located
from regcopy_passes.lower_reg_copy import LowerRegCopyPass, PassOptionError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _parse(text: str) -> tuple[Context, builtin.ModuleOp]:
    ctx = regcopy_context()
    return ctx, Parser(ctx, text, "test.mlir").parse_module()


def _vectors(module: builtin.ModuleOp) -> list[int]:
    return [op.result.type.get_shape()[0] for op in module.walk()
            if isinstance(op, vector.LoadOp)]


def test_pipeline_with_upstream_passes() -> None:
    ctx, module = _parse((EXAMPLES / "seed_demo.mlir").read_text())
    PassPipeline((LowerRegCopyPass(), CanonicalizePass(),
                  CommonSubexpressionElimination())).apply(ctx, module)
    module.verify()
    assert not any(isinstance(op, CopyOp) for op in module.walk())
    assert _vectors(module) == [4, 4, 4, 4]  # two copies, two lane-rotated rounds each


def test_options_are_fields_and_print_as_spec() -> None:
    assert str(LowerRegCopyPass(max_vector_bits=64)) == "lower-reg-copy{max_vector_bits=64}"
    ctx, module = _parse((EXAMPLES / "seed_demo.mlir").read_text())
    LowerRegCopyPass(max_vector_bits=64, bank_rotation="off").apply(ctx, module)
    assert _vectors(module) == [2, 2]  # one scf.for a copy, one load a round


def test_registered_in_the_multiverse() -> None:
    passes = Universe.get_multiverse().all_passes
    assert passes["lower-reg-copy"]() is LowerRegCopyPass
    pipe = PassPipeline.parse_spec(passes, "lower-reg-copy{max-vector-bits=32},canonicalize")
    assert [p.name for p in pipe.passes] == ["lower-reg-copy", "canonicalize"]


def test_strict_raises_pass_failed_with_reason() -> None:
    ctx, module = _parse("""
func.func @f() {
  %S = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S -> %R : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}""")
    with pytest.raises(PassFailedException, match=r"no regcopy\.launch"):
        LowerRegCopyPass(strict=True).apply(ctx, module)
    LowerRegCopyPass().apply(ctx, module)  # not strict: left in place
    assert any(isinstance(op, CopyOp) for op in module.walk())


def test_bad_max_vector_bits() -> None:
    with pytest.raises(PassFailedException, match="max-vector-bits must be one of"):
        LowerRegCopyPass(max_vector_bits=48)


def test_sub_byte_copy_is_rejected_by_the_dispatch_too() -> None:
    """B6 when verification is skipped (IR built by a program): the dispatch rejects it."""
    ctx, module = _parse("""
func.func @f() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<32x8xi4, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xi4, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S -> %R : memref<32x8xi4, #regcopy.mem<shared>> -> memref<32x8xi4, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}""")
    with pytest.raises(PassFailedException, match="sub-byte"):
        LowerRegCopyPass(strict=True).apply(ctx, module)


def test_no_dangling_uses_after_lowering() -> None:
    """Every use of every value belongs to an op that is in the module (the rewrite leaves
    no detached op holding uses, so later passes see true use counts)."""
    ctx, module = _parse((EXAMPLES / "seed_demo.mlir").read_text())  # ds = dr: one op serves both
    LowerRegCopyPass().apply(ctx, module)
    in_module = set(module.walk())
    for op in module.walk():
        for result in op.results:
            assert all(use.operation in in_module for use in result.uses), op.name


UNLOWERED = """
func.func @f() {
  %S = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S -> %R : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}"""


def _spec(text: str) -> LowerRegCopyPass:
    passes = Universe.get_multiverse().all_passes
    (p,) = PassPipeline.parse_spec(passes, text).passes
    assert isinstance(p, LowerRegCopyPass)
    return p


@pytest.mark.parametrize(("text", "expected"), [
    ("lower-reg-copy{strict}", LowerRegCopyPass(strict=True)),
    ("lower-reg-copy{strict remarks}", LowerRegCopyPass(strict=True, remarks=True)),
    ("lower-reg-copy{strict=false}", LowerRegCopyPass()),
    ("lower-reg-copy{max-vector-bits=64 warn-unlowered=false}",
     LowerRegCopyPass(max_vector_bits=64, warn_unlowered=False)),
    ("lower-reg-copy{max_vector_bits=32 bank_rotation=off transfer=vector}",
     LowerRegCopyPass(max_vector_bits=32, bank_rotation="off", transfer="vector")),
])
def test_options_bare_booleans_dashes_and_underscores(text: str,
                                                      expected: LowerRegCopyPass) -> None:
    assert _spec(text) == expected


@pytest.mark.parametrize(("text", "message"), [
    ("lower-reg-copy{vector-bits=64}", "unknown option 'vector-bits' (did you mean "
     "max-vector-bits?); the options are max-vector-bits, strict, remarks, warn-unlowered, "
     "bank-rotation, transfer"),
    ("lower-reg-copy{remarks=1}", "option remarks expects true or false"),
    ("lower-reg-copy{max-vector-bits}", "option max-vector-bits needs a value"),
    ("lower-reg-copy{max-vector-bits=auto}", "max-vector-bits expects one of 8, 16, 32, 64, 128"),
    ("lower-reg-copy{bank-rotation=on}", "bank-rotation must be one of auto, off, got 'on'"),
    ("lower-reg-copy{transfer=ldmatrix}", "transfer must be one of auto, vector"),
])
def test_option_errors_use_dash_spellings(text: str, message: str) -> None:
    with pytest.raises(PassOptionError) as info:
        _spec(text)
    assert message in str(info.value)
    assert not any(u in str(info.value) for u in ("max_vector", "warn_unlowered", "bank_rot"))
    assert isinstance(info.value, ValueError)  # what xDSL's own option errors are


def test_unlowered_copy_warns_once_with_location_and_label() -> None:
    ctx = regcopy_context()
    module = parse_located(ctx, UNLOWERED, "k.mlir", line_offset=10)
    with capture_diagnostics() as diags:
        LowerRegCopyPass().apply(ctx, module)
    assert [str(d).splitlines()[0] for d in diags] == [
        "k.mlir:15:3: warning: not lowered: the enclosing func.func has no regcopy.launch, so "
        "the active threads are unknown [copy %S -> %R in @f]"]
    assert diags[0].notes[0].startswith("add attributes {regcopy.launch")


def test_warnings_can_be_silenced_or_become_remarks() -> None:
    ctx, module = _parse(UNLOWERED)
    with capture_diagnostics() as diags:
        LowerRegCopyPass(warn_unlowered=False).apply(ctx, module)
    assert diags == []
    with capture_diagnostics() as diags:
        LowerRegCopyPass(remarks=True).apply(ctx, module)
    assert [(d.severity, d.message.split(":")[0]) for d in diags] == [("remark", "not lowered")]


def test_uncaptured_warning_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    ctx, module = _parse(UNLOWERED)
    LowerRegCopyPass().apply(ctx, module)
    err = capsys.readouterr().err
    assert err.startswith("warning: not lowered: the enclosing func.func has no regcopy.launch")
    assert err.count("\n") == 2  # the reason, then how to fix it


def test_remark_leads_with_result_and_labels_python_built_ir() -> None:
    """IR built in Python has no names and no file: copies are told apart by ordinal."""
    ctx, module = _parse((EXAMPLES / "seed_demo.mlir").read_text())
    for op in module.walk():
        for v in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)):
            v.name_hint = None
        op.location = builtin.UnknownLoc()
    with capture_diagnostics() as diags:
        LowerRegCopyPass(remarks=True).apply(ctx, module)
    banks = ("  2-way bank conflict: 8 wavefronts per round, ideal 4; lane-rotated rounds "
             "(lane bit 2 -> round ^ 1): 4 wavefronts per round, ideal 4, 1 swap per word")
    kinds = ["  ldmatrix not needed: 128-bit transfers already move 16 bytes a lane an "
             "instruction\n", "  stmatrix not needed: 128-bit transfers already move 16 bytes a "
             "lane an instruction\n"]
    assert [str(d) for d in diags] == [
        "remark: vec 4 × f32 (128 bits), 2 rounds, 8 registers/thread [copy #1 in @seed_demo]\n"
        + kinds[0] + banks,
        "remark: vec 4 × f32 (128 bits), 2 rounds, 8 registers/thread [copy #2 in @seed_demo]\n"
        + kinds[1] + banks]


def test_narrowed_remark_keeps_first_line_short() -> None:
    ctx = regcopy_context()
    text = (EXAMPLES.parent / "test" / "transforms" / "lower-reg-copy-worked.mlir").read_text()
    chunk = text.split("// -----")[1]
    module = parse_located(ctx, chunk, "w.mlir")
    with capture_diagnostics() as diags:
        LowerRegCopyPass(remarks=True).apply(ctx, module)
    (d,) = diags
    assert d.message == "vec 2 × f32 (64 bits), 4 rounds, 16 registers/thread"
    (note,) = d.notes
    assert note.startswith("narrowed: 4-wide refused: S base offset 2 is not a multiple of 4")
    assert all(len(line) < 200 for line in str(d).splitlines())


def test_rejection_clauses_after_the_first_go_to_indented_lines() -> None:
    from regcopy_passes.lower_reg_copy import _not_lowered

    _, module = _parse(UNLOWERED)
    (op,) = [c for c in module.walk() if isinstance(c, CopyOp)]
    plain = _not_lowered(op, "copy %S -> %R in @f", "warning", "too wide")
    assert str(plain) == "warning: not lowered: too wide [copy %S -> %R in @f]"
    fix = _not_lowered(op, "copy %S -> %R in @f", "warning", "too wide; use a pitch of 72; or 80")
    assert str(fix).splitlines() == ["warning: not lowered: too wide [copy %S -> %R in @f]",
                                     "  use a pitch of 72", "  or 80"]
