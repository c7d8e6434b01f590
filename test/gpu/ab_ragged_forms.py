#!/usr/bin/env python3
"""A/B on the GPU: the bench_ragged kernels (versioned and promised) under four forms of the
lowering, in one process, over N around the small-N knee of each tile:

* ``base``: neither of the two below;
* ``reach``: the rounds of a thread none of whose elements can be in bounds are skipped
  (``emit_bounds._reach``: one ``scf.if`` on the checks that no round changes);
* ``hoist``: a guarded global load takes its address before its ``if``
  (``cuda.printer.guarded_accesses``);
* ``reach+hoist``: both (what the tree emits).

Each N is timed in the order A, B, C, D, D, C, B, A (10 launches each, >= 256 MiB a launch);
the table gives GB/s and the ratio to the nearest aligned N of the same kernel; the promised
kernels run on aligned N only. Registers and SASS instruction counts come from this machine's
NVRTC.

    python3 test/gpu/ab_ragged_forms.py
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable

import regcopy_backend.cuda.printer as printer
import regcopy_passes.emit_bounds as emit_bounds
from regcopy_backend.cuda.spills import ptxas_usage
from regcopy_backend.runtime.nvrtc import compile_cuda, disassemble
from regcopy_backend.runtime.runner import compile_kernel, cuda_core, get_device
from regcopy_bench import bench_ragged as br

FORMS = ("base", "reach", "hoist", "reach+hoist")
NS = {br.ROWS: [4, 5, 7, 16, 17, 19, 32, 33, 35, 48, 49, 50, 51, 52, 53, 55, 64, 65, 67, 80, 81,
                83, 100, 101, 103, 128, 129, 131, 200, 201, 203],
      br.NARROW: [4, 5, 7, 16, 17, 19, 32, 33, 35, 64, 65, 67, 100, 101, 103, 128, 129, 131,
                  200, 201, 203],
      br.WIDE: [4000, 4001, 4002, 4003, 4004, 4064, 4065, 4067]}


def source(tile: br.Tile, promised: bool, form: str) -> str:
    """The benchmark kernel's CUDA under ``form``."""
    saved: tuple[Callable, Callable] = (emit_bounds._reach, printer.guarded_accesses)
    if "reach" not in form:
        emit_bounds._reach = lambda fr: []  # type: ignore[assignment]
    if "hoist" not in form:
        printer.guarded_accesses = lambda op: []  # type: ignore[assignment]
    try:
        return br.lowered(tile, promised)[0]
    finally:
        emit_bounds._reach, printer.guarded_accesses = saved


def main() -> int:
    srcs = {(t, p, f): source(t, p, f) for t in NS for p in (False, True) for f in FORMS}
    for (t, p, f), s in srcs.items():
        n = len(re.findall(r"/\*[0-9a-f]{4}\*/", disassemble(compile_cuda(s).cubin)))
        regs, spill = ptxas_usage(s, "sm_90")["ragged"]
        print(f"{t.rows}x{t.cols} {'promised ' if p else 'versioned'} {f:12} {n:5} SASS "
              f"instructions, {regs} registers, {spill} spill bytes")
    core, dev = cuda_core(), get_device()
    stream = dev.create_stream()
    kernels = {(t, (p, f)): (compile_kernel(dev, s, "ragged"), br.lowered(t, p)[1])
               for (t, p, f), s in srcs.items()}
    all_ns = {t: sorted(set(ns) | {br.aligned_of(n) for n in ns}) for t, ns in NS.items()}
    max_bytes = max(4 * br.rows_for(n, t) * n for t, ns in all_ns.items() for n in ns) + 4096
    x, y = dev.allocate(max_bytes, stream=stream), dev.allocate(max_bytes, stream=stream)
    bench = br.Bench(core, dev, stream, x, y, kernels)  # type: ignore[arg-type]
    for t, ns in all_ns.items():
        keys = [(p, f) for p in (False, True) for f in FORMS]
        bw: dict[tuple[tuple[bool, str], int], float] = {}
        for n in ns:
            m = bench.rows(t, n)
            run = [k for k in keys if n % 4 == 0 or not k[0]]
            ms = {k: 0.0 for k in run}
            for k in run + run[::-1]:
                ms[k] += bench.launch(t, k, m, n, 10) / 2  # type: ignore[arg-type]
            for k in run:
                bw[(k, n)] = 2 * 4 * m * n / ms[k] / 1e6
        print(f"\ntile {t.rows} x {t.cols}: GB/s (ratio to the aligned N); aligned N: "
              "versioned / promised time")
        print("| N | " + " | ".join(FORMS) + " |")
        print("|---|" + "---|" * len(FORMS))
        for n in NS[t]:
            a = br.aligned_of(n)
            cells = []
            for f in FORMS:
                v = bw[((False, f), n)]
                cell = f"{v:.0f} ({v / bw[((False, f), a)]:.3f})"
                if n % 4 == 0:
                    cell += f" v/p {bw[((True, f), n)] / v:.3f}"
                cells.append(cell)
            print(f"| {n} | " + " | ".join(cells) + " |", flush=True)
    for b in (x, y):
        b.close(stream)
    return 0


if __name__ == "__main__":
    sys.exit(main())
