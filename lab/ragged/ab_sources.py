"""A/B on the GPU of saved forms of the bench_ragged kernel (no divisibility promise), in one
process, against the promised kernel the tree emits.

    python3 lab/ragged/ab_sources.py DIR [FORM ...]     # time the forms
    python3 lab/ragged/ab_sources.py --save DIR/FORM      # save what the tree emits now

``DIR/FORM/TILE.cu`` (TILE: ``32x256``, ``64x64``, ``8x1024``) is the versioned benchmark
kernel as one form of the lowering printed it; a form may hold some tiles only. Each N is
timed over the forms (then backwards: 10 launches each, >= 256 MiB a launch); the table gives
GB/s and the ratio to the nearest aligned N of the same form, and on aligned N the promised
kernel's bandwidth over the form's (above 1: the versioning costs). SASS instruction and
register counts come from this machine's NVRTC.

``lab/ragged/forms`` holds the forms measured on 2026-12-02: ``branch`` (every
piece of every misalignment predicated: the emitter before), ``switch`` (one branch per class
of misalignment: the emitter now), ``unified`` (pieces chosen by the misalignment and the
count in bounds, no branch), ``rload`` (``switch``, and loads realigned the same way), and
``selread`` (``switch``, with loads hand-written as every class's pieces predicated, then
merged; 32x256 only), ``kloop`` (``switch``, hand-written with the branch on the misalignment
taken once around the rounds, loads and stores alike: the 32x256 tile's rounds step 4 rows, so
``k`` is the same in each; 32x256 only), ``pstraddle`` (session 6: ``switch`` with a
straddling vector's stores out of the vector's ``else``, each under its own predicate, their
column parts made in the copy's prologue) and ``straddle`` (the emitter now: those column parts
made before the fallback's rounds; ``ab_sources_7_pmoved`` timed the same edit made by hand),
and, timed in ``ab_sources_9_k32``, ``k32``: ``straddle`` with the misalignment and its tests
in 32-bit integers (within +-2% of ``straddle``, not kept). It is not saved:
``ab_oracle_forms.k32`` makes it (``python3 lab/ragged/ab_oracle_forms.py DIR emitted ek32``
while the tree emits ``straddle``).
Results: ``lab/results/ab_sources_*``; the timing-only forms of
``lab/ragged/ab_oracle_forms.py`` use this module too.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from regcopy_backend.cuda.spills import ptxas_usage
from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
from regcopy_backend.runtime.runner import compile_kernel, cuda_core, get_device
from regcopy_bench import bench_ragged as br

TILES = {"32x256": br.ROWS, "64x64": br.NARROW, "8x1024": br.WIDE}
NS = {"32x256": [5, 7, 8, 16, 17, 19, 33, 35, 49, 50, 53, 55, 65, 67, 81, 83, 101, 103, 129, 131,
                 201, 203, 250, 253],
      "64x64": [5, 7, 8, 16, 17, 19, 33, 35, 65, 67, 101, 103, 129, 131, 201, 203],
      "8x1024": [4001, 4002, 4003, 4065, 4067]}
PROMISED = "promised"


def counts(source: str) -> str:
    """``N SASS instructions, R registers`` of a kernel source."""
    n = len(re.findall(r"/\*[0-9a-f]{4}\*/", disassemble(compile_cuda(source).cubin)))
    regs, spill = ptxas_usage(source, "sm_90").get("ragged", ("?", "?"))
    return f"{n:5} SASS instructions, {regs} registers, {spill} spill bytes"


def main(argv: list[str]) -> int:
    if argv[:1] == ["--save"]:
        out = Path(argv[1])
        out.mkdir(parents=True, exist_ok=True)
        for name, tile in TILES.items():
            (out / f"{name}.cu").write_text(br.lowered(tile, False)[0])
        return 0
    root = Path(argv[0])
    forms = argv[1:] or sorted(p.name for p in root.iterdir() if p.is_dir())
    srcs: dict[tuple[str, str], str] = {}
    for t in TILES:
        for f in forms:
            if (path := root / f / f"{t}.cu").exists():
                srcs[(t, f)] = path.read_text()
        if any(key[0] == t for key in srcs):
            srcs[(t, PROMISED)] = br.lowered(TILES[t], True)[0]
    for (t, f), s in srcs.items():
        print(f"{t:7} {f:9} {counts(s)}", flush=True)
    core, dev = cuda_core(), get_device()
    stream = dev.create_stream()
    kernels = {(TILES[t], (f == PROMISED, f)): (compile_kernel(dev, s, "ragged"),
                                                 br.lowered(TILES[t], f == PROMISED)[1])
               for (t, f), s in srcs.items()}
    tiles = sorted({t for t, _ in srcs}, key=list(TILES).index)
    all_ns = {t: sorted(set(NS[t]) | {br.aligned_of(n) for n in NS[t]}) for t in tiles}
    max_bytes = max(4 * br.rows_for(n, TILES[t]) * n for t, ns in all_ns.items()
                    for n in ns) + 4096
    x, y = dev.allocate(max_bytes, stream=stream), dev.allocate(max_bytes, stream=stream)
    bench = br.Bench(core, dev, stream, x, y, kernels)  # type: ignore[arg-type]
    for t in tiles:
        tile = TILES[t]
        here = [f for f in forms if (t, f) in srcs]
        bw: dict[tuple[str, int], float] = {}
        for n in all_ns[t]:
            m = bench.rows(tile, n)
            run = here + ([PROMISED] if n % 4 == 0 else [])
            ms = {f: 0.0 for f in run}
            for f in run + run[::-1]:
                ms[f] += bench.launch(tile, (f == PROMISED, f), m, n, 10) / 2  # type: ignore
            for f in run:
                bw[(f, n)] = 2 * 4 * m * n / ms[f] / 1e6
        print(f"\ntile {t}: GB/s (ratio to the aligned N); aligned N: promised / form "
              "bandwidth")
        print("| N | " + " | ".join(here) + " |")
        print("|---|" + "---|" * len(here))
        for n in NS[t]:
            a = br.aligned_of(n)
            cells = []
            for f in here:
                cell = f"{bw[(f, n)]:.0f} ({bw[(f, n)] / bw[(f, a)]:.3f})"
                if n % 4 == 0:
                    cell += f" p/v {bw[(PROMISED, n)] / bw[(f, n)]:.3f}"
                cells.append(cell)
            print(f"| {n} | " + " | ".join(cells) + " |", flush=True)
    for b in (x, y):
        b.close(stream)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
