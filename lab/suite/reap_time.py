"""Run a command and report the CPU seconds of every process it started, however deep.

``/usr/bin/time`` counts the processes that their parents waited for: a server that a test
starts and leaves to end with the run (the tools' fork servers, with every command they ran)
is missed. Here this process becomes a child subreaper (Linux ``PR_SET_CHILD_SUBREAPER``):
orphaned descendants are re-parented to it, and it waits for all of them, so their time is in
its ``RUSAGE_CHILDREN``. Prints ``all descendants: W s wall, U s user, S s system, C CPU-s``
on stderr (and to ``--out FILE``); exits with the command's status.
Usage: python3 lab/suite/reap_time.py [--out FILE] COMMAND [ARGS...]"""

from __future__ import annotations

import ctypes
import os
import resource
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def main(argv: list[str]) -> int:
    out = None
    if argv[:1] == ["--out"]:
        out, argv = argv[1], argv[2:]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print("reap_time: PR_SET_CHILD_SUBREAPER failed: descendants may be missed",
              file=sys.stderr)
    start = time.perf_counter()
    status = subprocess.call(argv)
    while True:  # the orphans, until none is left
        try:
            os.wait()
        except ChildProcessError:
            break
    wall = time.perf_counter() - start
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    line = (f"all descendants: {wall:.1f} s wall, {kids.ru_utime:.1f} s user, "
            f"{kids.ru_stime:.1f} s system, {kids.ru_utime + kids.ru_stime:.1f} CPU-s")
    print(line, file=sys.stderr)
    if out:
        with open(out, "w") as f:
            f.write(line + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
