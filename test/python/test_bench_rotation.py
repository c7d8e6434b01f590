"""bench/bench_shared.py's rotated layouts: the 8-way f32 k=32 layout (four warps) is lowered
with a 3-bit butterfly (3 blends per 32-bit word: 12 LOP3 per 128-bit access in the loop, no
local memory), and the target lines compare the rotated kernels with their targets."""

from __future__ import annotations

from regcopy_bench import bench_shared as bench
from regcopy_bench.sass_loops import sass_summary


def shape(name: str) -> bench.Shape:
    return next(s for s in bench.SHAPES if s.name == name)


def test_eight_way_layout_takes_a_three_bit_butterfly() -> None:
    s = shape("32-bit k=32 (8-way)")
    sass = sass_summary(bench.lowered_source(s, "load only", "auto"))
    n, accesses, lop3, _ = sass["loop"]
    assert sass["LDL"] == sass["STL"] == 0 and set(sass["widths"]) == {"LDS.128"}
    assert accesses == bench.copies(s, "load only") * s.rounds  # not elided, not merged
    assert 12 <= lop3 / accesses < 13  # 3 blends a word, 4 words an access


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
