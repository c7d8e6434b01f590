"""``lower-reg-copy`` plans each distinct copy once per run (``plan_key``), keeps the cycle
collector's state as it found it, and ``bench/bench_compile.py`` measures it."""

from __future__ import annotations

import gc

import pytest
import regcopy_passes.lower_reg_copy as lrc
from regcopy_bench import bench_compile
from regcopy_passes import lower
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from regcopy_dialect.context import regcopy_context

SHARED = "memref<32x64xf32, #regcopy.mem<shared>>"
LOCAL = "memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>"


def _kernel(copies: list[str]) -> str:
    body = "\n".join(f"  regcopy.copy warp %S[0, {c}] [32, 8] -> %R : {SHARED} -> {LOCAL}"
                     for c in copies)
    return f"""
func.func @k(%a: index, %b: index) attributes {{regcopy.launch = #regcopy.launch<block = 32, grid = [1]>}} {{
  %c4 = arith.constant 4 : index
  %a4 = arith.muli %a, %c4 : index
  %S = memref.alloca() : {SHARED}
  %R = memref.alloca() : {LOCAL}
{body}
  func.return
}}"""


def _parse(text: str) -> ModuleOp:
    return Parser(regcopy_context(), text).parse_module()


def test_identical_copies_are_planned_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[object] = []
    real = lrc.plan_for

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(args[0])
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(lrc, "plan_for", counting)
    module = lower(_parse(_kernel(["0", "0", "8", "0", "8"])))
    assert len(calls) == 2  # column 0 and column 8
    assert "regcopy.copy" not in str(module)


def test_each_plan_is_the_one_of_its_own_copy() -> None:
    """Copies that differ only in a dynamic offset get their own plan: ``%a4`` is provably a
    multiple of 4 (128-bit transfers), ``%b`` is not (32-bit)."""
    together = str(lower(_parse(_kernel(["%a4", "%b", "%a4"]))))
    alone = [str(lower(_parse(_kernel([c])))) for c in ("%a4", "%b")]
    assert "vector<4xf32>" in alone[0] and "vector<4xf32>" not in alone[1]
    assert "vector<1xf32>" in alone[1] and "vector<1xf32>" not in alone[0]
    assert together.count("vector<4xf32>") == 2 * alone[0].count("vector<4xf32>")
    assert together.count("vector<1xf32>") == alone[1].count("vector<1xf32>")


@pytest.mark.parametrize("enabled", [True, False])
def test_collector_state_is_restored(enabled: bool) -> None:
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        lower(_parse(_kernel(["0"])))
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


def test_bench_compile_prints_its_table(capsys: pytest.CaptureFixture[str]) -> None:
    bench_compile.main(["--sizes", "4", "--repeats", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert "pass/(parse+print)" in lines[0]
    assert [line.split()[:2] for line in lines[1:]] == [["same", "4"], ["mixed", "4"]]
