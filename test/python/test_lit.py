"""Run the lit + FileCheck suite from pytest: one item per lit test file.

lit runs once per session on all the selected files, in parallel (lit's own workers; start-up
of ``regcopy-opt`` dominates each test), in the background from the end of collection on
(conftest.py, lit_runner.py), and writes a JSON report; each item then checks its own file's
result and shows lit's output for that file when it failed. ``UNSUPPORTED`` (a ``REQUIRES:``
feature such as ``gpu`` is missing) becomes a skip with lit's reason.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from lit_runner import (
    LIT_RUN,
    TEST_ROOT,
    lit_name,
    lit_tests,
    selected_lit_files,
    start,
)

LIT_TESTS = lit_tests()


@pytest.fixture(scope="session")
def lit_results(request: pytest.FixtureRequest) -> dict[str, Any]:
    """lit's result of every lit file selected in this session, by lit test name."""
    run = request.config.stash.get(LIT_RUN, None)
    if run is None:  # not started at collection (a pytest-xdist worker): start it now
        run = request.config.stash[LIT_RUN] = start(selected_lit_files(request.session.items))
    return run.results()


def test_lit_suite_is_found() -> None:
    assert (TEST_ROOT / "lit.cfg.py").is_file()
    assert LIT_TESTS, "no lit tests found under test/"
    for tool in ("regcopy-opt", "xdsl-opt", "filecheck"):
        assert (Path(sys.executable).parent / tool).exists() or shutil.which(tool), (
            f"{tool} is not installed (pip install -e '.[test]')")


@pytest.mark.parametrize("path", LIT_TESTS,
                         ids=[str(p.relative_to(TEST_ROOT)) for p in LIT_TESTS])
def test_lit(path: Path, lit_results: dict[str, Any]) -> None:
    result = lit_results.get(lit_name(path))
    if result is None:
        pytest.fail(f"lit reported no result for {lit_name(path)}:\n"
                    f"{lit_results['__lit_output__']}")
    if result["code"] == "UNSUPPORTED":
        pytest.skip(f"lit: UNSUPPORTED {lit_name(path)}: {result['output'].strip()}")
    assert result["code"] in ("PASS", "XFAIL"), (
        f"lit: {result['code']} {lit_name(path)}\n{result['output']}")


def test_printed_ir_parses_again(request: pytest.FixtureRequest,
                                 lit_results: dict[str, Any]) -> None:
    """Every ``regcopy-opt`` command of the lit run that printed IR parses its own output
    again (the tool server's round-trip records, tool_server.py): printed IR always
    re-parses."""
    import json

    run = request.config.stash[LIT_RUN]
    if run.tools is None:
        pytest.skip("the lit tool server did not start: no round-trip records")
    fails = [json.loads(p.read_text()) for p in sorted(run.roundtrip.glob("*.fail"))]
    oks = list(run.roundtrip.glob("*.ok"))
    assert not fails, "printed IR that does not parse again:\n" + "\n".join(
        f"regcopy-opt {' '.join(f['argv'])} (in {f['cwd']}): {f['error'][:400]}"
        for f in fails[:10])
    assert oks, "no regcopy-opt output was parsed again"
