"""Summarise lab/suite/suite_cpu.py's records (lab/suite_time.sh): the slowest tests by CPU
seconds, the CPU seconds and wall seconds of each test file, and each worker's share (with
``--dist loadfile`` a file runs on one worker, so the busiest worker sets the floor)."""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path


def main(folder: str, top: int = 30) -> None:
    rows = []
    for tsv in sorted(Path(folder).glob("*.tsv")):
        for line in tsv.read_text().splitlines():
            fields = line.split("\t", 3)
            rows.append((float(fields[0]), float(fields[1]), fields[2], fields[3]))
    rows.sort(reverse=True)
    print(f"slowest {top} tests by CPU seconds (cpu, wall, worker, test):")
    for row in rows[:top]:
        print(f"{row[0]:8.2f} {row[1]:8.2f}  {row[2]:5}  {row[3]}")
    files_cpu: defaultdict[str, float] = defaultdict(float)
    files_wall: defaultdict[str, float] = defaultdict(float)
    workers_cpu: defaultdict[str, float] = defaultdict(float)
    workers_wall: defaultdict[str, float] = defaultdict(float)
    for cpu, wall, worker, nodeid in rows:
        name = nodeid.split("::")[0]
        files_cpu[name] += cpu
        files_wall[name] += wall
        workers_cpu[worker] += cpu
        workers_wall[worker] += wall
    print(f"\nslowest {top} files by CPU seconds (cpu, wall, file):")
    for name, seconds in sorted(files_cpu.items(), key=lambda kv: -kv[1])[:top]:
        print(f"{seconds:8.2f} {files_wall[name]:8.2f}  {name}")
    print("\nper worker (cpu, wall of its tests):")
    for worker, seconds in sorted(workers_cpu.items()):
        print(f"{seconds:8.2f} {workers_wall[worker]:8.2f}  {worker}")
    print(f"\ntests: {len(rows)}; CPU seconds in tests: {sum(r[0] for r in rows):.1f}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 30)
