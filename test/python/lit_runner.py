"""lit, run in the background of a pytest session (test/python/test_lit.py, conftest.py).

A lit test is a ``*.mlir`` file under ``test/`` with a ``RUN:`` line, outside the directories
that ``test/lit.cfg.py`` excludes (the same rule lit uses, so both see the same tests). Each RUN
line is real subprocesses; ``regcopy-opt``, ``xdsl-opt`` and ``filecheck`` are forked from a
server that has imported them once (tool_server.py; the installed scripts where no server
starts), so that a command costs its own work rather than xDSL's import. conftest.py starts
lit, with lit's own parallel workers, as soon as pytest has collected the session, and the
in-process tests run meanwhile; the first lit item waits for lit's JSON report. Scratch files
(``%t``) go to a temporary directory, never into the source tree.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tool_server import ToolServer

TEST_ROOT = Path(__file__).resolve().parents[1]
EXCLUDED_DIRS = {"python", "Inputs", "Output", "__pycache__"}  # mirrors config.excludes
SUITE = "regcopy"  # config.name in lit.cfg.py
TIMEOUT_S = 1800


def lit_tests() -> list[Path]:
    """Every lit test file under ``test/``, sorted."""
    tests = []
    for path in sorted(TEST_ROOT.rglob("*.mlir")):
        rel = path.relative_to(TEST_ROOT)
        if EXCLUDED_DIRS.intersection(rel.parts[:-1]):
            continue
        if "RUN:" in path.read_text(encoding="utf-8", errors="replace"):
            tests.append(path)
    return tests


def lit_name(path: Path) -> str:
    """lit's name of the test ``path`` (``regcopy :: dir/file.mlir``)."""
    return f"{SUITE} :: {path.relative_to(TEST_ROOT).as_posix()}"


def lit_command() -> list[str]:
    # lit has no `__main__`, so `python -m lit` does not work; run its entry function with the
    # Python that runs pytest (the one regcopy is installed into; lit.cfg.py puts its bin/ on PATH).
    return [sys.executable, "-c", "import lit.main; lit.main.main()"]


@dataclass
class LitRun:
    """One lit process over some test files, the server of its tool commands, its JSON
    report and its scratch directory."""

    proc: subprocess.Popen[bytes]
    tools: ToolServer | None
    scratch: Path

    @property
    def roundtrip(self) -> Path:
        """The round-trip records of the tool server's ``regcopy-opt`` commands."""
        return self.scratch / "roundtrip"

    def results(self) -> dict[str, Any]:
        """Wait for lit; its result per lit test name, and ``__lit_output__``: its output."""
        try:
            self.proc.wait(timeout=TIMEOUT_S)
            output = (self.scratch / "output.txt").read_text(errors="replace")
        except subprocess.TimeoutExpired:
            self.proc.kill()
            output = f"lit did not finish within {TIMEOUT_S} s"
        out: dict[str, Any] = {"__lit_output__": output}
        report = self.scratch / "report.json"
        if report.exists():
            out.update({t["name"]: t for t in json.loads(report.read_text())["tests"]})
        return out

    def stop(self) -> None:
        """End lit if it still runs (an interrupted session) and remove the scratch files."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.tools is not None:
            self.tools.stop()
        shutil.rmtree(self.scratch, ignore_errors=True)


def start(paths: list[Path]) -> LitRun:
    """Start lit on ``paths`` (lit's default workers: one a core) without waiting for it, its
    tool commands forked from a tool server (tool_server.py)."""
    scratch = Path(tempfile.mkdtemp(prefix="regcopy-lit-"))
    (scratch / "roundtrip").mkdir()
    try:
        tools: ToolServer | None = ToolServer.start(scratch, scratch / "roundtrip")
    except (OSError, RuntimeError):  # no server (a socket path too long, say): the scripts
        tools = None
    server = [] if tools is None else ["--param", f"tool_bin={tools.bindir}"]
    with open(scratch / "output.txt", "wb") as output:
        proc = subprocess.Popen(
            [*lit_command(), "--no-progress-bar", "-q", "-o", str(scratch / "report.json"),
             "--param", f"exec_root={scratch / 'exec'}", *server, *map(str, paths)],
            stdout=output, stderr=subprocess.STDOUT)
    return LitRun(proc, tools, scratch)


LIT_RUN = pytest.StashKey[LitRun]()
"""The session's lit run, in ``config.stash`` (started by conftest.py)."""


def selected_lit_files(items: list[pytest.Item]) -> list[Path]:
    """The lit files of the collected ``test_lit`` items."""
    return sorted({item.callspec.params["path"] for item in items
                   if getattr(item, "originalname", None) == "test_lit"
                   and hasattr(item, "callspec")})
