#!/usr/bin/env python3
"""Is the 1..256 range's loss on small N the fallback's, or the small CTAs'? The bench_ragged
copy as a persistent kernel: each CTA walks the tiles ``b, b + gridDim, ...`` in an
``scf.for`` (the same two copies, lowered by the same pass, versioned), on a grid of as many
CTAs as fit on the GPU at once, so that no CTA is launched per tile.

    python3 lab/ragged/ab_persistent.py [--iters K] [--narrow A:B] [--rows A:B]

Prints, per tile (64x64 and 32x256), the same table and summaries as ``bench_ragged``: each
N's bandwidth as a ratio to the nearest aligned N of the same kernel, the misaligned N by band,
and the versioned kernel against the promised one on aligned N; and, for the aligned N, the
persistent kernel's bandwidth over ``bench_ragged``'s one-CTA-a-tile kernel. Then a bit-exact
check of a few N.

On an H100 (``lab/results/ab_persistent_2026-12-02_session7_h100.txt``; no H200 was free)
the persistent kernel ran aligned N at 0.63-0.97x of the one-CTA-a-tile kernel's bandwidth (a
CTA's iterations do not overlap one tile's stores with the next tile's loads) and brought 83
(64x64) and 120 (32x256) of 256 N to >= 0.95x of their aligned N: not the way to the target.
(That run printed a ``MISMATCH`` line for a failed check only; it printed none.)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from regcopy_backend.cuda.kernel_info import KernelInfo
from regcopy_backend.cuda.spills import ptxas_usage
from regcopy_backend.runtime.runner import compile_kernel, cuda_core, get_device
from regcopy_bench import bench_ragged as br

KERNEL = """
func.func @ragged(%X: {g}{promise}, %Y: {g}{promise})
    attributes {{regcopy.launch = #regcopy.launch<block = 256, grid = [1, 1]>}} {{
  %R = memref.alloca() : {r}
  %cr = arith.constant {rows} : index
  %cc = arith.constant {cols} : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %g = "gpu.grid_dim"() <{{dimension = #gpu<dim x>}}> : () -> index
  %m = memref.dim %X, %c0 : {g}
  %n = memref.dim %X, %c1 : {g}
  %nct = arith.ceildivui %n, %cc : index
  %nrt = arith.ceildivui %m, %cr : index
  %nt = arith.muli %nrt, %nct : index
  scf.for %t = %b to %nt step %g {{
    %rt = arith.divui %t, %nct : index
    %ct = arith.remui %t, %nct : index
    %row = arith.muli %rt, %cr : index
    %col = arith.muli %ct, %cc : index
    regcopy.copy cta %X[%row, %col] [{rows}, {cols}] -> %R : {g} -> {r}
    regcopy.copy cta %R -> %Y[%row, %col] [{rows}, {cols}] : {r} -> {g}
  }}
  func.return
}}
"""


def kernel_text(tile: br.Tile, promised: bool) -> str:
    r = (f"memref<{tile.rows}x{tile.cols}xf32, #regcopy.layout<{tile.layout}>, "
         "#regcopy.mem<local>>")
    return KERNEL.format(g=br.G, r=r, rows=tile.rows, cols=tile.cols,
                         promise=br.PROMISE if promised else "")


def lowered(tile: br.Tile, promised: bool) -> tuple[str, KernelInfo]:
    return br.lower_text(kernel_text(tile, promised))


@dataclass
class PersistentBench(br.Bench):
    """``bench_ragged``'s Bench whose launches use a fixed grid per kernel (``ctas``)."""

    ctas: dict[tuple[br.Tile, bool], int] | None = None

    def grid(self, tile: br.Tile, promised: bool, m: int, n: int) -> tuple[int, int, int]:
        assert self.ctas is not None
        return (self.ctas[(tile, promised)], 1, 1)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--narrow", default="1:257", help="N range of the 64x64 tile (a:b)")
    ap.add_argument("--rows", default="1:257", help="N range of the 32x256 tile (a:b)")
    args = ap.parse_args(argv)
    ranges = [(t, range(*map(int, r.split(":")))) for t, r in
              ((br.NARROW, args.narrow), (br.ROWS, args.rows))]
    ranges = [(t, ns) for t, ns in ranges if ns]
    core, dev = cuda_core(), get_device()
    sms = dev.properties.multiprocessor_count
    stream = dev.create_stream()
    compiled: dict[tuple[br.Tile, bool], tuple[Any, KernelInfo]] = {}
    ctas: dict[tuple[br.Tile, bool], int] = {}
    for tile, _ in ranges:
        for promised in (False, True):
            source, info = lowered(tile, promised)
            regs, spill = ptxas_usage(source, "sm_90")[info.symbol]
            per_sm = min(2048 // 256, 65536 // (-(-regs // 8) * 8 * 256))
            ctas[(tile, promised)] = sms * per_sm
            compiled[(tile, promised)] = (compile_kernel(dev, source, info.symbol), info)
            print(f"{tile.rows}x{tile.cols} {'promised ' if promised else 'versioned'}: "
                  f"{regs} registers, {spill} spill bytes, {per_sm} CTAs an SM, grid "
                  f"{ctas[(tile, promised)]}")
    max_bytes = max(4 * br.rows_for(n, t) * n for t, ns in ranges
                    for n in (*ns, *(br.aligned_of(n) for n in ns))) + 4096
    x, y = dev.allocate(max_bytes, stream=stream), dev.allocate(max_bytes, stream=stream)
    bench = PersistentBench(core, dev, stream, x, y, compiled, ctas=ctas)
    one_a_tile = {}
    for tile, _ in ranges:
        source, info = br.lowered(tile, False)
        one_a_tile[(tile, False)] = (compile_kernel(dev, source, info.symbol), info)
    plain = br.Bench(core, dev, stream, x, y, one_a_tile)
    status = 0
    for tile, ns in ranges:
        br.print_sweep(f"persistent tile {tile.rows} x {tile.cols} f32 ({args.iters} launches "
                       "each)", br.sweep(bench, tile, list(ns), args.iters))
        ratios, gains = {}, []
        for n in (n for n in ns if n % 4 == 0):
            m = bench.rows(tile, n)
            versioned, promised = br.versioned_and_promised(bench, tile, m, n, args.iters)
            ratios[n] = versioned / promised
            gains.append(plain.launch(tile, False, m, n, args.iters) / versioned)
        print(br.versioned_summary(ratios))
        if gains:
            print(f"aligned N, persistent over one-CTA-a-tile bandwidth: {min(gains):.3f}-"
                  f"{max(gains):.3f} (median {sorted(gains)[len(gains) // 2]:.3f})")
        checked = (ns[0], ns[len(ns) // 2], ns[-1], 41, 130)
        for n in checked:
            if not br.check_copy(bench, tile, bench.rows(tile, n), n):
                print(f"MISMATCH: the persistent {tile.rows}x{tile.cols} copy at N = {n}")
                status = 1
        print(f"bit-exact check at N = {', '.join(map(str, checked))}: "
              f"{'MISMATCH' if status else 'equal'}")
    for b in (x, y):
        b.close(stream)
    return status


if __name__ == "__main__":
    sys.exit(main())
