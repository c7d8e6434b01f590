"""A/B of ``regcopy-run --check``'s wall and CPU time: the installed ``regcopy-run`` against a
saved form of its module (``lab/interp/forms/*.py``), alternately, on the same arguments, and
the outputs (stdout and stderr) compared byte for byte.

    python3 lab/interp/ab_check.py FORM ROUNDS -- ARGS...

prints one line per run, ``<form|installed> <wall s> <cpu s> exit <code>``, then whether the
outputs were identical. Pin it (``taskset -c 0,1``) to time two cores; unset
``CUDA_VISIBLE_DEVICES`` (``CUDA_VISIBLE_DEVICES=``) for the CPU-only check."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time

LAUNCH = """import importlib.util, sys
spec = importlib.util.spec_from_file_location("regcopy_run_form", sys.argv[1])
module = importlib.util.module_from_spec(spec)
sys.modules["regcopy_run_form"] = module
spec.loader.exec_module(module)
sys.argv = ["regcopy-run", *sys.argv[2:]]
module.main()
"""


def timed(argv: list[str]) -> tuple[float, float, int, bytes]:
    """Wall and CPU seconds (the process and its children), exit status, stdout + stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, check=False, env=os.environ)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.returncode, proc.stdout + b"\n--- stderr\n" + proc.stderr


def main(argv: list[str]) -> int:
    form, rounds, args = argv[0], int(argv[1]), argv[argv.index("--") + 1:]
    outputs: dict[str, set[bytes]] = {"form": set(), "installed": set()}
    for _ in range(rounds):
        for label, command in (("form", [sys.executable, "-c", LAUNCH, form, *args]),
                               ("installed", ["regcopy-run", *args])):
            wall, cpu, code, output = timed(command)
            outputs[label].add(output)
            print(f"{label:9} {wall:7.2f} {cpu:7.2f} exit {code}", flush=True)
    same = outputs["form"] == outputs["installed"] and len(outputs["form"]) == 1
    print("outputs identical" if same else "OUTPUTS DIFFER")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
