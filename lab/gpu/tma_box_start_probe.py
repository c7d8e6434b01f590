"""Which box start columns does the H200's TMA take? An A/B probe of the rule
``transfer=tma`` enforces (the box's first global column a multiple of 16 bytes, else
``cp.async``): each case is lowered with the rule switched off (``BOX_START_ALIGN = 1``) and run
in its own process (a fault ends the CUDA context), then compared with numpy. Prints one line
per case: ``exact``, ``WRONG`` or ``FAULT (...)``. If every case is exact the rule could be
relaxed to the element size; the issue reported faults at f16 columns 2 and 3.

    python3 lab/gpu/tma_box_start_probe.py        (from the repository root, on a GPU)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CASES = [("f16", c) for c in (1, 2, 3, 4, 6)] + [("f32", 1), ("f32", 2), ("i8", 4)]
CHILD_ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    p for p in (str(ROOT / "test" / "python"), os.environ.get("PYTHONPATH", "")) if p)}
"""Each case's process imports the test suite's TMA cases (``tma_cases``) by name."""


def one(elem: str, col: int) -> None:
    """Lower and run one case with the rule off; exit 0 exact, 1 wrong (in a process started
    with ``CHILD_ENV``)."""
    from regcopy_passes.tma import plan as tma_plan
    from tma_cases import TmaCase, run_module

    tma_plan.BOX_START_ALIGN = 1
    ((case, ok, how),) = run_module([TmaCase(elem=elem, col=col)])
    print(f"{case.name}: {'exact' if ok else 'WRONG'} ({how})")
    sys.exit(0 if ok and how == "tma" else 1)


def main() -> int:
    bad = 0
    for elem, col in CASES:
        try:
            r = subprocess.run([sys.executable, __file__, elem, str(col)], capture_output=True,
                               text=True, timeout=20, check=False, env=CHILD_ENV)
        except subprocess.TimeoutExpired:
            print(f"{elem} column {col}: TIMEOUT")
            bad += 1
            continue
        last = (r.stdout.strip().splitlines() or [""])[-1]
        if r.returncode == 0:
            print(last)
        else:
            err = (r.stderr.strip().splitlines() or ["?"])[-1]
            print(f"{elem} column {col}: {last or 'FAULT'} ({err[:160]})")
            bad += 1
    print(f"box start probe: {len(CASES) - bad} exact, {bad} faulted or wrong (rule off)")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3:
        one(sys.argv[1], int(sys.argv[2]))
    sys.exit(main())
