"""Profile one interpreted launch of an example's kernel (CPU time of every Python thread):
``python3 lab/interp/profile_reference.py KERNEL reference|lowered examples/X.mlir ARGS...``
(regcopy-run's arguments after the mode)."""

from __future__ import annotations

import cProfile
import pstats
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_tools import regcopy_run as rr


def main() -> None:
    kernel, mode = sys.argv[1], sys.argv[2]
    args = rr.parse_args(["--check", *sys.argv[3:]])
    text = Path(args.input).read_text()
    prepared = rr.prepare(text, args.input, args.passes)
    module = (rr.parse_module(text, args.input)[1] if mode == "reference"
              else rr.lower_layout_access(prepared.module.clone()))
    rng = np.random.default_rng(args.seed)
    scalars, grid = rr.parse_arg_specs(args.arg), rr.parse_grid_spec(args.grid)
    for info, fn in zip(prepared.kernels, rr.kernel_funcs(prepared), strict=True):
        host = rr.host_arguments(fn, rng, scalars)
        if info.name != kernel:
            continue
        profiles: list[cProfile.Profile] = []
        original = threading.Thread.run

        def run(self: threading.Thread, profiles: list[cProfile.Profile] = profiles,
                original: Any = original) -> Any:
            p = cProfile.Profile(timer=time.thread_time)
            profiles.append(p)
            p.enable()
            try:
                return original(self)
            finally:
                p.disable()

        threading.Thread.run = run  # type: ignore[method-assign]
        main_profile = cProfile.Profile(timer=time.thread_time)
        main_profile.enable()
        run_on_cpu(module, kernel, host, rr.kernel_grid(info, grid, host))
        main_profile.disable()
        stats = pstats.Stats(main_profile)
        for p in profiles:
            stats.add(p)
        stats.sort_stats("tottime").print_stats(30)
        stats.sort_stats("cumulative").print_stats(40)


if __name__ == "__main__":
    main()
