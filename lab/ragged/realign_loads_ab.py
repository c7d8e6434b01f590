"""A/B on the H200: the 64 x 64 tile's misaligned loads realigned instead of predicated.

On column halves (``bench_ragged.NARROW``) each warp holds 4 rows of 32 columns, and its
predicated loads (4 a vector, one element of every lane's vector each, lanes 16 bytes apart)
each span the warp's 4 row pieces: at N = 37 Nsight Compute counted 3.5x Triton's load sectors
(``lab/results/h200_2026-12-04b/ncu_halves/``). Realigned, a vector is loaded as its aligned
pieces (one 128-bit load, two 64-bit, or 32 + 64 + 32 bits, by its misalignment class; one
branch a class), each piece spanning one row. The cost model puts the two forms at a tie
(27.8 against 28.3 clocks a warp's vector, the DRAM floor) and takes the predicated loads;
``realigned`` here forces the other (``plan_bounds.choose_misaligned_form`` wrapped for reads
while the kernel is lowered). Each N against Triton's same-tile copy, the two variants
interleaved N by N, outputs checked bit for bit.

    python3 lab/ragged/realign_loads_ab.py [--ns 17:65] [--iters 10]     (GPU, Triton)
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from regcopy_bench import bench_ragged as br
from regcopy_passes.reg_copy import misaligned_cost as mc
from regcopy_passes.reg_copy import plan_bounds

VARIANTS = ("model", "realigned")


@contextmanager
def variant(name: str) -> Iterator[None]:
    """Reads' misaligned form as the model picks it, or realigned."""
    saved = plan_bounds.choose_misaligned_form

    def realigned_reads(tile: mc.MisalignedTile, force: str = "auto") -> mc.MisalignedChoice:
        if not tile.reads:
            return saved(tile, force)
        return mc.MisalignedChoice("realigned", mc.realigned_cost(tile), mc.predicated_cost(tile),
                                   tile, True, None)

    if name == "realigned":
        plan_bounds.choose_misaligned_form = realigned_reads  # type: ignore[assignment]
    try:
        yield
    finally:
        plan_bounds.choose_misaligned_form = saved  # type: ignore[assignment]


def main() -> int:
    from regcopy_bench import ragged_peer

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns", default="17:65")
    ap.add_argument("--iters", type=int, default=10)
    args = ap.parse_args()
    ns = list(range(*map(int, args.ns.split(":"))))
    max_bytes = max(4 * br.rows_for(n, br.NARROW) * n for n in ns) + 4096
    peer = ragged_peer.Peer(max_bytes)
    benches = {}
    for v in VARIANTS:
        with variant(v):
            benches[v] = br.setup([br.NARROW], max_bytes, peer=peer)
    rows: dict[tuple[str, int], tuple[Any, Any]] = {}
    for n in ns:
        for v in VARIANTS:
            ours, theirs, wrong = br.sweep_with_peer(benches[v], br.NARROW, [n], args.iters, peer)
            assert not wrong, (v, n)
            rows[(v, n)] = (ours[0], theirs[0])
    print("| N | " + " | ".join(f"{v} GB/s (vs aligned) | Triton | ratio" for v in VARIANTS) + " |")
    print("|---:|" + "---:|---:|---:|" * len(VARIANTS))
    for n in ns:
        cells = []
        for v in VARIANTS:
            (_, _, gb, rel), (_, _, tgb, _) = rows[(v, n)]
            cells.append(f"{gb:.0f} ({rel:.3f}x) | {tgb:.0f} | {gb / tgb:.3f}x")
        print(f"| {n} | " + " | ".join(cells) + " |")
    for v in VARIANTS:
        for lo, hi in ((17, 31), (33, 63)):
            r = [rows[(v, n)][0][2] / rows[(v, n)][1][2] for n in ns if n % 4 and lo <= n <= hi]
            if r:
                print(f"{v} {lo}..{hi}: >= 0.98x Triton {sum(x >= 0.98 for x in r)} of {len(r)}, "
                      f"min {min(r):.3f}x, mean {sum(r) / len(r):.3f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
