"""Issue 34, small N: where the misaligned fallback of the fitted tiles loses to Triton's plain
masked copy, by SASS (no GPU) and by an A/B on the H200 of hand-written forms against what the
tree emits, all in one process on the same buffers.

    python3 lab/ragged/smalln_forms.py --sass              # SASS per class, per element
    python3 lab/ragged/smalln_forms.py [--iters K] [FORM ...]   # the A/B (needs a GPU)

Forms of the tile-copy kernel ``bench_ragged`` compiles (same signature: X, its two extents, Y,
its two extents; 256 threads, one CTA a tile, 1-D grid, columns first):

* ``emitted``: the versioned kernel the tree emits (128-bit at N % 4 == 0, else the fallback
  the cost model picks: staged, where the tree has that form).
* ``emitted32``: the same source with every index in 32-bit integers (the extents read once
  into ``int``): what the ``index32`` work will make of it.
* ``predicated``, ``predicated32``: the tree's kernel with ``misaligned-stores=predicated``
  (32-bit loads and stores, one predicate each, lanes 16 bytes apart: the fitted tiles'
  form of 2026-12-03), in 64- and 32-bit integers.
* ``stagedp``, ``stagedp32``: the tree's kernel with ``misaligned-stores=staged`` (loads and
  stores staged through shared memory), in 64- and 32-bit integers.
* ``triton``: Triton's kernel by hand: its blocked layout for a misaligned N (one f32 a thread
  an access, ``min(C, 32)`` lanes along a row, warps stacked on rows), one predicate an
  element, the row offset in 64 bits (``rows.to(tl.int64) * N``), as ``ragged_peer`` writes it.
* ``triton32``: the same with 32-bit offsets.
* ``staged``: the tree's register layout (each thread 4 contiguous f32 of a row a round), the
  128-bit path at N % 4 == 0, and at a misaligned N every transfer in Triton's order through a
  warp's own 512 bytes of shared memory a round: 32-bit loads and stores, consecutive lanes on
  consecutive elements (one predicate an element), a 128-bit shared access a thread a round
  between them and ``__syncwarp``.
* ``staged32``: ``staged`` in 32-bit integers.

SASS (``--sass``): instructions of the misaligned path only (the aligned test made false), by
class, per element a thread moves (16), and registers. The A/B: GB/s of each form at each N and
its ratio to the same form's nearest aligned N; every output checked bit for bit first.
"""

from __future__ import annotations

import re
import sys
from collections import Counter

from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
from regcopy_backend.cuda.spills import ptxas_usage
from regcopy_bench import bench_ragged as br
from regcopy_bench.sass_loops import sass_ops

TILES = {f"{t.rows}x{t.cols}": t for t in br.FITTED}
NS = {"1024x4": [1, 2, 3], "512x8": [5, 6, 7], "256x16": [9, 11, 13, 14, 15],
      "128x32": [17, 19, 22, 25, 27, 31], "64x64": [17, 21, 27, 33, 35, 41, 49, 55, 63]}
SIG = ("float* __restrict__ X, long long X_dim0, long long X_dim1, "
       "float* __restrict__ Y, long long Y_dim0, long long Y_dim1")
HEAD = 'extern "C" __global__ void __launch_bounds__(256) ragged(' + SIG + ") {\n"


def to_i32(source: str) -> str:
    """The kernel with its index math in 32-bit integers: extents read once into ``int``."""
    head, sep, body = source.partition(") {\n")
    for p in ("X_dim0", "X_dim1", "Y_dim0", "Y_dim1"):
        head = head.replace(f"long long {p}", f"long long {p}_w")
    body = body.replace("unsigned long long", "unsigned").replace("long long", "int")
    body = re.sub(r"\b(\d+)LL\b", r"\1", body)
    locals_ = "".join(f"  const int {p} = (int){p}_w;\n"
                      for p in ("X_dim0", "X_dim1", "Y_dim0", "Y_dim1"))
    return head + sep + locals_ + body


def misaligned_only(source: str) -> str:
    """The kernel with its aligned test made false (its SASS: the misaligned path only)."""
    source = re.sub(r"const bool (aligned\w*) = [^;]*;", r"const bool \1 = false;", source)
    return source.replace("#define ALIGNED_TEST(n) ((n) % 4 == 0)",
                          "#define ALIGNED_TEST(n) false")


def triton(rows: int, cols: int, wide: bool = True) -> str:
    """Triton's blocked layout at a misaligned N: ``tc = min(cols, 32)`` lanes a row, one f32
    a lane an access, warps on rows; every element under ``row < M && col < N``."""
    tc = min(cols, 32)
    rpw = 32 // tc
    idx = "long long" if wide else "int"
    reps_r, reps_c = rows // (rpw * 8), cols // tc
    return HEAD + f"""  const int M = (int)X_dim0, N = (int)X_dim1;
  const int b = blockIdx.x, nct = (N + {cols - 1}) / {cols};
  const int rt = b / nct, ct = b % nct;
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  const int r0 = rt * {rows} + w * {rpw} + lane / {tc}, c0 = ct * {cols} + lane % {tc};
  float v[{reps_r * reps_c}];
  #pragma unroll
  for (int i = 0; i < {reps_r}; ++i) {{
    #pragma unroll
    for (int j = 0; j < {reps_c}; ++j) {{
      const int r = r0 + i * {rpw * 8}, c = c0 + j * {tc};
      const {idx} o = ({idx})r * N + c;
      float x = 0.0f;
      if (r < M && c < N) x = X[o];
      v[i * {reps_c} + j] = x;
    }}
  }}
  #pragma unroll
  for (int i = 0; i < {reps_r}; ++i) {{
    #pragma unroll
    for (int j = 0; j < {reps_c}; ++j) {{
      const int r = r0 + i * {rpw * 8}, c = c0 + j * {tc};
      const {idx} o = ({idx})r * N + c;
      if (r < M && c < N) Y[o] = v[i * {reps_c} + j];
    }}
  }}
}}
"""


def staged(rows: int, cols: int, wide: bool = True) -> str:
    """The tree's layout (thread ``t``: row ``t / T + f * 256 / T``, columns ``4 (t % T)``..
    ``+3`` of round ``f``, ``T = cols / 4``); aligned N: 128-bit transfers under a predicate
    each; misaligned: a warp's round (``32 / T`` whole rows, 128 f32) moves between global
    memory and a 512-byte shared slice in Triton's order (element ``e = lane + 32 j`` of the
    slice: row ``e / cols``, column ``e % cols``), and between the slice and the registers as
    one 128-bit shared access a thread (element ``4 lane``)."""
    t = cols // 4
    step = 256 // t
    idx = "long long" if wide else "int"
    per = 128 // cols  # rows of the slice  (cols <= 32: 32 / T rows; 64: 2 rows)
    jr = max(1, 32 // cols)  # rows a j-step of 32 elements advances (cols <= 32)
    if cols <= 32:
        rc = f"const int rl = lane / {cols} + j * {jr}, cl = lane % {cols};"
    else:
        rc = f"const int rl = j / {cols // 32}, cl = lane + (j % {cols // 32}) * 32;"
    return "#define ALIGNED_TEST(n) ((n) % 4 == 0)\n" + HEAD + f"""  __shared__ __align__(16) float S[8][4][128];
  const {idx} M = ({idx})X_dim0, N = ({idx})X_dim1;
  const int b = blockIdx.x;
  const int nct = (int)(((unsigned long long)N + {cols - 1}) / {cols});
  const int rt = b / nct, ct = b % nct;
  const int tid = threadIdx.x, lane = tid % 32, w = tid / 32;
  const {idx} row = ({idx})rt * {rows} + tid / {t};
  const {idx} col = ({idx})ct * {cols} + 4 * (tid % {t});
  const {idx} wrow = ({idx})rt * {rows} + w * {per};
  const {idx} ccol = ({idx})ct * {cols};
  alignas(16) float R[16];
  if (ALIGNED_TEST(N)) {{
    const bool cin = col + 3 < N;
    #pragma unroll
    for (int f = 0; f < 4; ++f) {{
      const {idx} r = row + f * {step};
      float4 x = make_float4(0.f, 0.f, 0.f, 0.f);
      if (cin && r < M) x = *reinterpret_cast<const float4*>(&X[r * N + col]);
      *reinterpret_cast<float4*>(&R[4 * f]) = x;
    }}
  }} else {{
    #pragma unroll
    for (int f = 0; f < 4; ++f) {{
      #pragma unroll
      for (int j = 0; j < 4; ++j) {{
        {rc}
        const {idx} r = wrow + f * {step} + rl, c = ccol + cl;
        float x = 0.0f;
        if (r < M && c < N) x = X[r * N + c];
        S[w][f][lane + 32 * j] = x;
      }}
    }}
    __syncwarp();
    #pragma unroll
    for (int f = 0; f < 4; ++f)
      *reinterpret_cast<float4*>(&R[4 * f]) = *reinterpret_cast<const float4*>(&S[w][f][4 * lane]);
    __syncwarp();
  }}
  if (ALIGNED_TEST(N)) {{
    const bool cin = col + 3 < N;
    #pragma unroll
    for (int f = 0; f < 4; ++f) {{
      const {idx} r = row + f * {step};
      if (cin && r < M) *reinterpret_cast<float4*>(&Y[r * N + col]) =
          *reinterpret_cast<const float4*>(&R[4 * f]);
    }}
  }} else {{
    #pragma unroll
    for (int f = 0; f < 4; ++f)
      *reinterpret_cast<float4*>(&S[w][f][4 * lane]) = *reinterpret_cast<const float4*>(&R[4 * f]);
    __syncwarp();
    #pragma unroll
    for (int f = 0; f < 4; ++f) {{
      #pragma unroll
      for (int j = 0; j < 4; ++j) {{
        {rc}
        const {idx} r = wrow + f * {step} + rl, c = ccol + cl;
        const float s = S[w][f][lane + 32 * j];
        if (r < M && c < N) Y[r * N + c] = s;
      }}
    }}
  }}
}}
"""


def lowered_as(tile: br.Tile, form: str) -> str:
    """The benchmark kernel as the tree lowers it with ``misaligned-stores=form``."""
    was = br.MISALIGNED_STORES[0]
    br.MISALIGNED_STORES[0] = form
    try:
        return br.lowered(tile, False)[0]
    finally:
        br.MISALIGNED_STORES[0] = was


def forms(tile: br.Tile) -> dict[str, str]:
    """Every form's CUDA source for ``tile``."""
    emitted = br.lowered(tile, False)[0]
    predicated = lowered_as(tile, "predicated")
    staged_pass = lowered_as(tile, "staged")
    return {"emitted": emitted, "emitted32": to_i32(emitted),
            "predicated": predicated, "predicated32": to_i32(predicated),
            "stagedp": staged_pass, "stagedp32": to_i32(staged_pass),
            "triton": triton(tile.rows, tile.cols), "triton32": triton(tile.rows, tile.cols, False),
            "staged": staged(tile.rows, tile.cols), "staged32": staged(tile.rows, tile.cols, False)}


CLASSES = {"LDG": "ld.global", "STG": "st.global", "LDS": "ld.shared", "STS": "st.shared",
           "ISETP": "compare", "PLOP3": "predicate", "SEL": "select", "SHFL": "shuffle",
           "BRA": "branch", "BSSY": "branch", "BSYNC": "branch", "WARPSYNC": "branch",
           "NOP": "nop", "EXIT": "branch", "MOV": "move", "S2R": "special", "S2UR": "special",
           "LDC": "constant", "ULDC": "constant"}


def sass_classes(source: str) -> tuple[Counter[str], int]:
    """SASS instructions by class (integer math together) and the instruction count."""
    ops = [op for _, op, _ in sass_ops(disassemble(compile_cuda(source).cubin)) if op != ":"]
    out: Counter[str] = Counter()
    for op in ops:
        base = op.split(".")[0]
        out[CLASSES.get(base, "uniform" if base.startswith("U") else "int math")] += 1
    out.pop("nop", None)
    return out, sum(out.values())


def sass_report() -> None:
    """Per tile and form: the misaligned path's SASS by class, per element (16 a thread)."""
    for name, tile in TILES.items():
        print(f"\ntile {name}: misaligned path, SASS instructions per element a thread moves "
              "(16), by class; registers")
        for form, src in forms(tile).items():
            only = misaligned_only(src)
            classes, total = sass_classes(only)
            regs, spill = ptxas_usage(only, "sm_90").get("ragged", ("?", "?"))
            cells = " ".join(f"{k} {v / 16:.2f}" for k, v in sorted(classes.items()))
            print(f"  {form:9} total {total / 16:5.2f} | {cells} | {regs} regs, {spill} spill")


def exact(bench: br.Bench, key: object, tile: br.Tile, m: int, n: int) -> bool:
    """Y filled with 0xA5, one launch of ``key``; Y's M x N elements equal X's bit for bit,
    the 16 bytes after them untouched (X holds random bytes)."""
    from cuda.bindings import driver

    import numpy as np
    nbytes = m * n * 4
    driver.cuMemsetD8(int(bench.y.handle), 0xA5, nbytes + 16)
    bench.stream.sync()
    bench.launch(tile, key, m, n, 1)  # type: ignore[arg-type]
    bench.stream.sync()
    x = np.empty(nbytes, np.uint8)
    y = np.empty(nbytes + 16, np.uint8)
    driver.cuMemcpyDtoH(x.ctypes.data, int(bench.x.handle), nbytes)
    driver.cuMemcpyDtoH(y.ctypes.data, int(bench.y.handle), nbytes + 16)
    return bool(np.array_equal(x, y[:nbytes]) and (y[nbytes:] == 0xA5).all())


def compiled(dev: object, source: str, info: object) -> object:
    """What ``bench_ragged.Bench`` launches: the kernel's compiles by index width where the
    tree has them (``KernelVariants``: 32-bit index math where a launch's offsets fit), else
    the one compile. A hand-written source has one width (both compiles are the same)."""
    try:
        from regcopy_backend.runtime.variants import KernelVariants
    except ImportError:
        from regcopy_backend.runtime.runner import compile_kernel
        return compile_kernel(dev, source, "ragged")
    return KernelVariants(dev, source, info)


def mean_ratio(bw: dict[tuple[str, int], float], form: str, ns: list[int]) -> float:
    """The mean over ``ns`` of ``form``'s GB/s over its GB/s at the nearest aligned N."""
    return sum(bw[(form, n)] / bw[(form, br.aligned_of(n))] for n in ns) / len(ns)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--sass"]:
        sass_report()
        return 0
    iters = 10
    if argv[:1] == ["--iters"]:
        iters, argv = int(argv[1]), argv[2:]
    from cuda.bindings import driver
    from regcopy_backend.runtime.runner import cuda_core, get_device

    names = argv or ["emitted", "emitted32", "predicated", "predicated32", "stagedp",
                     "stagedp32", "triton", "triton32", "staged32"]
    core, dev = cuda_core(), get_device()
    stream = dev.create_stream()
    info = br.lowered(br.NARROW, False)[1]
    kernels = {}
    for tile in TILES.values():
        for form, src in forms(tile).items():
            if form in names:
                kernels[(tile, form)] = (compiled(dev, src, info), info)
    all_ns = {t: sorted(set(ns) | {br.aligned_of(n) for n in ns}) for t, ns in NS.items()}
    max_bytes = max(4 * br.rows_for(n, TILES[t]) * n for t, ns in all_ns.items() for n in ns)
    max_bytes += 4096
    x, y = dev.allocate(max_bytes, stream=stream), dev.allocate(max_bytes, stream=stream)
    import numpy as np
    host = np.random.default_rng(34).integers(0, 256, max_bytes, dtype=np.uint8)
    driver.cuMemcpyHtoD(int(x.handle), host.ctypes.data, max_bytes)
    bench = br.Bench(core, dev, stream, x, y, kernels)  # type: ignore[arg-type]
    bad: list[str] = []
    for tname, tile in TILES.items():
        bw: dict[tuple[str, int], float] = {}
        for n in all_ns[tname]:
            m = bench.rows(tile, n)
            for form in names:
                if not exact(bench, form, tile, m, n):
                    bad.append(f"{tname} {form} N={n}")
            ms = {f: 0.0 for f in names}
            for f in names + names[::-1]:
                ms[f] += bench.launch(tile, f, m, n, iters) / 2  # type: ignore[arg-type]
            for f in names:
                bw[(f, n)] = 2 * 4 * m * n / ms[f] / 1e6
        print(f"\ntile {tname}: GB/s (ratio to the same form's aligned N)")
        print("| N | " + " | ".join(names) + " |")
        print("|---|" + "---|" * len(names))
        for n in NS[tname]:
            a = br.aligned_of(n)
            print(f"| {n} | " + " | ".join(f"{bw[(f, n)]:.0f} ({bw[(f, n)] / bw[(f, a)]:.3f})"
                                          for f in names) + " |", flush=True)
        print("mean ratio: " + ", ".join(f"{f} {mean_ratio(bw, f, NS[tname]):.3f}"
                                         for f in names))
    for b in (x, y):
        b.close(stream)
    print("MISMATCH: " + "; ".join(bad) if bad else "every output bit-exact")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
