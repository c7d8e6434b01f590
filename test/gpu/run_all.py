#!/usr/bin/env python3
"""The whole GPU run of regcopy, one table on stdout.

    python test/gpu/run_all.py [--seed N] [--only NAME ...] [--no-sanitizer] [--dry-run]

For every case of test/gpu/cases.py (the four seed-table rows, the worked examples,
the B1-B4 programs (where TIRx mis-lowers), examples/cta_tile.mlir, a 192 KiB shared.dyn kernel,
the GEMM example examples/gemm_tiles.mlir, and a misaligned launch that must be refused): lower with lower-reg-copy, print CUDA, compile with NVRTC, check the plan
(vector width x rounds per copy) and that the SASS has no LDL/STL, run on the GPU with
deterministic random inputs and compare every buffer with the numpy expectation. Then, when
compute-sanitizer is found, the same run again under ``compute-sanitizer --tool memcheck``.
``--dry-run`` does everything but the GPU part (for machines without a GPU).

Needs only numpy, xdsl, cuda-core and cuda-bindings: the repository does not have to be
installed (the script makes its packages importable from the checkout). Exit status: 0 all OK,
1 a case failed, 2 no GPU.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from cases import (
    ALIGNMENT_CASE,
    ALL_CASES,
    CaseResult,
    GpuCase,
    analyse_case,
    run_case,
)
from ldmatrix_cases import LDMATRIX_GPU_CASES

from regcopy_backend.runtime.runner import gpu_available

HEADER = ("kernel", "plan (vec x rounds, or instruction x count, per copy)", "PTX vector ops", "LDL/STL", "result",
          "time ms")


def fmt_row(r: CaseResult) -> tuple[str, ...]:
    plan = " ".join(f"{v}x{n}" if isinstance(v, int) else f"{v}*{n}" for v, n in r.plan) or "-"
    ptx = " ".join(f"{op}*{n}" for op, n in sorted(r.ptx_ops.items())) or "-"
    local = "n/a" if r.local_accesses is None else str(r.local_accesses)
    return (r.name, plan, ptx, local, r.status, f"{r.seconds * 1e3:.3f}")


def print_table(rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    for i, row in enumerate(rows):
        print(" | ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
        if i == 0:
            print("-+-".join("-" * w for w in widths))


def find_sanitizer() -> str | None:
    """compute-sanitizer from the wheels, PATH or the usual toolkit places."""
    try:
        from cuda.pathfinder import find_nvidia_binary_utility

        if (found := find_nvidia_binary_utility("compute-sanitizer")) is not None:
            return str(found)
    except Exception:  # noqa: BLE001 - pathfinder missing or too old
        pass
    if (found := shutil.which("compute-sanitizer")) is not None:
        return found
    for candidate in ("/usr/local/cuda/bin/compute-sanitizer",
                      "/usr/local/cuda/compute-sanitizer/compute-sanitizer"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def run_sanitizer(args: argparse.Namespace) -> bool:
    """Re-run this script under memcheck; print one summary line; True when clean."""
    tool = find_sanitizer()
    if tool is None:
        print("compute-sanitizer memcheck: not available (skipped)")
        return True
    # API errors that cuda.core checks and handles itself (e.g. cuCtxGetDevice before a context
    # is current) are not memory errors: report device-side memory errors only.
    cmd = [tool, "--tool", "memcheck", "--report-api-errors", "no", "--error-exitcode", "86",
           sys.executable,
           str(Path(__file__).resolve()), "--no-sanitizer", "--seed", str(args.seed)]
    for name in args.only or ():
        cmd += ["--only", name]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    summary = [ln for ln in (proc.stdout + proc.stderr).splitlines() if "ERROR SUMMARY" in ln]
    clean = proc.returncode == 0
    verdict = "clean" if clean else f"FAILED (exit {proc.returncode})"
    print(f"compute-sanitizer memcheck: {verdict}; {summary[-1] if summary else 'no summary'}")
    if not clean:
        lines = (proc.stdout + proc.stderr).splitlines()
        errors = [ln for ln in lines if ln.startswith("=========") and "Frame" not in ln]
        print("\n".join(errors[:40]))
    return clean


def selected(only: list[str] | None) -> list[GpuCase]:
    cases = [*ALL_CASES, *LDMATRIX_GPU_CASES, ALIGNMENT_CASE]
    if not only:
        return cases
    return [c for c in cases if any(o in c.name for o in only)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", action="append", help="run the cases whose name contains this")
    ap.add_argument("--no-sanitizer", action="store_true", help="skip compute-sanitizer")
    ap.add_argument("--dry-run", action="store_true",
                    help="no GPU: lower, compile and check plans and SASS only")
    args = ap.parse_args()
    if args.dry_run:
        device = "no GPU (dry run: compile and check only)"
    else:
        ok, device = gpu_available()
        if not ok:
            print(f"run_all: {device}", file=sys.stderr)
            return 2
    print(f"regcopy GPU run on {device}, seed {args.seed}")
    start = time.perf_counter()
    results: list[CaseResult] = []
    for case in selected(args.only):
        try:
            results.append(analyse_case(case)[0] if args.dry_run else run_case(case, args.seed))
        except Exception as e:  # noqa: BLE001 - one broken case must not hide the others
            results.append(CaseResult(case.name, False, f"FAIL: {type(e).__name__}: {e}"))
    print_table([HEADER, *(fmt_row(r) for r in results)])
    for r in results:
        for line in r.details:
            print(f"  {r.name}: {line}")
    failed = [r.name for r in results if not r.ok]
    print(f"{len(results) - len(failed)}/{len(results)} OK in "
          f"{time.perf_counter() - start:.1f} s" + (f"; failed: {', '.join(failed)}" if failed
                                                     else ""))
    clean = True if args.no_sanitizer or args.dry_run else run_sanitizer(args)
    return 0 if not failed and clean else 1


if __name__ == "__main__":
    sys.exit(main())
