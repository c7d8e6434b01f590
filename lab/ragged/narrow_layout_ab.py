"""A/B on the H200: the 64 x 64 tile's register layout, against Triton's same-tile copy.

``bench_ragged.NARROW_ROWS`` (the 64 x 64 tile's layout until 2026-12-04) gives a warp two rows of 64 columns (16 lanes a row, 4 f32 a lane):
below 32 columns half of every warp instruction's lanes own nothing, and Nsight Compute
(``lab/ragged/ncu_peer.py``, N = 25) counts twice Triton's global load requests, 3.4x its
load sectors and 2.4x its shared wavefronts, with MIO throttle the first stall (5.3 against
0.02). Triton's kernel splits the columns between warps instead (``warpsPerCTA = [4, 2]``).
``HALVES`` (``bench_ragged.NARROW`` since, after the runs in
lab/results/h200_2026-12-04b/narrow*) is the same tile laid out that way: a warp holds 4 rows of one 32-column half (8
lanes a row, 4 f32 a lane, the 128 x 32 tile's pattern), warps 4..7 the right half, so below
32 columns whole warps own nothing and skip.

Both layouts' kernels (and ``HALVES`` with its misaligned copies forced staged, loads too,
and with its stores forced predicated) and Triton's run every N of ``--ns`` (default 17..64), each output
checked bit for bit first (``bench_ragged.sweep_with_peer``), the two layouts interleaved N
by N. Prints GB/s, the ratio to the aligned N, and regcopy / Triton for each.

    python3 lab/ragged/narrow_layout_ab.py [--ns 17:65] [--iters 10]     (GPU, Triton)

(The runs of 2026-12-04 printed the first column as ``rows (NARROW)``: the same layout.)
"""

from __future__ import annotations

import argparse

from regcopy_bench import bench_ragged as br

HALVES = br.NARROW
"""64 x 64 with warps on column halves: thread ``t`` holds rows ``16 i + (t / 8) mod 16``,
columns ``32 (t / 128) + 4 (t mod 8) ..``."""


def main() -> int:
    from variant_table import compare, peer_for

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns", default="17:65")
    ap.add_argument("--iters", type=int, default=10)
    args = ap.parse_args()
    ns = list(range(*map(int, args.ns.split(":"))))
    # name: (tile, the misaligned-stores option it is lowered with)
    forms = {"rows (NARROW_ROWS)": (br.NARROW_ROWS, "auto"), "halves": (HALVES, "auto"),
             "halves staged": (HALVES, "staged"), "halves predicated": (HALVES, "predicated")}
    peer, max_bytes = peer_for([t for t, _ in forms.values()], ns)
    variants = {}
    for name, (tile, form) in forms.items():
        br.MISALIGNED_STORES[0] = form
        variants[name] = (br.setup([tile], max_bytes, peer=peer), tile)
    br.MISALIGNED_STORES[0] = "auto"
    compare(variants, ns, args.iters, peer)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
