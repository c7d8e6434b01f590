"""Launch the bench_ragged kernel once per ``TILE:N[:promised]`` for Nsight Compute to profile.

    ncu --clock-control none --section SpeedOfLight --section WarpStateStats ... \\
        python3 lab/ragged/ncu_ragged.py [--mib M] 32x256:40 32x256:41 64x64:17 ...
    python3 lab/ragged/ncu_ragged.py --table RAW.csv     # ncu --csv --page raw  ->  one table
    ncu --clock-control none --section SourceCounters --page source --csv --print-source sass \\
        python3 lab/ragged/ncu_ragged.py 32x256:40 32x256:41 > SOURCE.csv
    python3 lab/ragged/ncu_ragged.py --opcodes SOURCE.csv  # warp instructions by opcode

Each spec is launched once, in the order given (ncu's launch IDs follow it; the mapping is
printed), on an M x N copy moving ``--mib`` MiB (default 64). ``--table`` reads the raw CSV of
such a run and prints the counters that tell a latency-, issue- or L1-bound copy apart, one
column per launch; ``--opcodes`` reads ncu's per-SASS-instruction page and prints the warp
instructions executed by opcode (predicated-off ones count: they take an issue slot), one
column per launch.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Sequence

from regcopy_bench import bench_ragged as br
from ab_sources import TILES

SHOWN = (
    "gpu__time_duration.sum",
    "launch__registers_per_thread",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "smsp__inst_executed.sum",
    "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "smsp__thread_inst_executed_per_inst_executed.ratio",
    "l1tex__throughput.avg.pct_of_peak_sustained_active",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
)
STALL = "smsp__average_warp_latency_issue_stalled_"
STALL2 = "smsp__average_warps_issue_stalled_"


def parse(spec: str) -> tuple[str, br.Tile, int, bool]:
    """``TILE:N[:promised]`` -> ``(TILE, its Tile, N, promised)``."""
    name, n, *rest = spec.split(":")
    promised = rest == ["promised"]
    if promised and int(n) % 4:
        raise SystemExit(f"ncu_ragged: {spec}: the promised kernel needs N % 4 == 0 "
                         "(its rows are promised a multiple of 4)")
    return name, TILES[name], int(n), promised


def launch_all(specs: Sequence[str], mib: int) -> None:
    """One launch of the bench kernel per spec, in order, each synchronized and announced."""
    parsed = [parse(s) for s in specs]
    tiles = list({t for _, t, _, _ in parsed})
    max_bytes = max(4 * br.rows_for(n, t, mib << 20) * n for _, t, n, _ in parsed) + 4096
    bench = br.setup(tiles, max_bytes, mib << 20)
    for i, (name, tile, n, promised) in enumerate(parsed):
        m = bench.rows(tile, n)
        bench.launcher(tile, promised, m, n)()
        bench.stream.sync()
        print(f"launch {i}: {name} N={n} M={m} {'promised' if promised else 'versioned'}",
              flush=True)


def table(path: str) -> None:
    """The ``SHOWN`` counters and the stall reasons above 0.05 of ncu's raw CSV at ``path``,
    one row per counter, one column per launch (ncu's ``ID``)."""
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    head = next(i for i, r in enumerate(rows) if "ID" in r)
    names = rows[head]
    data = [r for r in rows[head + 2:] if len(r) == len(names)]
    keep = [k for k in names if k in SHOWN or (k.startswith((STALL, STALL2)) and
                                                 any(_num(r[names.index(k)]) > 0.05
                                                     for r in data))]
    print("| counter | " + " | ".join(f"{r[names.index('ID')]}" for r in data) + " |")
    print("|---|" + "---|" * len(data))
    for k in keep:
        j = names.index(k)
        print(f"| {k} | " + " | ".join(r[j] for r in data) + " |")


def opcodes(path: str) -> None:
    """Warp instructions executed per opcode (``LDG``, ``ISETP``, ...; the modifiers and the
    guard predicate dropped) of each kernel in ncu's ``--page source`` CSV at ``path``, the
    most executed first."""
    from collections import Counter

    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    launches: list[Counter[str]] = []
    head: list[str] = []
    for r in rows:
        if r[0] == "Kernel Name":
            launches.append(Counter())
            head = []
        elif launches and not head:
            head = r
        elif launches and len(r) == len(head):
            words = r[head.index("Source")].split()
            op = words[1] if words and words[0].startswith("@") else (words or [""])[0]
            launches[-1][op.split(".")[0]] += int(_num(r[head.index("Instructions Executed")]))
    total: Counter[str] = sum(launches, Counter())
    print("| opcode | " + " | ".join(str(i) for i in range(len(launches))) + " |")
    print("|---|" + "---|" * len(launches))
    print("| all | " + " | ".join(f"{sum(c.values()):,}" for c in launches) + " |")
    for op, _ in total.most_common():
        print(f"| {op} | " + " | ".join(f"{c[op]:,}" for c in launches) + " |")


def _num(s: str) -> float:
    """ncu's number text (``1,234.5``) as a float; 0 for anything else."""
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return 0.0


def main(argv: Sequence[str]) -> int:
    if argv[:1] == ["--table"]:
        table(argv[1])
        return 0
    if argv[:1] == ["--opcodes"]:
        opcodes(argv[1])
        return 0
    mib = 64
    if argv[:1] == ["--mib"]:
        mib, argv = int(argv[1]), argv[2:]
    launch_all(argv, mib)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
