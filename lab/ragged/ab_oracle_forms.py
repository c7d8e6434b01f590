#!/usr/bin/env python3
"""Where a misaligned row's time goes: timing-only ("oracle") forms of the bench_ragged kernel,
each with one part of the misaligned fallback replaced by the aligned path's transfers at the
address rounded down to 16 bytes, or changed otherwise. The ``o*`` forms copy the WRONG
elements (timing only, never checked); each bounds from above what making that part as cheap
as an aligned one could gain. The forms are rewritten from ``BASE``, the form the tree emitted
before session 6 (``lab/ragged/forms/switch``, a straddling vector's stores in the
``else`` of its predicate), which these rewrites expect.

* ``emitted``: what the tree emits now;
* ``base``: ``BASE`` itself (the reference of the rewrites);
* ``oload``: the fallback's loads -> one 128-bit load a vector (rounded-down address);
* ``ostore``: the fallback's stores -> one 128-bit store a vector (rounded-down address);
* ``oboth``: both;
* ``nostraddle``: the stores of a vector that straddles the row's end are dropped;
* ``norows``: no row checks (right here: M is a multiple of the tile's rows);
* ``k32``: the misalignment and its tests in 32-bit integers; ``ek32``: the same made from
  ``emitted`` (what ``ab_sources_9_k32_2026-12-02.txt`` timed as ``k32`` beside ``straddle``, the
  form then emitted; ``python3 lab/ragged/ab_oracle_forms.py DIR emitted ek32`` reruns it);
* ``vecload``: the fallback's loads under the vector's predicate, not each element's (a
  straddling vector then loads nothing);
* ``all3``: ``norows``, ``k32`` and ``vecload`` together;
* ``predstraddle``: a straddling vector's element stores out of the fallback's branch, each
  under its own predicate and not the vector's (correct);
* ``all4``: ``all3`` and ``predstraddle``;
* ``straddlefirst``: ``predstraddle`` with the element stores before the vector's branch;
* ``khoist`` (made from ``emitted``; 32x256 and 64x64, whose rounds step a multiple of 4 rows,
  so that the misalignment is the same in each): the stores' branch on the misalignment taken
  once around the rounds (correct there).

``ostore``, ``oboth`` and ``nostraddle`` are made but not timed by default: they leave parts
of 32-byte sectors unwritten, which L2 then reads from DRAM (slower, so no upper bound).
Results of 2026-12-02: ``lab/results/ab_oracle_*_session6.txt`` (``base`` was then
``emitted``).

    python3 lab/ragged/ab_oracle_forms.py [DIR [FORM ...]]   # DIR (default: a temporary one)
                                                           # keeps them; FORMs: those timed
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

import ab_sources

FORMS = ("emitted", "base", "oload", "norows", "k32", "vecload", "all3", "predstraddle",
         "all4")
BASE = Path(__file__).parent / "forms" / "switch"
TILES = ("32x256", "64x64", "8x1024")


def block(src: str, start: int) -> tuple[int, int]:
    """``(open, close)``: the indices of the ``{`` at or after ``start`` and its ``}``."""
    i = src.index("{", start)
    depth = 0
    for j in range(i, len(src)):
        depth += {"{": 1, "}": -1}.get(src[j], 0)
        if depth == 0:
            return i, j
    raise ValueError("unbalanced braces")


def rounded(src: str, test: str, buf: str) -> str:
    """The ``if (test)`` version taken always, its ``&buf[i]`` rounded down to 16 bytes
    (``&buf[i & ~3]``: the buffers are 16-byte aligned)."""
    at = src.index(f"if ({test}) {{")
    o, c = block(src, at)
    body = re.sub(rf"&{buf}\[(v\d+)\]", rf"&{buf}[\1 & ~3LL]", src[o:c])
    return src[:at] + "if (true) " + body + src[c:]


def _straddle_else(src: str) -> tuple[int, int, int, int, str]:
    """In the fallback stores' rounds: where the vector's ``if (p) {`` starts, where its
    ``}`` is, the ``{`` and ``}`` of its ``else`` (the straddling vector, element by
    element), and ``p``."""
    at = src.index("if (aligned_1) {")
    _, c = block(src, at)
    at = src.index("} else {", c)
    inner = src.index("if (v", src.index("#pragma unroll", at))
    full = re.match(r"if \((v\d+)\)", src[inner:]).group(1)  # type: ignore[union-attr]
    _, c = block(src, inner)
    assert src.startswith(" else ", c + 1)
    o2, c2 = block(src, c + 1)
    return inner, c, o2, c2, full


def no_straddle(src: str) -> str:
    """The fallback stores' ``else`` (a vector not wholly in bounds) left empty."""
    _, _, o2, c2, _ = _straddle_else(src)
    return src[:o2] + "{\n        }" + src[c2 + 1:]


def predicated_straddle(src: str, first: bool = False) -> str:
    """The fallback stores' ``else`` (a straddling vector, element by element) taken out of the
    branch: its stores run after it (``first``: before it), each under its own predicate and
    not the vector's, so that a warp with one straddling lane does not run both sides (a
    correct form)."""
    inner, c, o2, c2, full = _straddle_else(src)
    body = re.sub(r"if \((v\d+)\) \{", rf"if (\1 & !{full}) {{", src[o2:c2 + 1])
    if first:
        return src[:inner] + body + "\n        " + src[inner:c + 1] + src[c2 + 1:]
    return src[:c + 1] + "\n        " + body + src[c2 + 1:]


def no_rows(src: str) -> str:
    """Every row check ``row < M`` taken as true (right for the bench: M is a multiple of the
    tile's rows): what the per-round row checks cost."""
    return re.sub(r"= \(unsigned long long\)v\d+ < \(unsigned long long\)[XY]_dim0;",
                  "= true;", src)


def k32(src: str) -> str:
    """The misalignment ``k = offset & 3`` and its tests in 32 bits, not 64."""
    return re.sub(r"const long long (v\d+) = (v\d+) & 3LL;", r"const int \1 = (int)\2 & 3;",
                  src).replace("== 0LL;", "== 0;").replace("== 1LL;", "== 1;").replace(
                      "== 3LL;", "== 3;")


def vector_loads(src: str) -> str:
    """The fallback's 32-bit loads under the vector's predicate (whole vector in bounds), not
    each element's: a straddling vector then loads nothing (timing only)."""
    full = re.search(r"const bool (v\d+) = \(unsigned long long\)v\d+ < "
                     r"\(unsigned long long\)X_dim1;", src).group(1)
    at = src.index("if (aligned) {")
    _, c = block(src, at)
    o2, c2 = block(src, c + 1)
    body = re.sub(r"= \(unsigned long long\)v\d+ < \(unsigned long long\)X_dim1;",
                  f"= {full};", src[o2:c2])
    return src[:o2] + body + src[c2:]


def k_hoisted(src: str) -> str:
    """The fallback stores' branch on the misalignment ``k`` taken once around the rounds
    (right where a round steps a multiple of 4 rows, as on the 32x256 and 64x64 tiles): three
    copies of the rounds, each with its class's pieces (a correct form on those tiles)."""
    at = src.index("if (aligned_1) {")
    _, c = block(src, at)
    at = src.index("#pragma unroll", c)
    _, c = block(src, src.index("for (", at))
    loop = src[at:c + 1]
    k, e = re.search(r"const long long (v\d+) = (v\d+) & 3LL;", loop).groups()
    base = re.search(rf"const long long {e} = (v\d+) \+ v\d+;", loop).group(1)
    zero = re.search(rf"const bool (v\d+) = {k} == 0LL;", loop).group(1)
    odd = re.search(r"const bool (v\d+) = \(bool\)\(v\d+ \| v\d+\);", loop).group(1)

    def rounds(z: str, o: str) -> str:
        text = loop.replace(f"const bool {zero} = {k} == 0LL;", f"const bool {zero} = {z};")
        return re.sub(rf"const bool {odd} = \(bool\)\(v\d+ \| v\d+\);",
                      f"const bool {odd} = {o};", text)

    return (src[:at] + f"const long long kh = {base} & 3LL;\n      if (kh == 0LL) {{\n"
            + rounds("true", "false") + "\n      } else if (kh == 2LL) {\n"
            + rounds("false", "false") + "\n      } else {\n" + rounds("false", "true")
            + "\n      }" + src[c + 1:])


def forms(base: str, emitted: str, tile: str) -> dict[str, str]:
    """Every form of one tile's kernel (``base``: ``BASE``'s source, ``emitted``: the tree's)."""
    made = {"emitted": emitted,
            "base": base,
            "oload": rounded(base, "aligned", "X"),
            "ostore": rounded(base, "aligned_1", "Y"),
            "oboth": rounded(rounded(base, "aligned", "X"), "aligned_1", "Y"),
            "nostraddle": no_straddle(base),
            "norows": no_rows(base),
            "k32": k32(base),
            "ek32": k32(emitted),
            "vecload": vector_loads(base),
            "all3": vector_loads(k32(no_rows(base))),
            "predstraddle": predicated_straddle(base),
            "straddlefirst": predicated_straddle(base, first=True),
            "all4": predicated_straddle(vector_loads(k32(no_rows(base))))}
    if tile != "8x1024":
        made["khoist"] = k_hoisted(emitted)
    return made


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(argv[0] if argv else tmp)
        ab_sources.main(["--save", str(out / "emitted")])
        for t in TILES:
            emitted = (out / "emitted" / f"{t}.cu").read_text()
            base = (BASE / f"{t}.cu").read_text()
            for name, text in forms(base, emitted, t).items():
                (out / name).mkdir(parents=True, exist_ok=True)
                (out / name / f"{t}.cu").write_text(text)
        return ab_sources.main([str(out), *(argv[1:] or FORMS)])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
