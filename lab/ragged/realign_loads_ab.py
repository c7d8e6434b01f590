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
    from variant_table import compare, peer_for

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns", default="17:65")
    ap.add_argument("--iters", type=int, default=10)
    args = ap.parse_args()
    ns = list(range(*map(int, args.ns.split(":"))))
    peer, max_bytes = peer_for([br.NARROW], ns)
    variants = {}
    for v in VARIANTS:
        with variant(v):
            variants[v] = (br.setup([br.NARROW], max_bytes, peer=peer), br.NARROW)
    compare(variants, ns, args.iters, peer, bands=((17, 31), (33, 63)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
