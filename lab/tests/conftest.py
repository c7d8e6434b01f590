"""The lab's tests (not collected by the product's suite): ``python3 -m pytest -o addopts="" lab/tests``.

The lab's scripts import their siblings by plain name, as when they run as ``python3 lab/X/Y.py``.
"""

import sys
from pathlib import Path

LAB = Path(__file__).resolve().parents[1]
for folder in ("ncu", "ragged", "shared"):
    sys.path.insert(0, str(LAB / folder))
