"""Print the code block that docs/PAGE.md saves as FILE (``<!-- file: FILE ... -->``), so a GPU
run can execute exactly what the manual shows: ``python3 test/gpu/doc_block.py ir transpose.mlir``."""

from __future__ import annotations

import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def doc_block(page: str, name: str) -> str:
    """The body of the fenced block that follows ``<!-- file: name ... -->`` in ``page``."""
    text = (DOCS / f"{page}.md").read_text()
    found = re.search(rf"<!-- file: {re.escape(name)}\b[^>]*-->\s*```\w*\n(.*?)```", text, re.S)
    if found is None:
        raise SystemExit(f"doc_block: docs/{page}.md saves no file {name}")
    return found.group(1)


if __name__ == "__main__":
    sys.stdout.write(doc_block(sys.argv[1], sys.argv[2]))
