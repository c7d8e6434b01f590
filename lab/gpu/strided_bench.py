"""Strided views against contiguous buffers on the H200 (lab, not installed): the 8 x 1024
f32 tile copy of ``regcopy_bench.bench_ragged`` (columns first, ~256 MiB a launch), once on
contiguous M x N buffers (its versioned kernel: no promise) and once on M x N views of
M x LD buffers: with the stride promised a multiple of 4 (``stride4``), with no promise
(``versioned``: the runtime test on the stride picks the 128-bit path when LD % 4 == 0, else
the fallback). GB/s counts the view's bytes (read + written); the ratio is to the contiguous
kernel at the same N, in the same process. Every kernel's output is checked against numpy
slicing once before timing (small M).

    python3 lab/gpu/strided_bench.py [--iters 20]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from regcopy_backend.runtime.runner import (
    compile_kernel,
    cuda_core,
    get_device,
    run_kernel,
)
from regcopy_bench.bench_copy import time_launches
from regcopy_bench.bench_ragged import WIDE, G, kernel_text, lower_text, rows_for

V = "memref<?x?xf32, strided<[?, 1]>, #regcopy.mem<global>>"
KINDS = {
    "contiguous": (G, ""),
    "stride4": (V, (" {regcopy.divisibility = array<i64: 1, 4>, "
                    "regcopy.stride_divisibility = array<i64: 4, 1>}")),
    "versioned": (V, ""),
}
CASES = [(4096, 4096 + 64), (4000, 4096), (4001, 4096), (4000, 4001), (4001, 4003),
         (1000, 1024), (1000, 1003), (100, 128), (100, 101)]
"""``(N, LD)``: the view's row length and the parent's row stride (LD == N: contiguous)."""


def texts() -> dict[str, str]:
    """The kernel of each kind: bench_ragged's versioned kernel, its buffers made ``g``
    with the promises ``p``."""
    base = kernel_text(WIDE, promised=False)
    return {kind: base.replace(f"%X: {G}", f"%X: {g}{p}").replace(f"%Y: {G}", f"%Y: {g}{p}")
            .replace(G, g) for kind, (g, p) in KINDS.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=20)
    args = ap.parse_args(argv)
    core, dev = cuda_core(), get_device()
    stream = dev.create_stream()
    built = {}
    for kind, text in texts().items():
        source, info = lower_text(text)
        built[kind] = (source, info, compile_kernel(dev, source, info.symbol))
    ok = True
    for kind, (source, info, kernel) in built.items():  # correctness first, small M
        for n, ld in CASES:
            if kind == "stride4" and (ld % 4 or n % 4):
                continue
            big = np.arange(16 * ld, dtype=np.float32).reshape(16, ld)
            x, y = big[:, :n], np.zeros((16, ld), np.float32)[:, :n]
            if kind == "contiguous":
                x, y = np.ascontiguousarray(x), np.zeros((16, n), np.float32)
            out = run_kernel(source, info, [x, y], kernel=kernel,
                             grid=WIDE.grid(16, n)).arrays[1]
            if not (out == x).all():
                ok = False
                print(f"MISMATCH {kind} N={n} LD={ld}")
    print(f"outputs checked against numpy slicing: {'all equal' if ok else 'MISMATCH'}")
    m_max = max(rows_for(n, WIDE) for n, _ in CASES)
    ld_max = max(ld for _, ld in CASES)
    xbuf = dev.allocate(4 * m_max * ld_max, stream=stream)
    ybuf = dev.allocate(4 * m_max * ld_max, stream=stream)

    def gbps(kind: str, n: int, ld: int) -> float:
        kernel = built[kind][2]
        m = rows_for(n, WIDE)
        params: list[object] = []
        for buf in (xbuf, ybuf):
            params += [int(buf.handle), np.int64(m), np.int64(n)]
            if kind != "contiguous":
                params.append(np.int64(ld))
        config = core.LaunchConfig(grid=WIDE.grid(m, n), block=(256, 1, 1))
        ms = time_launches(stream, lambda: core.launch(stream, config, kernel, *params),
                           args.iters)
        return 2 * 4 * m * n / ms / 1e6

    print(f"{'N':>5} {'LD':>5} {'contig GB/s':>11} {'stride4':>15} {'versioned':>15}")
    for n, ld in CASES:
        ref = gbps("contiguous", n, n)
        s4 = gbps("stride4", n, ld) if ld % 4 == 0 and n % 4 == 0 else None
        ver = gbps("versioned", n, ld)
        print(f"{n:>5} {ld:>5} {ref:>11.0f} {_cell(s4, ref)} {_cell(ver, ref)}")
    return 0 if ok else 1


def _cell(v: float | None, ref: float) -> str:
    """``GB/s (ratio to ref)``, or ``-`` where the kernel does not apply."""
    return f"{'-':>15}" if v is None else f"{v:8.0f} ({v / ref:4.2f}x)"


if __name__ == "__main__":
    sys.exit(main())
