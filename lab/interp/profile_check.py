"""Profile ``regcopy-run --check`` of one example on the CPU interpreter (CPU time of every Python thread of
a phased CTA included): ``REGCOPY_CHECK_JOBS=1 python3 lab/interp/profile_check.py examples/X.mlir ARGS...``
(the arguments of regcopy-run). Prints the top functions by own time and by cumulative time."""

from __future__ import annotations

import cProfile
import pstats
import sys
import threading
import time
from typing import Any

from regcopy_tools import regcopy_run


def main() -> None:
    profiles: list[cProfile.Profile] = []
    lock = threading.Lock()
    original = threading.Thread.run

    def run(self: threading.Thread) -> Any:
        p = cProfile.Profile(timer=time.thread_time)
        with lock:
            profiles.append(p)
        p.enable()
        try:
            return original(self)
        finally:
            p.disable()

    threading.Thread.run = run  # type: ignore[method-assign]
    main_profile = cProfile.Profile(timer=time.thread_time)
    start = time.perf_counter()
    main_profile.enable()
    try:
        regcopy_run.run(regcopy_run.parse_args(["--check", *sys.argv[1:]]))
    finally:
        main_profile.disable()
    print(f"wall {time.perf_counter() - start:.1f} s, {len(profiles)} Python threads",
          file=sys.stderr)
    stats = pstats.Stats(main_profile)
    for p in profiles:
        stats.add(p)
    stats.sort_stats("tottime").print_stats(35)
    stats.sort_stats("cumulative").print_stats(45)


if __name__ == "__main__":
    main()
