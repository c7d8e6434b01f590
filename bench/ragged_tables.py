"""The tables ``bench_ragged`` prints: each N's bandwidth and ratio to the aligned N (with
the Triton peer's beside it), the misaligned N by band, the versioned against the promised
kernel, and the issue's table of misaligned N by band for both systems. Pure: no GPU."""

from __future__ import annotations

from collections.abc import Sequence

Row = tuple[int, int, float, float]
"""``(N, M, GB/s, ratio to the aligned N)``."""


def versioned_summary(ratios: dict[int, float]) -> str:
    """One line over every aligned N: how many have the versioned kernel's time within 2% of
    the promised one's, the range, the range over N >= 32, and the N outside 2%."""
    within = sum(1 for r in ratios.values() if abs(r - 1) <= 0.02)
    large = [r for n, r in ratios.items() if n >= 32]
    line = (f"versioned / promised over {len(ratios)} aligned N: {min(ratios.values()):.3f}-"
            f"{max(ratios.values()):.3f}, within 2% at {within}")
    if large and len(large) < len(ratios):
        line += f"; N >= 32: {min(large):.3f}-{max(large):.3f}"
    outside = [f"{n} ({r:.3f})" for n, r in sorted(ratios.items()) if abs(r - 1) > 0.02]
    if outside:
        line += f"; outside 2%: N = {', '.join(outside)}"
    return line


def band_summary(ratios: dict[int, float], width: int = 32, vec: int = 4) -> str:
    """One line over the misaligned N (N % 4 != 0), by band of ``width`` consecutive N
    (``[a, a + width)``, ``a`` a multiple of ``width``): each band's mean ratio and how many of
    its N are at >= 0.95x."""
    bands: dict[int, list[float]] = {}
    for n, r in sorted(ratios.items()):
        if n % vec:
            bands.setdefault(n - n % width, []).append(r)
    parts = [f"{a}..{a + width - 1}: mean {sum(rs) / len(rs):.3f}, "
             f"{sum(r >= 0.95 for r in rs)}/{len(rs)}" for a, rs in bands.items()]
    return "misaligned N by band (mean ratio, N at >= 0.95x): " + "; ".join(parts)


def print_sweep(title: str, table: Sequence[tuple[int, int, float, float]], vec: int = 4
                ) -> None:
    """``sweep``'s table under ``title``, then how many N are at >= 0.95x and the misaligned N
    by band (``band_summary``)."""
    print(f"\n{title}")
    print(f"| {'N':>5} | {'M':>8} | {'GB/s':>7} | {'vs aligned N':>12} |")
    print(f"|{'-' * 7}|{'-' * 10}|{'-' * 9}|{'-' * 14}|")
    for n, m, gbs, ratio in table:
        print(f"| {n:5} | {m:8} | {gbs:7.0f} | {ratio:11.3f}x |")
    good = sum(1 for *_, r in table if r >= 0.95)
    print(f"N at >= 0.95x of the aligned N: {good} of {len(table)} "
          f"({100 * good / len(table):.1f}%)")
    print(band_summary({n: r for n, _, _, r in table}, vec=vec))


def parse_ns(text: str) -> list[int]:
    """``"1:64,65,70:72"``: ranges ``a:b`` (``b`` excluded) and single N, in order."""
    out: list[int] = []
    for part in filter(None, text.split(",")):
        a, _, b = part.partition(":")
        out += range(int(a), int(b)) if b else [int(a)]
    return out


def print_pair(title: str, ours: Sequence[Row], theirs: Sequence[Row], vec: int = 4) -> None:
    """``print_sweep``, with the peer's columns and regcopy / peer where there is a peer."""
    if not theirs:
        print_sweep(title, ours, vec)
        return
    print(f"\n{title}")
    print("|     N |        M | regcopy GB/s | vs aligned | Triton GB/s | vs aligned | "
          "regcopy / Triton |")
    print("|------:|---------:|-------------:|-----------:|------------:|-----------:|"
          "-----------------:|")
    for (n, m, gbs, r), (_, _, tgbs, tr) in zip(ours, theirs):
        print(f"| {n:5} | {m:8} | {gbs:12.0f} | {r:9.3f}x | {tgbs:11.0f} | {tr:9.3f}x | "
              f"{gbs / tgbs:15.3f}x |")
    print(band_summary({n: r for n, _, _, r in ours}, vec=vec))


Result = tuple[Row, "Row | None"]
"""regcopy's ``(N, M, GB/s, ratio to the aligned N)`` and the peer's (None: no peer)."""

BANDS = (("1..15, tiles fitted to N", ("1024x4", "512x8", "256x16"), 1, 15),
         ("17..31, tile 128x32", ("128x32",), 17, 31),
         ("17..31, tile 64x64", ("64x64",), 17, 31),
         ("33..63, tile 64x64", ("64x64",), 33, 63),
         ("65..255, tile 32x256", ("32x256",), 65, 255),
         ("4000..4160, tile 8x1024", ("8x1024",), 4000, 4160))
"""The rows of the issue's table: label, tiles, and the range of misaligned N."""


def _side(rows: list[Row]) -> str:
    good = sum(r >= 0.95 for *_, r in rows)
    mean = sum(r for *_, r in rows) / len(rows)
    tbs = sum(g for _, _, g, _ in rows) / len(rows) / 1000
    return f"{good} of {len(rows)} at >= 0.95x, mean {mean:.3f}x, {tbs:.1f} TB/s"


def issue_table(results: dict[tuple[str, int], Result], missing: str = "") -> str:
    """The table of misaligned N by band (``BANDS``): for regcopy and the peer, how many N
    run at >= 0.95x of the same system's aligned N, the mean ratio and mean TB/s; and how
    many N regcopy runs at >= 0.98x of the peer's GB/s (the lowest ratio); ``missing``:
    why there is no peer column."""
    lines = ["\nmisaligned N, ratio to the same system's nearest aligned N, same run:",
             "| misaligned N | regcopy | Triton, same tile | regcopy / Triton >= 0.98x |",
             "|---|---|---|---|"]
    for label, tiles, lo, hi in BANDS:
        hits = [v for (t, n), v in sorted(results.items(), key=lambda kv: kv[0][1])
                if t in tiles and lo <= n <= hi and n % 4]
        if not hits:
            continue
        ours = [o for o, _ in hits]
        theirs = [p for _, p in hits if p is not None]
        if len(theirs) == len(ours):
            rel = [o[2] / p[2] for o, p in zip(ours, theirs)]
            peer, versus = _side(theirs), (f"{sum(r >= 0.98 for r in rel)} of {len(rel)} "
                                           f"(min {min(rel):.3f}x)")
        else:
            peer = versus = "(no peer: " + (missing or "not run") + ")"
        lines.append(f"| {label} | {_side(ours)} | {peer} | {versus} |")
    return "\n".join(lines)
