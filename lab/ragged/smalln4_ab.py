"""Issue 34 after the short-row model fix, on the H200, one process, same buffers (the protocol
and tables of ``smalln3_ab``): the 64 x 64 tile's short-row threshold as the model now sets it
against the one before, and the 32 x 256 tile at N = 183..255, where regcopy ran 2-4% behind
Triton, against Triton's own layout written by hand.

    python3 lab/ragged/smalln4_ab.py --sass [TILE ...]          # SASS per element (no GPU)
    python3 lab/ragged/smalln4_ab.py [--iters K] [TILE[:N,N,...] ...]   # the A/B

Forms (the ``bench_ragged`` kernel's signature; 256 threads, 1-D grid, columns first):

* ``auto``: the tree's kernel (short-row thresholds 5, 7, 13, 25 on 512 x 8, 256 x 16,
  128 x 32, 64 x 64); ``auto_was``: the same with the short-row test where the model put it
  before (3, 3, 3, 5); ``auto_t0``: no short rows (staged stores at every misaligned N).
* ``predicated``, ``realigned``: the tree's kernel with ``misaligned-stores`` so.
* ``staged_st``: 32 x 256: ``misaligned-stores=staged`` (loads staged too) with the slice
  budget at 32 KiB (the tile's slices; 16 KiB refuses it); ``staged_st_stores``: only the
  stores staged.
* ``triton``: Triton's masked copy by hand, warps stacked on rows (``smalln_forms.triton``);
  ``triton_cols`` (32 x 256): Triton's own layout for that tile (``triton_layouts.txt``:
  ``warpsPerCTA [1, 8]``, ``threadsPerWarp [1, 32]``): warp ``w`` on columns ``32 w ..``,
  every thread all 32 rows of its column, 64-bit row offsets.
"""

from __future__ import annotations

import re
import sys

import smalln3_ab as ab
import smalln_forms as sf

NS = {"64x64": [17, 18, 19, 21, 22, 23, 25, 26, 27, 29, 31, 33, 37],
      "32x256": [65, 101, 131, 163, 183, 187, 191, 199, 201, 207, 215, 223, 231, 239, 247, 255],
      "512x8": [3, 5, 6, 7], "256x16": [3, 5, 6, 7, 9], "128x32": [5, 9, 11, 13, 15, 17]}
BEFORE = {"1024x4": 3, "512x8": 3, "256x16": 3, "128x32": 3, "64x64": 5}
"""Each fitted tile's short-row threshold before the model's fix (``auto_was``)."""


def triton_cols(rows: int, cols: int) -> str:
    """Triton's blocked layout with warps along the row (``cols`` = 256 a tile of 8 warps):
    thread (``w``, lane) moves column ``32 w + lane`` of every row of the tile, one f32 an
    access, one predicate an element, the row offset in 64 bits."""
    reps_c = cols // 256
    return sf.HEAD + f"""  const int M = (int)X_dim0, N = (int)X_dim1;
  const int b = blockIdx.x, nct = (N + {cols - 1}) / {cols};
  const int rt = b / nct, ct = b % nct;
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  const int r0 = rt * {rows}, c0 = ct * {cols} + 32 * w + lane;
  float v[{rows * reps_c}];
  #pragma unroll
  for (int i = 0; i < {rows}; ++i) {{
    #pragma unroll
    for (int j = 0; j < {reps_c}; ++j) {{
      const int r = r0 + i, c = c0 + j * 256;
      const long long o = (long long)r * N + c;
      float x = 0.0f;
      if (r < M && c < N) x = X[o];
      v[i * {reps_c} + j] = x;
    }}
  }}
  #pragma unroll
  for (int i = 0; i < {rows}; ++i) {{
    #pragma unroll
    for (int j = 0; j < {reps_c}; ++j) {{
      const int r = r0 + i, c = c0 + j * 256;
      const long long o = (long long)r * N + c;
      if (r < M && c < N) Y[o] = v[i * {reps_c} + j];
    }}
  }}
}}
"""


def forms(tile: ab.br.Tile) -> dict[str, str]:
    """Every form's CUDA source for ``tile`` (module doc)."""
    r, c = tile.rows, tile.cols
    auto = ab.tree(tile, "auto")
    out = {"auto": auto, "predicated": ab.tree(tile, "predicated")}
    test = r"(const bool v_short = .*< \(rc_uindex\))(\d+);"
    if c <= 64:
        assert re.search(test, auto), f"the {r}x{c} kernel has no short-row test"
        out["auto_was"] = re.sub(test, rf"\g<1>{BEFORE[f'{r}x{c}']};", auto)
        out["auto_t0"] = re.sub(test, r"\g<1>0;", auto)
    else:
        out["realigned"] = ab.tree(tile, "realigned")
    if c > 128:
        out["staged_st"] = ab.tree(tile, "staged", 32768)
        out["staged_st_stores"] = ab.tree(tile, "staged", 32768, stores_only=True)
        out["triton_cols"] = triton_cols(r, c)
    out["triton"] = sf.triton(r, c)
    return out


def main(argv: list[str]) -> int:
    ab.forms = forms  # the A/B and SASS report of smalln3_ab, on these forms and N
    ab.NS = NS
    if argv[:1] == ["--sass"]:
        ab.sass_report(argv[1:] or list(NS))
        return 0
    return int(ab.main(argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
