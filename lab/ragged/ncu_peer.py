"""Launch bench_ragged's kernel and Triton's same-tile copy once each per ``TILE:N`` for
Nsight Compute, to see where the two differ (the 64 x 64 tile below 32 columns, where no
form of ours reaches Triton's GB/s).

    ncu --clock-control none --metrics $(python3 lab/ragged/ncu_peer.py --metrics) \\
        --csv --page raw python3 lab/ragged/ncu_peer.py 64x64:25 128x32:25 > RAW.csv
    python3 lab/ragged/ncu_peer.py --table RAW.csv

Launch order (ncu's IDs): for each spec, regcopy's kernel then Triton's, each after one
unprofiled warm-up of its own (so Triton's JIT compile is not profiled; ``--launch-skip`` is
not needed because every warm-up is a launch too: the table keeps the odd IDs). Each launch
moves ``--mib`` MiB (default 256) of f32 rows, the bench's sizes.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Sequence

from regcopy_bench import bench_ragged as br

TILES = {"64x64": br.NARROW, "64x64rows": br.NARROW_ROWS, "128x32": br.FITTED[3],
         "32x256": br.ROWS, "8x1024": br.WIDE}
"""By spec name (``64x64``: warps on column halves since 2026-12-04 evening; the run in
lab/results/h200_2026-12-04b/ncu_peer/ profiled the two-rows layout under that name, now
``64x64rows``)."""
METRICS = (
    "gpu__time_duration.sum",
    "launch__registers_per_thread",
    "launch__occupancy_limit_registers",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "smsp__inst_executed.sum",
    "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "smsp__thread_inst_executed_per_inst_executed.ratio",
    "l1tex__throughput.avg.pct_of_peak_sustained_active",
    "l1tex__data_pipe_lsu_wavefronts.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "lts__t_sectors_op_write.sum",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_drain_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_membar_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio",
)


def launch_all(specs: Sequence[str], mib: int) -> None:
    from regcopy_bench.ragged_peer import Peer

    parsed = [(s, TILES[s.split(":")[0]], int(s.split(":")[1])) for s in specs]
    max_bytes = max(4 * br.rows_for(n, t, mib << 20) * n for _, t, n in parsed) + 4096
    peer = Peer(max_bytes)
    bench = br.setup(list({t for _, t, _ in parsed}), max_bytes, mib << 20, peer)
    for spec, tile, n in parsed:
        m = bench.rows(tile, n)
        ours = bench.launcher(tile, False, m, n)
        theirs = peer.launcher(tile.rows, tile.cols, m, n)
        for who, fn, sync in (("regcopy", ours, bench.stream.sync),
                              ("triton", theirs, peer.torch.cuda.synchronize)):
            fn()  # warm-up (Triton compiles here)
            sync()
            fn()
            sync()
            print(f"{spec} M={m} {who}: warm-up, then the profiled launch", flush=True)


def table(path: str) -> None:
    """The metrics of the profiled launches (every second one) of ncu's raw CSV at ``path``,
    one row per metric, one column per launch."""
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    head = next(i for i, r in enumerate(rows) if "ID" in r)
    names = rows[head]
    data = [r for r in rows[head + 2:] if len(r) == len(names)][1::2]
    kname = names.index("Kernel Name")
    print("| metric | " + " | ".join(r[kname][:18] for r in data) + " |")
    print("|---|" + "---|" * len(data))
    for k in METRICS:
        if k in names:
            j = names.index(k)
            print(f"| {k} | " + " | ".join(r[j] for r in data) + " |")


def main(argv: Sequence[str]) -> int:
    if argv[:1] == ["--metrics"]:
        print(",".join(METRICS))
        return 0
    if argv[:1] == ["--table"]:
        table(argv[1])
        return 0
    mib = 256
    if argv[:1] == ["--mib"]:
        mib, argv = int(argv[1]), argv[2:]
    launch_all(argv, mib)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
