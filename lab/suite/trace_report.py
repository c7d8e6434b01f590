"""Summarise the NVRTC and nvdisasm calls that ``lab/suite/trace/sitecustomize.py`` recorded
(``lab/suite_time.sh --trace``): their count and CPU seconds by kind, the tests (or commands)
that made the most of them, and the compiles of one source and architecture made more than once
(by options and file name: what a cache keyed by content alone would share).
Usage: python3 lab/suite/trace_report.py TRACE_DIR [TOP]"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from pathlib import Path


def main(folder: str, top: int = 25) -> None:
    rows = [line.split("\t") for tsv in sorted(Path(folder).glob("*.tsv"))
            for line in tsv.read_text().splitlines()]
    by_kind: Counter[str] = Counter()
    cpu_kind: defaultdict[str, float] = defaultdict(float)
    by_test: defaultdict[str, float] = defaultdict(float)
    calls_test: Counter[str] = Counter()
    same: defaultdict[tuple[str, str], list[tuple[str, str, float]]] = defaultdict(list)
    lowered: defaultdict[str, list[tuple[str, float]]] = defaultdict(list)
    for kind, cpu, _wall, where, digest, name, rest in rows:
        by_kind[kind] += 1
        cpu_kind[kind] += float(cpu)
        test = where.split(" (")[0]
        by_test[f"{kind} {test}"] += float(cpu)
        calls_test[f"{kind} {test}"] += 1
        if kind == "nvrtc":
            arch, _, options = rest.partition(" ")
            same[digest, arch].append((name, options, float(cpu)))
        if kind == "lower":
            lowered[digest].append((test, float(cpu)))
    for kind in sorted(by_kind):
        print(f"{kind}: {by_kind[kind]} calls, {cpu_kind[kind]:.1f} CPU-s")
    print(f"\ntop {top} tests/commands by CPU seconds in these tools (cpu, calls, what):")
    for key, seconds in sorted(by_test.items(), key=lambda kv: -kv[1])[:top]:
        print(f"{seconds:8.2f} {calls_test[key]:4d}  {key[:150]}")
    print("\nsources compiled more than once (cpu of the repeats, variants):")
    repeats = []
    for (digest, arch), calls in same.items():
        if len(calls) > 1:
            cost = sum(c for _, _, c in calls) - max(c for _, _, c in calls)
            variants = Counter(f"{n}|{o}" for n, o, _ in calls)
            repeats.append((cost, digest, arch, variants))
    repeats.sort(reverse=True)
    print(f"in all {sum(r[0] for r in repeats):.1f} CPU-s over {len(repeats)} sources")
    for extra, digest, arch, variants in repeats[:top]:
        print(f"{extra:8.2f}  {digest} {arch}  {dict(variants)}")
    again = sorted(((sum(c for _, c in calls) - max(c for _, c in calls), digest, calls)
                    for digest, calls in lowered.items() if len(calls) > 1), reverse=True)
    print("\ntexts parsed and lowered more than once (parse_and_lower; cpu of the repeats, "
          "tests):")
    print(f"in all {sum(a[0] for a in again):.1f} CPU-s over {len(again)} texts")
    for extra, digest, done in again[:top]:
        tests = Counter(t.split("::")[0].split("/")[-1] for t, _ in done)
        print(f"{extra:8.2f}  {digest}  {dict(tests)}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 25)
