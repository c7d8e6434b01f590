"""CI runs the linters too: ``ruff check`` over the repository with the rule set stated in
pyproject.toml (``[tool.ruff.lint]``), and mypy over the installed packages (``[tool.mypy]``),
both with no findings. Run by hand: ``ruff check . && mypy``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_ruff_finds_nothing() -> None:
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache",
                          "--output-format", "concise", "."],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_mypy_finds_nothing_in_the_packages(monkeypatch: pytest.MonkeyPatch) -> None:
    from mypy import api

    monkeypatch.chdir(ROOT)  # [tool.mypy] files are relative to the repository root
    out, err, status = api.run(["--config-file", str(ROOT / "pyproject.toml"),
                                "--cache-dir", str(ROOT / ".mypy_cache")])
    assert status == 0, out + err
    assert "Success: no issues found" in out
