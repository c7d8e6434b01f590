"""Where the time of ``regcopy-run --check`` goes, phase by phase (prepare: parse, lower,
CUDA, NVRTC; then per kernel the reference and the lowered run on the CPU interpreter):
``python3 lab/interp/phase_times.py examples/X.mlir ARGS...`` (regcopy-run's arguments)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from regcopy_backend.runtime.cpu_run import kernel_by_name, run_on_cpu
from regcopy_tools import regcopy_run as rr


def main() -> None:
    args = rr.parse_args(["--check", *sys.argv[1:]])
    text = Path(args.input).read_text()
    t0 = time.process_time()
    prepared = rr.prepare(text, args.input, args.passes)
    t1 = time.process_time()
    sass = rr.sass_listing(prepared)
    t2 = time.process_time()
    print(f"CPU seconds: prepare {t1 - t0:.2f} s, sass listing {t2 - t1:.2f} s")
    reference = rr.parse_module(text, args.input)[1]
    lowered = rr.lower_layout_access(prepared.module.clone())
    scalars = rr.parse_arg_specs(args.arg)
    grid = rr.parse_grid_spec(args.grid)
    rng = np.random.default_rng(args.seed)
    for info, fn in zip(prepared.kernels, rr.kernel_funcs(prepared), strict=True):
        host = rr.host_arguments(fn, rng, scalars)
        g = rr.kernel_grid(info, grid, host)
        t0 = time.process_time()
        want = run_on_cpu(reference, info.name, host, g)
        t1 = time.process_time()
        got = run_on_cpu(lowered, info.name, host, g)
        t2 = time.process_time()
        same = all(np.array_equal(a.view(np.uint8), b.view(np.uint8))
                   for a, b in zip(want, got, strict=True))
        kernel_by_name(reference, info.name)
        print(f"{info.name}: CPU seconds: reference {t1 - t0:.2f} s, lowered {t2 - t1:.2f} s, equal {same}")
    del sass


if __name__ == "__main__":
    main()
