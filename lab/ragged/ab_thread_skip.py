#!/usr/bin/env python3
"""A/B on the GPU: the bench_ragged 32 x 256 kernel (versioned and promised) as emitted, against
the same kernel with a thread whose columns all lie past N returning at once (``+skip``), and a
hand-written fallback with per-round base pointers (``compact``), over N around the small-N
knee. Each N is timed in the order A, B, ..., B, A; the table gives GB/s and the ratio to the
nearest aligned N of the same kernel.

    python3 lab/ragged/ab_thread_skip.py
"""

from __future__ import annotations

import re
import sys

from regcopy_bench import bench_ragged as br
from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
from regcopy_backend.runtime.runner import compile_kernel, cuda_core, get_device

COMPACT = r'''
typedef unsigned int u32;
__device__ __forceinline__ void st4(float* p, u32 a, u32 b, u32 c, u32 d){ asm volatile("st.global.v4.b32 [%0], {%1,%2,%3,%4};" :: "l"(p), "r"(a), "r"(b), "r"(c), "r"(d) : "memory"); }
__device__ __forceinline__ void st2(float* p, u32 a, u32 b){ asm volatile("st.global.v2.b32 [%0], {%1,%2};" :: "l"(p), "r"(a), "r"(b) : "memory"); }
__device__ __forceinline__ void st1(float* p, u32 a){ asm volatile("st.global.b32 [%0], %1;" :: "l"(p), "r"(a) : "memory"); }
extern "C" __global__ void __launch_bounds__(256) ragged(float* __restrict__ X, long long M, long long N, float* __restrict__ Y, long long M2, long long N2) {
  const long long b = blockIdx.x;
  const long long nct = (N + 255) / 256;
  const long long rt = b / nct, ct = b % nct;
  const int tid = threadIdx.x;
  const long long row = rt * 32 + tid / 64;
  const long long col = ct * 256 + (tid % 64) * 4;
  if (col >= N) return;
  const bool c1 = col + 1 < N, c2 = col + 2 < N, c3 = col + 3 < N;
  const float* xs = X + row * N + col;
  float* ys = Y + row * N + col;
  const long long step = 4 * N;
  u32 R[32];
  if (N % 4 == 0) {
    #pragma unroll
    for (int f = 0; f < 8; ++f) {
      uint4 v = make_uint4(0, 0, 0, 0);
      if (row + 4 * f < M && c3) v = *reinterpret_cast<const uint4*>(xs + f * step);
      R[4*f] = v.x; R[4*f+1] = v.y; R[4*f+2] = v.z; R[4*f+3] = v.w;
    }
    #pragma unroll
    for (int f = 0; f < 8; ++f)
      if (row + 4 * f < M && c3) st4(ys + f * step, R[4*f], R[4*f+1], R[4*f+2], R[4*f+3]);
  } else {
    #pragma unroll
    for (int f = 0; f < 8; ++f) {
      const bool r = row + 4 * f < M;
      const u32* p = reinterpret_cast<const u32*>(xs + f * step);
      R[4*f] = r ? p[0] : 0u;
      R[4*f+1] = (r && c1) ? p[1] : 0u;
      R[4*f+2] = (r && c2) ? p[2] : 0u;
      R[4*f+3] = (r && c3) ? p[3] : 0u;
    }
    #pragma unroll
    for (int f = 0; f < 8; ++f) {
      if (!(row + 4 * f < M)) continue;
      float* q = ys + f * step;
      const u32 k = (u32)((unsigned long long)q >> 2) & 3u;
      if (c3) {
        if (k == 0) st4(q, R[4*f], R[4*f+1], R[4*f+2], R[4*f+3]);
        if (k == 2) { st2(q, R[4*f], R[4*f+1]); st2(q + 2, R[4*f+2], R[4*f+3]); }
        if (k & 1) { st1(q, R[4*f]); st2(q + 1, R[4*f+1], R[4*f+2]); st1(q + 3, R[4*f+3]); }
      } else {
        st1(q, R[4*f]);
        if (c1) st1(q + 1, R[4*f+1]);
        if (c2) st1(q + 2, R[4*f+2]);
      }
    }
  }
}
'''

NS = [4, 5, 6, 7, 8, 16, 17, 18, 19, 32, 33, 34, 35, 36, 48, 49, 50, 51, 52, 53, 54, 55, 56,
      64, 65, 66, 67, 68, 80, 81, 82, 83, 84, 100, 101, 102, 103, 104, 128, 129, 130, 131, 132]


def skip(src: str, col: str) -> str:
    """``src`` with ``if (col >= dim1) return;`` after the first definition of ``col``."""
    m = re.search(rf"  const long long {col} = [^\n]*\n", src)
    return src[:m.end()] + f"  if ({col} >= X_dim1) return;\n" + src[m.end():]


def main() -> int:
    tile = br.ROWS
    gen_v, _ = br.lowered(tile, False)
    gen_p, _ = br.lowered(tile, True)
    col = re.search(r"const long long (v\d+) = col \+ ", gen_v).group(1)
    srcs = {"versioned": gen_v, "versioned+skip": skip(gen_v, col), "compact": COMPACT,
            "promised": gen_p, "promised+skip": skip(gen_p, col)}
    for name, s in srcs.items():
        sass = disassemble(compile_cuda(s).cubin)
        n = len(re.findall(r"/\*[0-9a-f]{4}\*/", sass))
        local = len(re.findall(r"\b(LDL|STL)\b", sass))
        print(f"{name:16} {n} SASS instructions, {local} LDL/STL")
    core, dev = cuda_core(), get_device()
    stream = dev.create_stream()
    _, info = br.lowered(tile, False)
    kernels = {(tile, name): (compile_kernel(dev, s, "ragged"), info) for name, s in srcs.items()}
    ns = sorted(set(NS) | {br.aligned_of(n) for n in NS})
    max_bytes = max(4 * br.rows_for(n, tile) * n for n in ns) + 4096
    x, y = dev.allocate(max_bytes, stream=stream), dev.allocate(max_bytes, stream=stream)
    bench = br.Bench(core, dev, stream, x, y, kernels)  # type: ignore[arg-type]
    names = list(srcs)
    bw: dict[tuple[str, int], float] = {}
    for n in ns:
        m = bench.rows(tile, n)
        run = [k for k in names if n % 4 == 0 or not k.startswith("promised")]
        t = {name: 0.0 for name in run}
        for name in run + run[::-1]:
            t[name] += bench.launch(tile, name, m, n, 10) / 2  # type: ignore[arg-type]
        for name in run:
            bw[(name, n)] = 2 * 4 * m * n / t[name] / 1e6
    print("| N | " + " | ".join(f"{k} GB/s (ratio)" for k in names) + " |")
    for n in NS:
        a = br.aligned_of(n)
        print(f"| {n} | " + " | ".join(f"{bw[(k, n)]:.0f} ({bw[(k, n)] / bw[(k, a)]:.3f})"
                                       if (k, n) in bw else "-" for k in names) + " |")
    for name in ("compact", "versioned+skip"):
        kernels[(tile, False)] = kernels[(tile, name)]  # check_copy launches (tile, False)
        for n in (5, 53, 130):
            print(f"{name} {n}: bit-exact {br.check_copy(bench, tile, bench.rows(tile, n), n)}")
    for b in (x, y):
        b.close(stream)
    return 0


if __name__ == "__main__":
    sys.exit(main())
