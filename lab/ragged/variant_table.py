"""The loop lab/ragged's A/B scripts share (``narrow_layout_ab``, ``realign_loads_ab``,
``span_ab``): variants of ``bench_ragged``'s kernel, each N timed beside Triton's same-tile
copy (``bench_ragged.sweep_with_peer``: every output checked bit for bit first), the variants
interleaved N by N; then a table of GB/s, the ratio to the aligned N and regcopy / Triton, and
by band of N the misaligned N at >= 0.98x of Triton."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from regcopy_bench import bench_ragged as br

Variant = tuple[br.Bench, br.Tile]
"""A variant: the bench holding its compiled kernel, and the tile it runs."""


def peer_for(tiles: Sequence[br.Tile], ns: Sequence[int]) -> tuple[Any, int]:
    """``(Triton's peer, its buffers' bytes)``, big enough for every tile at every N."""
    from regcopy_bench import ragged_peer

    max_bytes = max(t.bytes * br.rows_for(n, t) * n for t in tiles for n in ns) + 4096
    return ragged_peer.Peer(max_bytes), max_bytes


def compare(variants: dict[str, Variant], ns: Sequence[int], iters: int, peer: Any,
            bands: Sequence[tuple[int, int]] = ()) -> None:
    """Time every variant at every N of ``ns`` (interleaved N by N) and print the table and,
    for each band ``(lo, hi)`` (default: all of ``ns``), the summary."""
    rows: dict[tuple[str, int], tuple[br.Row, br.Row]] = {}
    for n in ns:
        for name, (bench, tile) in variants.items():
            ours, theirs, wrong = br.sweep_with_peer(bench, tile, [n], iters, peer)
            assert not wrong, (name, n, wrong)
            rows[(name, n)] = (ours[0], theirs[0])
    print("| N | " + " | ".join(f"{k} GB/s (vs aligned) | Triton | ratio" for k in variants)
          + " |")
    print("|---:|" + "---:|---:|---:|" * len(variants))
    for n in ns:
        cells = []
        for name in variants:
            (_, _, gb, rel), (_, _, tgb, _) = rows[(name, n)]
            cells.append(f"{gb:.0f} ({rel:.3f}x) | {tgb:.0f} | {gb / tgb:.3f}x")
        print(f"| {n} | " + " | ".join(cells) + " |")
    for name in variants:
        for lo, hi in bands or ((min(ns), max(ns)),):
            r = [rows[(name, n)][0][2] / rows[(name, n)][1][2] for n in ns
                 if n % 4 and lo <= n <= hi]
            if r:
                print(f"{name} {lo}..{hi}: misaligned N at >= 0.98x Triton: "
                      f"{sum(x >= 0.98 for x in r)} of {len(r)}, min {min(r):.3f}x, "
                      f"mean {sum(r) / len(r):.3f}x")
