"""``regcopy-viz``: draw the layouts (and copy plans) of a file (SPEC §8). Placeholder entry
point until the drawing lands."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(args: Sequence[str] | None = None) -> None:
    print("regcopy-viz: not built yet", file=sys.stderr)
    sys.exit(1)
