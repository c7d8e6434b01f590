"""bench/bench_shared.py's rotated layouts: the 8-way f32 k=32 layout (four warps) is lowered
with a 3-bit butterfly (12 chunk swaps, 4 of them multiply-adds: 8 LOP3 and 4 IMAD per 128-bit
access in the loop, no local memory), its loops' issue-slot and pipe bounds, and the target
lines compare the rotated kernels with their targets. The kernels' SASS comes from one compile
and one disassembly (``sass_batch``)."""

from __future__ import annotations

import pytest

from functools import cache
from typing import Any

from sass_batch import batched_sass

from regcopy_bench import bench_shared as bench
from regcopy_bench.sass_loops import SUMMARY_OPTIONS, listing_summary

ROTATED = ["32-bit k=16", "32-bit k=32 (8-way)"]
KINDS = ["round trip", "load only", "store only"]


def shape(name: str) -> bench.Shape:
    return next(s for s in bench.SHAPES if s.name == name)


@cache
def _summaries() -> dict[tuple[str, str], dict[str, Any]]:
    """``bench.sass_summary`` of the rotated layouts' kernels as lowered by default, by
    ``(layout, loop)``, from one compile and one disassembly of them all (``sass_batch``)."""
    sources = {(name, kind): bench.lowered_source(shape(name), kind, "auto")
               for name in ROTATED for kind in KINDS}
    listings = batched_sass(list(sources.values()), options=SUMMARY_OPTIONS)
    return {key: listing_summary("".join(parts.values()))
            for key, parts in zip(sources, listings, strict=True)}


def test_eight_way_layout_takes_a_three_bit_butterfly() -> None:
    s = shape("32-bit k=32 (8-way)")
    sass = _summaries()[s.name, "load only"]
    _, accesses, lop3, _ = sass["loop"]
    assert sass["LDL"] == sass["STL"] == 0 and set(sass["widths"]) == {"LDS.128"}
    assert accesses == bench.copies(s, "load only") * s.rounds  # not elided, not merged
    # 3 swaps a word, 4 words an access: 8 of the 12 as LOP3 blends, 4 as IMAD (2 a pair)
    assert 8 <= lop3 / accesses < 8.5
    imad = sum(1 for o in sass["loop_ops"] if o == "IMAD")
    assert 4 <= imad / accesses < 6  # and the addresses: one IMAD or LEA an access


@pytest.mark.parametrize("name", ROTATED)
def test_rotated_loops_stay_within_their_pipe_bounds(name: str) -> None:
    """The issue-slot and pipe bound (``sass_loops.pipe_estimate``) of the rotated loops, as
    lowered by default: the 4-way ones at 0.9x of the peak or more (the round trip's blends
    cancel: 1.0x), the 8-way round trip at 1.0x and its single-direction loops at 0.7x or
    more (the multiply-add swaps; all selects gave 0.60x)."""
    s = shape(name)
    floors = {"round trip": 0.99, "load only": 0.9 if s.rounds == 4 else 0.7,
              "store only": 0.9 if s.rounds == 4 else 0.7}
    for kind, floor in floors.items():
        est, _ = _summaries()[name, kind]["estimate"]
        assert est >= floor, (kind, est)


def test_target_lines() -> None:
    four, eight = shape("32-bit k=16"), shape("32-bit k=32 (8-way)")
    results = [(bench.Variant(four, "round trip", "regcopy rotation=auto", ""), 0.91),
               (bench.Variant(eight, "load only", "regcopy rotation=auto", ""), 0.6),
               (bench.Variant(eight, "load only", "regcopy rotation=off", ""), 0.1),
               (bench.Variant(shape("32-bit k=8"), "load only", "regcopy rotation=auto", ""),
                0.9)]
    assert bench.target_lines(results) == [
        "32-bit k=16, round trip: 0.910x of peak, target 0.90x: meets",
        "32-bit k=32 (8-way), load only: 0.600x of peak, target 0.85x: MISSES"]
