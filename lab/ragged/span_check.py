"""Where do the softmax example's outputs go wrong on the H200 with each warp's short-row test
(``lab/ragged/span_ab.py`` found NaN at N = 1050)? Each variant's softmax_4k kernel (one
row a CTA) on M x N random rows, several trials, every output element checked against
``torch.softmax``: prints the wrong elements' count, how many are NaN (never written: the
output starts as NaN), and their first rows and columns.

    python3 lab/ragged/span_check.py [--ns 1030,1040,1050,...] [--m 4096] [--trials 3]
"""

from __future__ import annotations

import argparse

from span_ab import VARIANTS, variant


def main() -> int:
    import torch

    from regcopy_bench.bench_softmax import RegcopySoftmax

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns", default="1030,1040,1050,1060,1100,2060,4093")
    ap.add_argument("--m", type=int, default=4096)
    ap.add_argument("--trials", type=int, default=3)
    args = ap.parse_args()
    kernels = {}
    for v in VARIANTS:
        with variant(v):
            kernels[v] = RegcopySoftmax()
    for n in (int(x) for x in args.ns.split(",")):
        gen = torch.Generator(device="cuda").manual_seed(n)
        x = (torch.randn((args.m, n), device="cuda", generator=gen) * 3).to(torch.bfloat16)
        want = torch.softmax(x.float(), dim=-1)
        for v in VARIANTS:
            for trial in range(args.trials):
                y = torch.full_like(x, float("nan"))
                kernels[v](x, y)
                torch.cuda.synchronize()
                got = y.float()
                bad = ~((got - want).abs() <= want.abs() * 2.0 ** -7 + 1e-30)
                nan = torch.isnan(got) & bad
                where = bad.nonzero()[:4].tolist()
                rows = sorted(set(bad.nonzero()[:, 0].tolist()))[:6]
                cols = sorted(set(bad.nonzero()[:, 1].tolist()))
                print(f"N={n} {v} trial {trial}: {int(bad.sum())} wrong ({int(nan.sum())} NaN), "
                      f"rows {rows}{'...' if len(rows) == 6 else ''}, "
                      f"{len(cols)} columns {cols[:3]}..{cols[-3:]}, first {where}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
