"""Nsight Compute's tensor pipe utilisation of one Hopper GEMM launch (4096^3 f16, the
example's form), beside its TFLOPS. Run on the H200:

    python3 lab/gpu/hopper_ncu.py OUT_DIR

1. ``ncu --query-metrics`` lists the device's metric names; the gmma / tensor-pipe ones go to
   ``OUT_DIR/ncu_metrics.txt`` (the names differ between ncu versions and chips: the last run's
   ``sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active`` printed n/a);
2. the candidates below that the list has are collected for the 4th launch of ``gemm_hopper``
   (``--clock-control none``: the boost clock, as the benchmark runs), CSV to
   ``OUT_DIR/ncu.csv``;
3. printed: each metric, the utilisation ``gmma pipe active cycles / elapsed SM cycles`` (both
   summed over the SMs) and the launch's TFLOPS from ``gpu__time_duration``.
"""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

NCU = "/usr/local/cuda/bin/ncu"
BASES = ("sm__pipe_tensor_op_gmma_cycles_active", "sm__inst_executed_pipe_tensor_op_gmma",
         "sm__pipe_tensor_cycles_active", "sm__pipe_tensor_op_hmma_cycles_active",
         "sm__pipe_shared_cycles_active")
SUFFIXES = (".sum", ".avg.pct_of_peak_sustained_active", ".avg.pct_of_peak_sustained_elapsed")
ALWAYS = ("gpu__time_duration.sum", "sm__cycles_elapsed.sum", "sm__cycles_active.sum",
          "sm__throughput.avg.pct_of_peak_sustained_elapsed")
FLOP = 2.0 * 4096 ** 3


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/out")
    out.mkdir(parents=True, exist_ok=True)
    # `timeout` (SIGTERM, then SIGKILL) rather than subprocess's kill: ncu ends its target
    query = subprocess.run(["timeout", "-k", "2", "6", NCU, "--query-metrics"],
                           capture_output=True, text=True)
    listed = [ln for ln in query.stdout.splitlines()
              if "gmma" in ln.lower() or "pipe_tensor" in ln.lower()]
    (out / "ncu_metrics.txt").write_text("\n".join(listed) + "\n")
    print(f"ncu --query-metrics: {len(listed)} gmma/tensor-pipe names (ncu_metrics.txt):")
    for ln in listed[:12]:
        print("  " + ln[:150])
    # without a list (the query failed): the counter the last run showed to exist
    names = {ln.split()[0] for ln in listed if ln.split()} or {BASES[0]}
    metrics = [b + s for b in BASES if b in names for s in SUFFIXES] + list(ALWAYS)
    cmd = ["timeout", "-k", "2", "20", NCU, "--clock-control", "none", "-k", "regex:gemm_hopper",
           "--launch-skip", "3", "--launch-count", "1", "--csv", "--metrics", ",".join(metrics),
           sys.executable, "-m", "regcopy_bench.bench_gemm_hopper", "--iters", "1",
           "--dtypes", "f16", "--sizes", "4096x4096x4096", "--no-peers"]
    run = subprocess.run(cmd, capture_output=True, text=True)
    (out / "ncu.csv").write_text(run.stdout + run.stderr)
    start = run.stdout.find('"ID"')
    if run.returncode or start < 0:
        print(f"ncu failed (exit {run.returncode}):\n{run.stderr[-2000:]}{run.stdout[-2000:]}")
        return 1
    values: dict[str, tuple[str, str]] = {}
    for row in csv.DictReader(io.StringIO(run.stdout[start:])):
        values[row["Metric Name"]] = (row["Metric Value"], row["Metric Unit"])
    for name, (value, unit) in values.items():
        print(f"  {name}: {value} {unit}")
    active = _number(values.get("sm__pipe_tensor_op_gmma_cycles_active.sum", ("", ""))[0])
    elapsed = _number(values.get("sm__cycles_elapsed.sum", ("", ""))[0])
    dur, unit = values.get("gpu__time_duration.sum", ("", ""))
    seconds = _number(dur)
    if seconds is not None:
        seconds *= {"ns": 1e-9, "us": 1e-6, "usecond": 1e-6, "nsecond": 1e-9, "ms": 1e-3,
                    "msecond": 1e-3}.get(unit, 1e-6)
    util = f"{100 * active / elapsed:.1f}%" if active and elapsed else "n/a"
    tflops = f"{FLOP / seconds / 1e12:.0f}" if seconds else "n/a"
    print(f"tensor pipe (gmma) active {util} of the elapsed SM cycles at {tflops} TFLOPS "
          "(4096^3 f16, one launch under ncu)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
