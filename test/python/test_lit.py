"""Run the lit + FileCheck suite from pytest: one item per lit test file.

A lit test is a ``*.mlir`` file under ``test/`` with a ``RUN:`` line, outside the directories that
``test/lit.cfg.py`` excludes (the same rule lit uses, so both see the same tests).

lit runs once per session on all the selected files, in parallel (lit's own ``-j``; startup of
``regcopy-opt`` dominates each test), and writes a JSON report; each item then checks its own
file's result and shows lit's output for that file when it failed. Scratch files (``%t``) go to
a per-session temporary directory, never into the source tree. ``UNSUPPORTED`` (a
``REQUIRES:`` feature such as ``gpu`` is missing) becomes a skip with lit's reason.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

TEST_ROOT = Path(__file__).resolve().parents[1]
EXCLUDED_DIRS = {"python", "Inputs", "Output", "__pycache__"}  # mirrors config.excludes
SUITE = "regcopy"  # config.name in lit.cfg.py


def _lit_tests() -> list[Path]:
    tests = []
    for path in sorted(TEST_ROOT.rglob("*.mlir")):
        rel = path.relative_to(TEST_ROOT)
        if EXCLUDED_DIRS.intersection(rel.parts[:-1]):
            continue
        if "RUN:" in path.read_text(encoding="utf-8", errors="replace"):
            tests.append(path)
    return tests


LIT_TESTS = _lit_tests()


def _lit_command() -> list[str]:
    # lit has no `__main__`, so `python -m lit` does not work; run its entry function with the
    # Python that runs pytest (the one regcopy is installed into; lit.cfg.py puts its bin/ on PATH).
    return [sys.executable, "-c", "import lit.main; lit.main.main()"]


def _name(path: Path) -> str:
    return f"{SUITE} :: {path.relative_to(TEST_ROOT).as_posix()}"


@pytest.fixture(scope="session")
def lit_results(request: pytest.FixtureRequest,
                tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Run lit once on every lit file selected in this session; results by lit test name."""
    selected = sorted({item.callspec.params["path"] for item in request.session.items
                       if getattr(item, "originalname", None) == "test_lit"
                       and hasattr(item, "callspec")})
    scratch = tmp_path_factory.mktemp("lit")
    report = scratch / "report.json"
    proc = subprocess.run(
        [*_lit_command(), "--no-progress-bar", "-q", "-o", str(report),
         "--param", f"exec_root={scratch / 'exec'}", *map(str, selected)],
        capture_output=True, text=True, timeout=1800)
    results: dict[str, Any] = {"__lit_output__": proc.stdout + proc.stderr}
    if report.exists():
        results.update({t["name"]: t for t in json.loads(report.read_text())["tests"]})
    return results


def test_lit_suite_is_found() -> None:
    assert (TEST_ROOT / "lit.cfg.py").is_file()
    assert LIT_TESTS, "no lit tests found under test/"
    for tool in ("regcopy-opt", "xdsl-opt", "filecheck"):
        assert (Path(sys.executable).parent / tool).exists() or shutil.which(tool), (
            f"{tool} is not installed (pip install -e '.[test]')")


@pytest.mark.parametrize("path", LIT_TESTS,
                         ids=[str(p.relative_to(TEST_ROOT)) for p in LIT_TESTS])
def test_lit(path: Path, lit_results: dict[str, Any]) -> None:
    result = lit_results.get(_name(path))
    if result is None:
        pytest.fail(f"lit reported no result for {_name(path)}:\n{lit_results['__lit_output__']}")
    if result["code"] == "UNSUPPORTED":
        pytest.skip(f"lit: UNSUPPORTED {_name(path)}: {result['output'].strip()}")
    assert result["code"] in ("PASS", "XFAIL"), (
        f"lit: {result['code']} {_name(path)}\n{result['output']}")
