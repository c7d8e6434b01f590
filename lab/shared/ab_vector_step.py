#!/usr/bin/env python3
"""A/B on the GPU: the lane-rotated bench_shared kernels as printed today (a rotated round's
shared access as the q-th vector from ``&S[a]``, ``cuda.function.vector_step``) against the
same IR printed without that form (``&S[a + (q << log2 n)]``), timed alternately three times
in one process, best of each, with the main loop's instructions / 128-bit accesses.

    python3 lab/shared/ab_vector_step.py

Results of 2026-12-02: lab/results/ab_vector_step_2026-12-02.txt.
"""

from __future__ import annotations

import regcopy_backend.cuda.function as function
import regcopy_backend.cuda.printer as printer
from regcopy_backend.runtime.runner import cuda_core, get_device
from regcopy_bench import bench_shared as bench
from regcopy_bench.sass_loops import sass_summary

CASES = [("16-bit k=16", ("load only", "store only")), ("32-bit k=8", ("load only", "store only")),
         ("32-bit k=16", bench.KINDS), ("32-bit k=32 (8-way)", bench.KINDS)]


def sources(step: bool) -> dict[tuple[str, str], str]:
    """Every case's CUDA, with or without the q-th-vector form."""
    saved = printer.vector_step, function.vector_step
    if not step:
        printer.vector_step = function.vector_step = lambda *_: None
    try:
        return {(name, kind): bench.lowered_source(next(s for s in bench.SHAPES
                                                        if s.name == name), kind, "auto")
                for name, kinds in CASES for kind in kinds}
    finally:
        printer.vector_step, function.vector_step = saved


def main() -> None:
    srcs = {"vector step": sources(True), "plain offset": sources(False)}
    core, dev = cuda_core(), get_device()
    props = dev.properties
    peak = bench.shared_peak(props)
    stream = dev.create_stream()
    out = dev.allocate(4096, stream=stream)
    ctas, iters = props.multiprocessor_count * 4, 4096
    for (name, kind) in srcs["vector step"]:
        s = next(s for s in bench.SHAPES if s.name == name)
        best = {t: 0.0 for t in srcs}
        for _ in range(3):
            for t in srcs:
                ms = bench.time_kernel(core, dev, stream, srcs[t][(name, kind)], ctas, iters,
                                       s.block, out)
                best[t] = max(best[t], bench.fraction_of_peak(s, kind, ms, ctas, iters, peak))
        loops = {t: sass_summary(srcs[t][(name, kind)])["loop"] for t in srcs}
        print(f"{name:20} {kind:10} " + "  ".join(
            f"{t} {best[t]:.3f}x (loop {loops[t][0]}/{loops[t][1]})" for t in srcs), flush=True)


if __name__ == "__main__":
    main()
