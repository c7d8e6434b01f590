"""The repository keeps to its house rules: it cites no document outside itself, and its
experiments stay out of the product and the suite (``lab/``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE = ("SPEC §", "SPEC.md", "algorithm.md", "../shared", "/work/shared")
"""Citations of documents that are not in the repository."""


def _tracked(*patterns: str) -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z", "--", *patterns], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    return [ROOT / p for p in out.split("\0") if p]


def test_nothing_cites_a_document_outside_the_repository() -> None:
    """Code, tests, examples and docs say things in the repository's own words."""
    checkers = (Path(__file__).resolve(), ROOT / "test" / "python" / "test_docs.py")
    files = [p for p in _tracked("*.py", "*.mlir", "*.md", "*.sh", "*.toml", "*.cfg")
             if p not in checkers and p.exists() and "lab/results" not in p.as_posix()]
    assert len(files) > 100
    bad = [f"{p.relative_to(ROOT)}: {word}" for p in files for word in OUTSIDE
           if word in p.read_text(errors="replace")]
    assert bad == []


def test_experiments_live_in_lab_not_in_the_product_or_the_suite() -> None:
    """No saved result logs or A/B scripts under test/ or the installed packages."""
    product = _tracked("test", "bench", "passes", "backend", "tools", "regcopy_dialect")
    misplaced = [p.relative_to(ROOT).as_posix() for p in product
                 if p.name.startswith(("ab_", "ncu_")) or "/results/" in p.as_posix()
                 or p.suffix in (".log", ".tsv")]
    assert misplaced == []
