"""Issue 34's unmet points on the H200, one process, same buffers: the forms the tree emits
against Triton's masked copy written by hand, and hand-written leaner forms, at the N where
regcopy stayed under 0.98x of Triton (64x64 at N = 17..31, 1024x4 at N = 1, 32x256 at odd N).

    python3 lab/ragged/smalln3_ab.py --sass                     # SASS per element (no GPU)
    python3 lab/ragged/smalln3_ab.py [--iters K] [TILE[:N,N,...] ...]   # the A/B

Forms (every one the ``bench_ragged`` kernel's signature; 256 threads, 1-D grid, columns first):

* ``auto``, ``predicated``, ``staged``, ``realigned``: the tree's kernel, the pass's
  ``misaligned-stores`` option so (``staged``: loads staged too); index width per launch.
* ``auto_lb8``: ``auto`` under ``__launch_bounds__(256, 8)`` (at most 32 registers: Triton's
  8 CTAs an SM; the tree's kernel takes 40).
* ``auto_t24``: 64x64 only: ``auto`` with its short-row test at 24 columns (the model's is 5):
  predicated stores below 24, staged from 25, in one kernel.
* ``staged_st``: 32x256 only: the tree's kernel with ``misaligned-stores=staged`` and the
  slice budget raised to 32 KiB (the tile's slices; 16 KiB refuses it); ``staged_st_stores``:
  the same with only the stores staged (the loads the model's).
* ``triton``, ``triton32``: Triton's kernel by hand (``smalln_forms.triton``: one f32 a lane an
  access, 32 lanes along a row, warps on rows, one predicate an element), with the row offset
  in 64 bits as ``ragged_peer`` writes it, and in 32 bits.
* ``lean``: the tree's layout, 32-bit math; loads in thread order (one predicate an element),
  stores staged through the warp's slice in lane order, and a transfer whose whole run of 32
  elements lies past the row end skipped by a warp-uniform branch (64-column tiles at N < 64:
  half the runs); ``leanboth``: loads staged in lane order too, with the same skip;
  ``leannoskip``: ``lean`` without the skip.

Every output is checked bit for bit (on a small M) before the timing; the timing alternates
the forms forward and backward at each N (``smalln_forms.main``'s protocol), M moving >= 256
MiB a launch. Prints per tile a table of GB/s (ratio to the same form's nearest aligned N) and
each form's ratio to ``triton`` (the peer column of ``bench_ragged``).
"""

from __future__ import annotations

import re
import sys

import smalln_forms as sf
from regcopy_bench import bench_ragged as br
from regcopy_passes.reg_copy import misaligned_cost

TILES = {f"{t.rows}x{t.cols}": t for t in (*br.FITTED, br.ROWS)}
NS = {"64x64": [17, 19, 21, 23, 25, 27, 29, 31, 33, 37, 45, 57],
      "1024x4": [1, 2, 3], "256x16": [9, 11, 13], "128x32": [17, 18, 19, 21, 25, 29, 31],
      "32x256": [65, 67, 101, 131, 163, 203, 219, 223, 255]}
HEAD = sf.HEAD


def lean(rows: int, cols: int, loads: str = "pred", skip: bool = True) -> str:
    """The tree's layout (thread ``t``: row ``t / T + 256 f / T``, columns ``4 (t % T)``..``+3``
    in round ``f``, ``T = cols / 4``), 32-bit math, 128-bit transfers at N % 4 == 0; at a
    misaligned N stores (and with ``loads="staged"`` loads) staged in lane order through the
    warp's 512-byte slice a round: transfer ``j`` of lane ``l`` moves element ``l + 32 j`` of
    the warp's 128 (``rpw = 128 / cols`` whole rows). ``skip``: a transfer whose run starts at
    or past the row end (``cols > 32``: a run is 32 columns of one row) is skipped, uniformly
    over the warp."""
    t = cols // 4
    step = 256 // t
    rpw = 128 // cols if cols <= 128 else 1
    if cols <= 32:
        rc = f"const int rl = lane / {cols} + j * {32 // cols}, cl = lane % {cols};"
        run = "0"
    else:
        per = cols // 32 if cols <= 128 else 4
        rc = f"const int rl = j / {per}, cl = lane + (j % {per}) * 32;"
        run = f"(j % {per}) * 32"
        if cols > 128:  # two warps a row: warp w's 128 columns start at 128 (w % 2)
            rc = "const int rl = 0, cl = 128 * (w % 2) + lane + 32 * j;"
            run = "128 * (w % 2) + 32 * j"
    live = f"if (ccol + {run} < N)" if skip and cols > 32 else ""
    wrow = f"rt * {rows} + w * {rpw}" if cols <= 128 else f"rt * {rows} + w / 2"
    if loads == "pred":
        load = f"""    const bool cin = col < N;
    if (cin) {{
      #pragma unroll
      for (int f = 0; f < 4; ++f) {{
        const int r = row + f * {step};
        #pragma unroll
        for (int e = 0; e < 4; ++e) {{
          float x = 0.0f;
          if (r < M && col + e < N) x = X[r * N + col + e];
          R[4 * f + e] = x;
        }}
      }}
    }} else {{
      #pragma unroll
      for (int e = 0; e < 16; ++e) R[e] = 0.0f;
    }}"""
    else:
        load = f"""    #pragma unroll
    for (int f = 0; f < 4; ++f) {{
      #pragma unroll
      for (int j = 0; j < 4; ++j) {{
        {rc}
        const int r = wrow + f * {step} + rl, c = ccol + cl;
        float x = 0.0f;
        {live} {{ if (r < M && c < N) x = X[r * N + c]; }}
        S[w][f][lane + 32 * j] = x;
      }}
    }}
    __syncwarp();
    #pragma unroll
    for (int f = 0; f < 4; ++f)
      *reinterpret_cast<float4*>(&R[4 * f]) = *reinterpret_cast<const float4*>(&S[w][f][4 * lane]);"""
    return HEAD + f"""  __shared__ __align__(16) float S[8][4][128];
  const int M = (int)X_dim0, N = (int)X_dim1;
  const int b = blockIdx.x;
  const int nct = (N + {cols - 1}) / {cols};
  const int rt = b / nct, ct = b % nct;
  const int tid = threadIdx.x, lane = tid % 32, w = tid / 32;
  const int row = rt * {rows} + tid / {t};
  const int col = ct * {cols} + 4 * (tid % {t});
  const int wrow = {wrow};
  const int ccol = ct * {cols};
  alignas(16) float R[16];
  if (N % 4 == 0) {{
    const bool cin = col + 3 < N;
    #pragma unroll
    for (int f = 0; f < 4; ++f) {{
      const int r = row + f * {step};
      float4 x = make_float4(0.f, 0.f, 0.f, 0.f);
      if (cin && r < M) x = *reinterpret_cast<const float4*>(&X[r * N + col]);
      *reinterpret_cast<float4*>(&R[4 * f]) = x;
    }}
    #pragma unroll
    for (int f = 0; f < 4; ++f) {{
      const int r = row + f * {step};
      if (cin && r < M) *reinterpret_cast<float4*>(&Y[r * N + col]) =
          *reinterpret_cast<const float4*>(&R[4 * f]);
    }}
    return;
  }}
  {{
{load}
  }}
  __syncwarp();
  #pragma unroll
  for (int f = 0; f < 4; ++f)
    *reinterpret_cast<float4*>(&S[w][f][4 * lane]) = *reinterpret_cast<const float4*>(&R[4 * f]);
  __syncwarp();
  #pragma unroll
  for (int f = 0; f < 4; ++f) {{
    #pragma unroll
    for (int j = 0; j < 4; ++j) {{
      {rc}
      const int r = wrow + f * {step} + rl, c = ccol + cl;
      {live} {{
        const float s = S[w][f][lane + 32 * j];
        if (r < M && c < N) Y[r * N + c] = s;
      }}
    }}
  }}
}}
"""


def tree(tile: br.Tile, form: str, scratch: int | None = None,
         stores_only: bool = False) -> str:
    """The tree's kernel with ``misaligned-stores=form`` (and the slice budget ``scratch``;
    ``stores_only``: the form for the stores, the model's choice for the loads)."""
    was = misaligned_cost.STAGE_SCRATCH_BYTES
    from regcopy_passes.reg_copy import plan_bounds
    choose = plan_bounds.choose_misaligned_form
    if scratch is not None:
        plan_bounds.STAGE_SCRATCH_BYTES = scratch  # type: ignore[attr-defined]
    if stores_only:
        plan_bounds.choose_misaligned_form = (  # type: ignore[attr-defined]
            lambda t, f: choose(t, "auto" if t.reads else f))
    try:
        return sf.lowered_as(tile, form)
    finally:
        plan_bounds.STAGE_SCRATCH_BYTES = was  # type: ignore[attr-defined]
        plan_bounds.choose_misaligned_form = choose  # type: ignore[attr-defined]


def forms(tile: br.Tile) -> dict[str, str]:
    """Every form's CUDA source for ``tile`` (module doc)."""
    r, c = tile.rows, tile.cols
    auto = tree(tile, "auto")
    out = {"auto": auto, "predicated": tree(tile, "predicated"), "staged": tree(tile, "staged"),
           "realigned": tree(tile, "realigned"),
           "auto_lb8": auto.replace("__launch_bounds__(256)", "__launch_bounds__(256, 8)"),
           "triton": sf.triton(r, c), "triton32": sf.triton(r, c, False)}
    if c == 64:  # the short-row test at 24 columns instead of the model's 5
        out["auto_t24"] = re.sub(r"(const bool v_short = .*< \(rc_uindex\))5;", r"\g<1>24;", auto)
        assert out["auto_t24"] != auto
    if c > 128:
        out["staged_st"] = tree(tile, "staged", 32768)
        out["staged_st_stores"] = tree(tile, "staged", 32768, stores_only=True)
    if c <= 64:
        out.update(lean=lean(r, c), leanboth=lean(r, c, "staged"),
                   leannoskip=lean(r, c, skip=False))
    return out


def sass_report(names: list[str]) -> None:
    """Per tile and form: the misaligned path's SASS per element a thread moves (16; 32 for
    32x256; rows past the short-row test of a staged copy) and the registers."""
    from regcopy_backend.cuda.spills import ptxas_usage

    for name in names:
        tile = TILES[name]
        per = tile.rows * tile.cols // 256
        print(f"\ntile {name}: misaligned path, SASS per element a thread moves ({per}); regs")
        for form, src in forms(tile).items():
            only = sf.misaligned_only(src).replace("if (N % 4 == 0)", "if (false)")
            only = re.sub(r"const bool v_short = [^;]*;", "const bool v_short = false;", only)
            classes, total = sf.sass_classes(only.replace("#ifdef REGCOPY_INDEX32",
                                                          "#if 1"))
            regs = ptxas_usage(src, "sm_90", ("-DREGCOPY_INDEX32",)).get("ragged", ("?", 0))[0]
            mem = sum(classes[k] for k in ("ld.global", "st.global", "ld.shared", "st.shared"))
            print(f"  {form:11} total {total / per:5.2f}  memory {mem / per:4.2f}  "
                  f"{regs} regs")


def main(argv: list[str]) -> int:
    if argv[:1] == ["--sass"]:
        sass_report(argv[1:] or list(NS))
        return 0
    iters = 10
    if argv[:1] == ["--iters"]:
        iters, argv = int(argv[1]), argv[2:]
    picked: dict[str, list[int]] = {}
    for a in argv or list(NS):
        name, _, ns = a.partition(":")
        picked[name] = [int(x) for x in ns.split(",")] if ns else NS[name]
    from cuda.bindings import driver
    import numpy as np
    from regcopy_backend.runtime.runner import cuda_core, get_device

    from regcopy_backend.runtime.runner import NoGpuError

    try:
        core, dev = cuda_core(), get_device()
    except NoGpuError as e:
        print(f"smalln3_ab: {e}", file=sys.stderr)
        return 2
    stream = dev.create_stream()
    all_ns = {t: sorted(set(ns) | {br.aligned_of(n) for n in ns}) for t, ns in picked.items()}
    max_bytes = max(4 * br.rows_for(n, TILES[t]) * n for t, ns in all_ns.items()
                    for n in ns) + 4096
    x, y = dev.allocate(max_bytes, stream=stream), dev.allocate(max_bytes, stream=stream)
    host = np.random.default_rng(34).integers(0, 256, max_bytes, dtype=np.uint8)
    driver.cuMemcpyHtoD(int(x.handle), host.ctypes.data, max_bytes)
    bad: list[str] = []
    for tname, ns in picked.items():
        tile = TILES[tname]
        info = br.lowered(tile, False)[1]
        srcs = forms(tile)
        names = list(srcs)
        kernels = {(tile, f): (sf.compiled(dev, s, info), info) for f, s in srcs.items()}
        bench = br.Bench(core, dev, stream, x, y, kernels)  # type: ignore[arg-type]
        bw: dict[tuple[str, int], float] = {}
        for n in all_ns[tname]:
            small = br.rows_for(n, tile, 8 << 20)
            for f in names:
                if not sf.exact(bench, f, tile, small, n):
                    bad.append(f"{tname} {f} N={n}")
            m = bench.rows(tile, n)
            ms = {f: 0.0 for f in names}
            for f in names + names[::-1]:
                ms[f] += bench.launch(tile, f, m, n, iters) / 2  # type: ignore[arg-type]
            for f in names:
                bw[(f, n)] = 2 * 4 * m * n / ms[f] / 1e6
        print(f"\ntile {tname}: GB/s (ratio to the same form's aligned N) [ratio to triton]")
        print("| N | " + " | ".join(names) + " |")
        print("|---|" + "---|" * len(names))
        for n in ns:
            a = br.aligned_of(n)
            print(f"| {n} | " + " | ".join(
                f"{bw[(f, n)]:.0f} ({bw[(f, n)] / bw[(f, a)]:.3f}) "
                f"[{bw[(f, n)] / bw[('triton', n)]:.3f}]" for f in names) + " |", flush=True)
        mis = [n for n in ns if n % 4]
        print("mean ratio to aligned: " + ", ".join(
            f"{f} {sf.mean_ratio(bw, f, mis):.3f}" for f in names))
        print("vs triton, min / mean / N at >= 0.98x: " + ", ".join(
            f"{f} {min(bw[(f, n)] / bw[('triton', n)] for n in mis):.3f} / "
            f"{sum(bw[(f, n)] / bw[('triton', n)] for n in mis) / len(mis):.3f} / "
            f"{sum(bw[(f, n)] >= 0.98 * bw[('triton', n)] for n in mis)} of {len(mis)}"
            for f in names), flush=True)
    for b in (x, y):
        b.close(stream)
    print("MISMATCH: " + "; ".join(bad) if bad else "every output bit-exact")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
