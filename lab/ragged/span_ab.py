"""A/B on the H200: the runtime test of a staged copy whose warps hold a part of each row.

Since 2026-12-04 (evening) the staged path's runtime test on the row length is each warp's
where a warp holds a contiguous part of its rows (``plan_bounds.warp_span``), on the row's
length from the warp's first column. Before, only copies whose warps held whole rows had a
test. ``whole`` is the pass with ``warp_span`` cut back to that (0 unless the span is the
whole row); ``span`` is the tree's. Two kernels:

* ``bench_ragged``'s 64 x 64 tile (warps on 32-column halves): below 32 columns the right
  half's warps hold none of a row; each N against Triton's same-tile copy, the two variants
  interleaved N by N, outputs checked bit for bit;
* the softmax example (a warp on 256 bf16 columns a round): no warp is wholly outside a row
  at the N timed, so only the test's cost shows. Outputs checked against ``torch.softmax``.

The first run of this script (``lab/results/h200_2026-12-04b/span/``) had the threshold the
short-row model computes for such warps (13 on 64 x 64: a warp holding 1..12 columns stored
predicated), and its softmax part filled the output on torch's stream without waiting before
the kernel ran on its own (a NaN at N = 1050 that ``span_check.py`` showed was the script's:
every output exact there, racecheck and memcheck clean). The tree now takes 1 for such warps
(a warp holding none skips), after that run measured the predicated warps slower at every
length.

    git apply lab/ragged/forms/warp_span.diff      # the form measured (not in the tree)
    python3 lab/ragged/span_ab.py [--ns 17:65] [--softmax 1001,1030,...] [--iters 10]   (GPU)

Not kept: its second run (``span2/``) put the 64 x 64 tile 2-6% ahead at N = 17..23 (the right
half's warps skipping) but 0.2-1.2% behind from 33 columns (the test's own cost), and the
softmax example 1.4-6% behind at N = 1030..4093 (no warp outside a row there: the test's
cost alone), where the tile without the test already ran at 1.05-1.18x of Triton below 32
columns. ``lab/ragged/forms/warp_span.diff`` holds the pass and tests as measured.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from regcopy_bench import bench_ragged as br
from regcopy_passes.reg_copy import plan_bounds

VARIANTS = ("span", "whole")


@contextmanager
def variant(name: str) -> Iterator[None]:
    """``plan_bounds.warp_span`` as the tree has it (``span``) or cut back to whole rows."""
    saved = plan_bounds.warp_span

    def whole_rows(plan: Any, sizes: tuple[int, ...]) -> int:
        span = saved(plan, sizes)
        return span if span == sizes[-1] else 0

    if name == "whole":
        plan_bounds.warp_span = whole_rows  # type: ignore[assignment]
    try:
        yield
    finally:
        plan_bounds.warp_span = saved  # type: ignore[assignment]


def ragged(ns: list[int], iters: int) -> None:
    from variant_table import compare, peer_for

    peer, max_bytes = peer_for([br.NARROW], ns)
    variants = {}
    for v in VARIANTS:
        with variant(v):
            variants[v] = (br.setup([br.NARROW], max_bytes, peer=peer), br.NARROW)
    print("64x64 (warps on column halves)")
    compare(variants, ns, iters, peer)


def softmax(ns: list[int], iters: int) -> None:
    import torch

    from regcopy_bench.bench_softmax import RegcopySoftmax, check, rows_for, time_one

    kernels: dict[str, Callable[..., Any]] = {}
    for v in VARIANTS:
        with variant(v):
            kernels[v] = RegcopySoftmax()
    print("softmax (bf16), GB/s of minimal traffic")
    for n in ns:
        m = rows_for(n, 256)
        gen = torch.Generator(device="cuda").manual_seed(n)
        x = (torch.randn((m, n), device="cuda", generator=gen) * 3).to(torch.bfloat16)
        want = torch.softmax(x.float(), dim=-1)
        cells = []
        gb = {}
        for v in VARIANTS:
            y = torch.full_like(x, float("nan"))
            torch.cuda.synchronize()  # the fill runs on torch's stream, the kernel on its own
            out = kernels[v](x, y)
            torch.cuda.synchronize()
            problem = check(torch, out, want)
            assert problem is None, (v, n, problem)
        for v in (*VARIANTS, *reversed(VARIANTS)):
            y = torch.empty_like(x)
            ms = time_one(torch, kernels[v], x, y, iters)
            gb.setdefault(v, []).append(2 * 2 * m * n / ms / 1e6)
        for v in VARIANTS:
            cells.append(f"{v} {sum(gb[v]) / 2:.0f}")
        print(f"N = {n}: " + ", ".join(cells)
              + f" ({sum(gb['span']) / sum(gb['whole']):.3f}x)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns", default="17:65")
    ap.add_argument("--softmax", default="1001,1030,1050,2060,4093")
    ap.add_argument("--iters", type=int, default=10)
    args = ap.parse_args()
    ragged(list(range(*map(int, args.ns.split(":")))), args.iters)
    softmax([int(v) for v in args.softmax.split(",") if v], 2 * args.iters)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
