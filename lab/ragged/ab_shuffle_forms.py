#!/usr/bin/env python3
"""Would warp shuffles take misaligned rows to the aligned speed? Hand-written forms of the
bench_ragged kernel (no divisibility promise) whose misaligned path exchanges vector halves
between neighbouring lanes, timed against what the tree emits, in one process
(``ab_sources``: GB/s and the ratio to the nearest aligned N of the same form).

A lane's vector starts ``k = offset % 4`` elements past a 16-byte boundary; its last ``k``
elements and the next lane's first ``4 - k`` make one aligned 16-byte chunk. With
``__shfl_down_sync`` a lane gets its neighbour's registers and moves that chunk with one
128-bit transfer; the first lane of a row segment (the lanes of one warp on one row) adds the
partial chunk before it, and a chunk cut by the row's end or by the segment's last lane is
done in pieces. ``k`` is the same in every lane of a segment (its vectors are consecutive).
Forms (the correct ones are checked bit for bit after the timings):

* ``emitted``: what the tree emits now (``bench_ragged.lowered``);
* ``hand``: the emitted algorithm written by hand (32-bit loads under one predicate each; a
  vector stored as its aligned pieces by ``k``; a straddling vector element by element), to
  tell the hand-written frame from the algorithm;
* ``shflst``: ``hand``'s loads, stores exchanged by shuffles (a chunk cut at an edge is stored
  element by element);
* ``shflboth``: loads exchanged too (one aligned 128-bit load a lane; the segment's last lane
  loads the chunk after it itself). A chunk may hold up to 3 elements of the next row or the
  previous one (inside the buffer but outside the copy's box); at the buffer's end it may read
  up to 12 bytes past it, which the benchmark's buffers have room for (a lowering would need a
  guard there);
* ``shfllean``: ``hand``'s loads, stores exchanged with no branch (the chunk chosen by selects
  on ``k``; a cut chunk as a prefix of at most a 64-bit and a 32-bit piece);
* ``eshfl``: the emitted kernel with only its fallback stores replaced by ``shfllean``'s
  (``emitted_shuffle``; a segment runs the stores while any of its lanes is inside, since every
  lane must run the shuffles): the emitted frame and register use, the stores alone differing;
* ``oshflst``, ``oshflboth``, ``oshfllean``, ``oeshfl``: the same with every shuffle replaced by
  the lane's own register (timing only, wrong data): what the exchange itself costs.

The aligned path (N % 4 == 0) of the hand forms is the emitted one's: one 128-bit load and store
a vector.

On the H200 (``lab/results/ab_shuffle_{1,2}_2026-12-02_session7.txt``) every shuffled form
ran the 32x256 tile's misaligned N below 200 slower than the emitted kernel (``eshfl``:
0.33-0.62x of its aligned N below 64 columns, against 0.58-0.90x emitted), and ``oeshfl``
(same registers) ran within 1% of ``eshfl``: the exchange itself costs nothing; the selects, the clamped prefix pieces and the
head pieces that every warp issues each round cost more issue slots than the aligned pieces
they replace, and below 64 columns a CTA's copy is issue-bound. ``hand`` ran below
``emitted`` too (64 registers against 48). Only where a warp spans two rows of different
``k`` (the 64x64 tile) did the branch-free exchange gain (``eshfl`` 0.85-0.95x against
0.72-0.86x for N of 101..203), still short of 0.95x.

    python3 lab/ragged/ab_shuffle_forms.py [DIR [FORM ...]]   # DIR (default: temporary) keeps
                                                            # the sources; FORMs: those timed
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

import ab_sources
from regcopy_bench import bench_ragged as br

HAND_FORMS = ("hand", "shflst", "shflboth", "shfllean", "eshfl", "oshflst", "oshflboth",
              "oshfllean", "oeshfl")
FORMS = ("emitted", *HAND_FORMS)
CHECK_NS = (1, 3, 4, 5, 6, 7, 17, 33, 35, 38, 63, 64, 65, 66, 67, 129, 130, 131, 250, 253, 255,
            256, 257, 259)

HEAD = r"""
typedef unsigned long long u64;
__device__ __forceinline__ float4 ld4(const float* p) { return *reinterpret_cast<const float4*>(p); }
__device__ __forceinline__ void st4(float* p, float a, float b, float c, float d) {
  asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" :: "l"(p), "f"(a), "f"(b), "f"(c), "f"(d) : "memory"); }
__device__ __forceinline__ void st2(float* p, float a, float b) {
  asm volatile("st.global.v2.f32 [%0], {%1, %2};" :: "l"(p), "f"(a), "f"(b) : "memory"); }
__device__ __forceinline__ void st1(float* p, float a) {
  asm volatile("st.global.f32 [%0], %1;" :: "l"(p), "f"(a) : "memory"); }
__device__ __forceinline__ float dn(float v) { return __shfl_down_sync(0xffffffffu, v, 1); }

extern "C" __global__ void __launch_bounds__(256) ragged(float* __restrict__ X, long long M,
    long long N, float* __restrict__ Y, long long M_y, long long N_y) {
  float R[4 * RND];
  const u64 uN = (u64)N, uM = (u64)M;
  const long long b = (long long)blockIdx.x;
  const long long nct = (long long)((uN + COLS - 1) / COLS);
  const long long rt = (long long)((u64)b / (u64)nct), ct = (long long)((u64)b % (u64)nct);
  const int tid = (int)threadIdx.x;
  const int c_in = tid % TPR;
  const int seg_lane = c_in % SEG;
  const bool first = seg_lane == 0, last = seg_lane == SEG - 1;
  const long long vcol = ct * COLS + 4 * c_in;
  const long long r0 = rt * ROWS + tid / TPR;
  const long long e0 = r0 * N + vcol;
  const long long nin = N - vcol;  // elements of the vector inside the row (may be <= 0)
  if ((u64)(vcol - 4 * seg_lane) >= uN) return;  // the whole segment is past the row's end
  if (N % 4 == 0) {
    const bool in = nin >= 4;
    #pragma unroll
    for (int f = 0; f < RND; f++) {
      const bool ok = in && (u64)(r0 + RPR * f) < uM;
      float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
      if (ok) v = ld4(&X[e0 + (long long)(RPR * f) * N]);
      R[4 * f] = v.x; R[4 * f + 1] = v.y; R[4 * f + 2] = v.z; R[4 * f + 3] = v.w;
    }
    STORE_FRAME
    #pragma unroll
    for (int f = 0; f < RND; f++) {
      if (in_y && (u64)(r0 + RPR * f) < uM_y)
        st4(&Y[e0_y + (long long)(RPR * f) * N_y], R[4 * f], R[4 * f + 1], R[4 * f + 2], R[4 * f + 3]);
    }
    return;
  }
LOADS
  STORE_FRAME
STORES
}
"""

SCALAR_LOADS = r"""
  #pragma unroll
  for (int f = 0; f < RND; f++) {
    const bool rok = (u64)(r0 + RPR * f) < uM;
    const long long e = e0 + (long long)(RPR * f) * N;
    #pragma unroll
    for (int j = 0; j < 4; j++) R[4 * f + j] = (rok && (u64)(vcol + j) < uN) ? X[e + j] : 0.f;
  }
"""

SHFL_LOADS = r"""
  #pragma unroll
  for (int f = 0; f < RND; f++) {
    const bool rok = (u64)(r0 + RPR * f) < uM;
    const long long e = e0 + (long long)(RPR * f) * N;
    const int k = (int)(e & 3);
    float4 lo = make_float4(0.f, 0.f, 0.f, 0.f);
    if (rok && nin + k > 0) lo = ld4(&X[e - k]);
    float4 hi = make_float4(dn(lo.x), dn(lo.y), dn(lo.z), dn(lo.w));
    if (last) {
      hi = make_float4(0.f, 0.f, 0.f, 0.f);
      if (rok && k != 0 && nin > 4 - k) hi = ld4(&X[e - k + 4]);
    }
    float v[4];
    switch (k) {
      case 0: v[0] = lo.x; v[1] = lo.y; v[2] = lo.z; v[3] = lo.w; break;
      case 1: v[0] = lo.y; v[1] = lo.z; v[2] = lo.w; v[3] = hi.x; break;
      case 2: v[0] = lo.z; v[1] = lo.w; v[2] = hi.x; v[3] = hi.y; break;
      default: v[0] = lo.w; v[1] = hi.x; v[2] = hi.y; v[3] = hi.z; break;
    }
    #pragma unroll
    for (int j = 0; j < 4; j++) R[4 * f + j] = (rok && j < nin) ? v[j] : 0.f;
  }
"""

PIECE_STORES = r"""
  #pragma unroll
  for (int f = 0; f < RND; f++) {
    const bool rok = (u64)(r0 + RPR * f) < uM;
    const long long e = e0 + (long long)(RPR * f) * N;
    const int k = (int)(e & 3);
    const float* m = &R[4 * f];
    if (rok && nin >= 4) {
      if (k == 0) st4(&Y[e], m[0], m[1], m[2], m[3]);
      else if (k == 2) { st2(&Y[e], m[0], m[1]); st2(&Y[e + 2], m[2], m[3]); }
      else { st1(&Y[e], m[0]); st2(&Y[e + 1], m[1], m[2]); st1(&Y[e + 3], m[3]); }
    } else if (rok && nin > 0) {
      #pragma unroll
      for (int j = 0; j < 3; j++) if (j < nin) st1(&Y[e + j], m[j]);
    }
  }
"""

SHFL_STORES = r"""
  #pragma unroll
  for (int f = 0; f < RND; f++) {
    const bool rok = (u64)(r0 + RPR * f) < uM;
    const long long e = e0 + (long long)(RPR * f) * N;
    const int k = (int)(e & 3);
    const float* m = &R[4 * f];
    const float n0 = dn(m[0]), n1 = dn(m[1]), n2 = dn(m[2]);
    if (rok && nin > 0) {
      if (k == 0) {
        if (nin >= 4) st4(&Y[e], m[0], m[1], m[2], m[3]);
        else {
          #pragma unroll
          for (int j = 0; j < 3; j++) if (j < nin) st1(&Y[e + j], m[j]);
        }
      } else {
        if (first) {  // the partial chunk before the segment's first aligned one
          #pragma unroll
          for (int j = 0; j < 3; j++) if (j < 4 - k && j < nin) st1(&Y[e + j], m[j]);
        }
        if (!last && nin >= 8 - k) {  // the chunk at e + 4 - k, whole inside the row
          if (k == 1) st4(&Y[e + 3], m[3], n0, n1, n2);
          else if (k == 2) st4(&Y[e + 2], m[2], m[3], n0, n1);
          else st4(&Y[e + 1], m[1], m[2], m[3], n0);
        } else {  // cut by the row's end or the segment's last lane: element by element
          #pragma unroll
          for (int j = 1; j < 4; j++) if (j >= 4 - k && j < nin) st1(&Y[e + j], m[j]);
          if (!last) {
            if (4 - k > 0 && 4 < nin) st1(&Y[e + 4], n0);
            if (4 - k > 1 && 5 < nin) st1(&Y[e + 5], n1);
            if (4 - k > 2 && 6 < nin) st1(&Y[e + 6], n2);
          }
        }
      }
    }
  }
"""

FRAME = ("const u64 uM_y = (u64)M_y; const long long e0_y = r0 * N_y + vcol, "
         "nin_y = N_y - vcol; const bool in_y = nin_y >= 4;")
"""The store side's extents: Y's own (not X's), as the lowering reads them."""

LEAN_BODY = r"""
    const int k = (int)(e & 3);
    const float m0 = R[4 * f], m1 = R[4 * f + 1], m2 = R[4 * f + 2], m3 = R[4 * f + 3];
    const float n0 = dn(m0), n1 = dn(m1), n2 = dn(m2);
    // the aligned chunk at e + skip: the vector itself (k == 0), else its last k elements and
    // the next lane's first 4 - k
    const float c0 = k == 0 ? m0 : k == 1 ? m3 : k == 2 ? m2 : m1;
    const float c1 = k == 0 ? m1 : k == 1 ? n0 : k == 2 ? m3 : m2;
    const float c2 = k == 0 ? m2 : k == 1 ? n1 : k == 2 ? n0 : m3;
    const float c3 = k == 0 ? m3 : k == 1 ? n2 : k == 2 ? n1 : n0;
    const int skip = (4 - k) & 3;
    long long r = nin - skip;  // the chunk's elements inside the row: a prefix of it
    r = r < 0 ? 0 : r > 4 ? 4 : r;
    if (last && k != 0 && r > k) r = k;  // the next segment's first lane writes the rest
    float* const a = &Y[e + skip];
    if (rok) {
      if (r == 4) st4(a, c0, c1, c2, c3);
      if (r == 2 || r == 3) st2(a, c0, c1);
      if (r == 1) st1(a, c0);
      if (r == 3) st1(a + 2, c2);
    }
    if (rok && first && k != 0 && nin > 0) {  // the partial chunk before the first boundary
      if (k == 2) { if (nin >= 2) st2(&Y[e], m0, m1); else st1(&Y[e], m0); }
      else {
        st1(&Y[e], m0);
        if (k == 1 && nin >= 3) st2(&Y[e + 1], m1, m2);
        else if (k == 1 && nin == 2) st1(&Y[e + 1], m1);
      }
    }
"""
"""One round of the lean shuffled store: ``e`` the vector's offset, ``rok`` its row inside,
``nin`` its elements inside the row, ``first``/``last`` its lane's place in the segment."""

LEAN_STORES = r"""
  #pragma unroll
  for (int f = 0; f < RND; f++) {
    const bool rok = (u64)(r0 + RPR * f) < uM;
    const long long e = e0 + (long long)(RPR * f) * N;
""" + LEAN_BODY + "  }\n"

HELPERS = HEAD[:HEAD.index('extern "C"')]


def emitted_shuffle(src: str, tile: br.Tile) -> str:
    """The emitted kernel with its fallback stores (``N % 4 != 0``) replaced by the lean
    shuffled stores (``LEAN_BODY``), and the stores' ``reach`` taken per segment (every lane of
    a segment must run the shuffles): the emitted frame, so that only the stores differ."""
    from ab_oracle_forms import block

    tpr = tile.cols // 4
    rpr, seg = 256 // tpr, min(tpr, 32)
    vcol = re.search(r"const bool reach_1 = \(unsigned long long\)(v\d+) <", src).group(1)
    rowbase, e0 = re.search(rf"= (v\d+|row) \* Y_dim1;\n\s*const long long (v\d+) = v\d+ "
                            rf"\+ {vcol};", src).groups()
    at = src.index("if (aligned_1) {")
    _, c = block(src, at)
    assert src.startswith(" else ", c + 1)
    o2, c2 = block(src, c + 1)
    body = (f"{{\n      const long long nin = Y_dim1 - {vcol};\n"
            f"      const int seg_lane = (int)((({vcol} - col) >> 2) % {seg});\n"
            f"      const bool first = seg_lane == 0, last = seg_lane == {seg - 1};\n"
            f"      #pragma unroll\n      for (int f = 0; f < {tile.rows // rpr}; f++) {{\n"
            f"    const bool rok = (u64)({rowbase} + {rpr} * f) < (u64)Y_dim0;\n"
            f"    const long long e = {e0} + (long long)({rpr} * f) * Y_dim1;\n"
            f"{LEAN_BODY}      }}\n    }}")
    src = src[:o2] + body + src[c2 + 1:]
    src = src.replace("if (reach_1) {", f"if ((u64)({vcol} - 4 * ((({vcol} - col) >> 2) % "
                      f"{seg})) < (u64)Y_dim1) {{", 1)
    at = src.index('extern "C"')
    return src[:at] + HELPERS + src[at:]


BODIES = {"hand": (SCALAR_LOADS, PIECE_STORES), "shflst": (SCALAR_LOADS, SHFL_STORES),
          "shflboth": (SHFL_LOADS, SHFL_STORES), "oshflst": (SCALAR_LOADS, SHFL_STORES),
          "oshflboth": (SHFL_LOADS, SHFL_STORES), "shfllean": (SCALAR_LOADS, LEAN_STORES),
          "oshfllean": (SCALAR_LOADS, LEAN_STORES)}
ORACLES = ("oshflst", "oshflboth", "oshfllean", "oeshfl")
"""Timing only (wrong data, not checked): ``shflst`` and ``shflboth`` with every shuffle
replaced by the lane's own register, so that they bound what the shuffles' cost hides."""


def source(form: str, tile: br.Tile) -> str:
    """The CUDA source of a hand-written form for ``tile`` (256 threads, 4 f32 a vector, the
    tile's rows split into rounds of ``256 / (cols / 4)`` rows)."""
    if form in ("eshfl", "oeshfl"):
        text = emitted_shuffle(br.lowered(tile, False)[0], tile)
        return text.replace("return __shfl_down_sync(0xffffffffu, v, 1);", "return v;") \
            if form in ORACLES else text
    tpr = tile.cols // 4
    rpr = 256 // tpr
    loads, stores = BODIES[form]
    y = {"rok = (u64)(r0 + RPR * f) < uM;": "rok = (u64)(r0 + RPR * f) < uM_y;",
         "e0 + (long long)(RPR * f) * N;": "e0_y + (long long)(RPR * f) * N_y;", "nin": "nin_y"}
    for a, b in y.items():
        stores = stores.replace(a, b)
    text = (HEAD.replace("LOADS", loads).replace("STORES", stores)
            .replace("STORE_FRAME", FRAME))
    if form in ORACLES:
        text = text.replace("return __shfl_down_sync(0xffffffffu, v, 1);", "return v;")
    for name, value in (("RND", tile.rows // rpr), ("COLS", tile.cols), ("TPR", tpr),
                        ("SEG", min(tpr, 32)), ("ROWS", tile.rows), ("RPR", rpr)):
        text = text.replace(name, str(value))
    return text


def write_forms(root: Path) -> None:
    for name, tile in ab_sources.TILES.items():
        (root / "emitted").mkdir(parents=True, exist_ok=True)
        (root / "emitted" / f"{name}.cu").write_text(br.lowered(tile, False)[0])
        for form in HAND_FORMS:
            (root / form).mkdir(parents=True, exist_ok=True)
            (root / form / f"{name}.cu").write_text(source(form, tile))


def check(root: Path, forms: list[str]) -> int:
    """Each form, each tile, the ``CHECK_NS`` (and 4000..4003 on the 8x1024 tile): Y == X bit
    for bit after one launch on random data. Returns the number of mismatches."""
    from regcopy_backend.runtime.runner import compile_kernel, cuda_core, get_device

    core, dev = cuda_core(), get_device()
    stream = dev.create_stream()
    nbytes = 4 * max(2 * t.rows * (4003 if t.cols > 256 else 259)
                     for t in ab_sources.TILES.values()) + 4096
    x, y = dev.allocate(nbytes, stream=stream), dev.allocate(nbytes, stream=stream)
    bad = 0
    for name, tile in ab_sources.TILES.items():
        info = br.lowered(tile, False)[1]
        ns = (4000, 4001, 4002, 4003) if tile.cols > 256 else CHECK_NS
        for form in forms:
            kernel = compile_kernel(dev, (root / form / f"{name}.cu").read_text(), "ragged")
            bench = br.Bench(core, dev, stream, x, y, {(tile, False): (kernel, info)})
            for n in ns:
                if not br.check_copy(bench, tile, 2 * tile.rows, n):
                    print(f"MISMATCH: {form} {name} N = {n}")
                    bad += 1
        print(f"checked {name}: {', '.join(forms)} at N = {', '.join(map(str, ns))}", flush=True)
    for buf in (x, y):
        buf.close(stream)
    return bad


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else Path(tempfile.mkdtemp(prefix="ab_shuffle_"))
    forms = argv[1:] or list(FORMS)
    write_forms(root)
    status = ab_sources.main([str(root), *forms])
    bad = check(root, [f for f in forms if f in HAND_FORMS and f not in ORACLES])
    print(f"bit-exact checks: {'all equal' if bad == 0 else f'{bad} MISMATCHES'}")
    return status or (1 if bad else 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
