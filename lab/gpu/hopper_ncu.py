"""Nsight Compute's tensor pipe utilisation of one Hopper GEMM launch (4096^3 f16, the
example's form), beside its TFLOPS. Run on the H200:

    python3 lab/gpu/hopper_ncu.py OUT_DIR

On the H200's ncu (2026-12-03) ``sm__pipe_tensor_op_gmma_cycles_active`` is not a metric
(``--query-metrics`` lists 84 tensor-pipe names, none of them that one: its ratio printed
n/a); the wgmma pipe's activity is ``sm__pipe_tensor_cycles_active`` (all tensor ops; in a
wgmma kernel the same cycles as ``sm__pipe_tensor_op_hmma_cycles_active``) and its
instructions ``sm__inst_executed_pipe_tensor_op_gmma``. The 4th launch of ``gemm_hopper`` is
profiled at the boost clock (``--clock-control none``, as the benchmark runs), CSV to
``OUT_DIR/ncu.csv``; printed: each metric, then the utilisation
(``sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active``) and the TFLOPS of that
launch (``gpu__time_duration``).
"""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

NCU = "/usr/local/cuda/bin/ncu"
METRICS = ("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
           "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
           "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
           "sm__inst_executed_pipe_tensor_op_gmma.sum", "gpu__time_duration.sum",
           "sm__throughput.avg.pct_of_peak_sustained_elapsed")
UTILISATION = METRICS[0]
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
    cmd = ["timeout", "-k", "1", "13", NCU, "--clock-control", "none", "-k", "regex:gemm_hopper",
           "--launch-skip", "3", "--launch-count", "1", "--csv", "--metrics", ",".join(METRICS),
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
    util = values.get(UTILISATION, ("n/a", ""))[0]
    dur, unit = values.get("gpu__time_duration.sum", ("", ""))
    seconds = _number(dur)
    if seconds is not None:
        seconds *= {"ns": 1e-9, "nsecond": 1e-9, "us": 1e-6, "usecond": 1e-6, "ms": 1e-3,
                    "msecond": 1e-3}.get(unit, 1e-6)
    tflops = f"{FLOP / seconds / 1e12:.0f}" if seconds else "n/a"
    print(f"tensor pipe {util}% active (of its peak, SM-active cycles) at {tflops} TFLOPS "
          "(4096^3 f16, one launch under ncu)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
