#!/usr/bin/env python3
"""Benchmark: shared-memory copies of regcopy's lowering against the shared peak (issue 8).

    python bench/bench_shared.py [--ctas-per-sm 4] [--iters 4096] [--sass-only]

For each layout (256-thread CTAs, ``(8,32,k):(1@warpid,1@laneid,1)``: 32-bit k=8, 32-bit
k=16, 16-bit k=16; and a 128-thread warpgroup 16-bit ``(128,64):(1@tid_in_wg,1)`` tile through
``swizzle<3,3,3>``) three kernels loop ``iters`` times over two shared tiles. Which tile an
iteration uses depends on data the loop computes (element 0 of the register array it carries),
so no load is loop-invariant and no store provably overwritten: without that, ptxas hoisted
the loads and dropped stores, showing "2x of peak".

* ``round trip``: S[p] -> R -> S[1-p], a barrier per iteration (2 tile transfers);
* ``load only``: S[p] -> R, then each 32-bit word of R XORed into its own accumulator word
  (one ``LOP3`` a word, no chain across words: the loop is bound by the loads, not by
  arithmetic; an earlier ``a = a*31 + r`` chain over the elements made every single-direction
  loop latency-bound, even conflict-free ones); the accumulators are folded into the output;
* ``store only``: the iteration number XORed into each 32-bit word of R, then R -> S[p].

The registers are worked on as 16-byte vectors whatever the element width (a bitwise op on a
word is the lane-wise op), so 16-bit elements cost the same arithmetic as 32-bit ones.

Each runs as lowered by ``lower-reg-copy`` with ``bank-rotation=auto`` and ``off``, beside a
hand-written CUDA kernel of the same shape with the plain pattern (thread t moves its row with
uint4 accesses). Throughput is bytes through shared memory per second over the peak of
128 B/clock/SM (SM count and clock read from the device), all in the same run. Element types
are integers of the same width as f32/f16 (the banks see bytes). The SASS of every kernel is
summarised: LDS/STS, LDL/STL and BRA in the whole kernel, and the main loop's instructions per
128-bit shared access, LOP3 and SEL, so that an elided, spilled or issue-bound kernel is
visible. ``--sass-only`` prints that without a GPU.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "gpu"))

sys.path.insert(0, str(ROOT / "bench"))
from cases import bootstrap  # noqa: E402

bootstrap()

from sass_loops import sass_summary  # noqa: E402

from xdsl.parser import Parser  # noqa: E402

from regcopy_backend.cuda import print_cuda  # noqa: E402
from regcopy_dialect.context import regcopy_context  # noqa: E402
from regcopy_passes import banks  # noqa: E402
from regcopy_passes.lower_reg_copy import LowerRegCopyPass  # noqa: E402



@dataclass(frozen=True)
class Shape:
    """A benchmark layout: R layout text and shape, S tile shape (two tiles stacked on dim 0),
    element type, threads, the copy scope, and whether S is swizzled."""

    name: str
    r_layout: str
    r_shape: tuple[int, ...]
    dtype: str
    block: int
    scope: str
    swizzle: bool = False
    regs: int | None = None
    """Registers a thread holds when R is not one row a thread (a fragment layout)."""

    @property
    def elem_bytes(self) -> int:
        return int(self.dtype[1:]) // 8

    @property
    def tile_bytes(self) -> int:
        n = 1
        for d in self.r_shape:
            n *= d
        return n * self.elem_bytes

    @property
    def row(self) -> int:
        """Elements per thread (one row, or a fragment's registers)."""
        return self.regs if self.regs is not None else self.r_shape[-1]

    @property
    def chunk(self) -> int:
        """Elements per 16-byte chunk (one 128-bit access)."""
        return 16 // self.elem_bytes

    @property
    def rounds(self) -> int:
        """16-byte chunks per thread."""
        return self.row // self.chunk


MMA_A = "(8,2,8,2,4,2):(1@warpid,2,4@laneid,4,1@laneid,1)"
"""Per warp, the m16n8k16 A fragment (as in examples/gemm_tiles.mlir)."""
MMA_A64 = "(8,2,8,4,2,4,2):(1@warpid,2,4@laneid,8,4,1@laneid,1)"
"""Per warp, four K steps of A fragments (16 x 64), from a ``swizzle<3,3,3>`` tile."""

SHAPES = (
    Shape("32-bit k=8", "(8,32,8):(1@warpid,1@laneid,1)", (8, 32, 8), "i32", 256, "cta"),
    Shape("32-bit k=16", "(8,32,16):(1@warpid,1@laneid,1)", (8, 32, 16), "i32", 256, "cta"),
    Shape("16-bit k=16", "(8,32,16):(1@warpid,1@laneid,1)", (8, 32, 16), "i16", 256, "cta"),
    Shape("16-bit wg swizzle<3,3,3>", "(128,64):(1@tid_in_wg,1)", (128, 64), "i16", 128,
          "warpgroup", True),
    Shape("16-bit mma A fragments", MMA_A, (128, 16), "i16", 256, "cta", regs=8),
    Shape("16-bit mma A, K=64 swizzled", MMA_A64, (128, 64), "i16", 256, "cta", True, 32),
)
"""The row layouts (issue 8) and, last, eight warps' m16n8k16 A fragments (16 x 16 each, 8
registers a lane: rows ``lane/4`` and ``+8``, column pairs ``2(lane%4)`` and ``+8``) read from
/ written to a row-major 16-column tile (its 16-byte rows 32 bytes apart: 2-way conflicts
between ldmatrix rows, so ``transfer=auto`` keeps the lane-rotated 32-bit path) and four K
steps of them from a swizzled 64-column tile (conflict-free rows: ``auto`` takes ldmatrix):
ldmatrix/stmatrix territory (issue 10), timed as ``transfer=vector``, ``auto`` and ``matrix``
(forced)."""


def _types(s: Shape) -> dict[str, str]:
    dims = "x".join(map(str, s.r_shape))
    s_dims = "x".join(map(str, (2 * s.r_shape[0], *s.r_shape[1:])))
    rank = len(s.r_shape)
    if s.swizzle:
        s_lay = f"#regcopy.layout<({2 * s.r_shape[0]},{s.r_shape[1]}):({s.r_shape[1]},1), " \
                "swizzle<3,3,3>>, "
    else:
        s_lay = ""
    local = "#regcopy.mem<local>"
    return {
        "R": f"memref<{dims}x{s.dtype}, #regcopy.layout<{s.r_layout}>, {local}>",
        "S": f"memref<{s_dims}x{s.dtype}, {s_lay}#regcopy.mem<shared>>",
        "ACC": f"memref<{s.block}x{s.row}x{s.dtype}, #regcopy.layout<({s.block},{s.row}):"
               f"(1@tx,1)>, {local}>",
        "X": f"memref<{s.block}x{s.chunk}x{s.dtype}, #regcopy.layout<({s.block},{s.chunk}):"
             f"(1@tx,1)>, {local}>",
        "A": f"memref<{s.block}x{s.dtype}, #regcopy.layout<{s.block}:1@tx>, {local}>",
        "flat": f"memref<{s.row}x{s.dtype}, {local}>",
        "xflat": f"memref<{s.chunk}x{s.dtype}, {local}>",
        "vec": f"vector<{s.chunk}x{s.dtype}>",
        "region": ", ".join(["%row"] + ["0"] * (rank - 1)),
        "other": ", ".join(["%orow"] + ["0"] * (rank - 1)),
        "sizes": ", ".join(map(str, s.r_shape)),
    }


HEAD = """func.func @{name}(%out: memref<{block}x{dtype}, #regcopy.mem<global>>, %n: index)
    attributes {{regcopy.launch = #regcopy.launch<block = {block}, grid = [1]>}} {{
  %S = memref.alloca() : {S}
  %R = memref.alloca() : {R}
  %ACC = memref.alloca() : {ACC}
  %X = memref.alloca() : {X}
  %A = memref.alloca() : {A}
  %Rs = regcopy.storage %R : {R} -> {flat}
  %ACCs = regcopy.storage %ACC : {ACC} -> {flat}
  %Xs = regcopy.storage %X : {X} -> {xflat}
  %tid = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cchunk = arith.constant {chunk} : index
  %crounds = arith.constant {rounds} : index
  %ctile = arith.constant {tile0} : index
  %ck = arith.constant {k} : index
  %z = arith.constant 0 : {dtype}
  scf.for %e = %c0 to %ck step %c1 {{
    %te = arith.addi %tid, %e : index
    %tv = arith.index_cast %te : index to {dtype}
    memref.store %tv, %Rs[%e] : {flat}
    memref.store %z, %ACCs[%e] : {flat}
  }}
  scf.for %e = %c0 to %cchunk step %c1 {{
    memref.store %z, %Xs[%e] : {xflat}
  }}
  scf.for %it = %c0 to %n step %c1 {{
    %m0 = memref.load {state}[%c0] : {flat}
    %m0i = arith.index_cast %m0 : {dtype} to index
    %mix = arith.addi %m0i, %it : index
    %p = arith.andi %mix, %c1 : index
    %row = arith.muli %p, %ctile : index
    %q = arith.subi %c1, %p : index
    %orow = arith.muli %q, %ctile : index
{body}
  }}
  memref.store %z, %A[%tid] : {A}
  scf.for %e = %c0 to %ck step %c1 {{
    %r = memref.load {state}[%e] : {flat}
    %s = memref.load %A[%tid] : {A}
    %s1 = arith.xori %s, %r : {dtype}
    memref.store %s1, %A[%tid] : {A}
  }}
  %res = memref.load %A[%tid] : {A}
  memref.store %res, %out[%tid] : memref<{block}x{dtype}, #regcopy.mem<global>>
  func.return
}}
"""

BODIES = {
    "round trip": """\
    regcopy.copy {scope} %S[{region}] [{sizes}] -> %R : {S} -> {R}
    regcopy.copy {scope} %R -> %S[{other}] [{sizes}] : {R} -> {S}
    "gpu.barrier"() : () -> ()""",
    "load only": """\
    regcopy.copy {scope} %S[{region}] [{sizes}] -> %R : {S} -> {R}
    scf.for %f = %c0 to %crounds step %c1 {{
      %e = arith.muli %f, %cchunk : index
      %v = vector.load %Rs[%e] : {flat}, {vec}
      %a = vector.load %ACCs[%e] : {flat}, {vec}
      %a2 = arith.xori %a, %v : {vec}
      vector.store %a2, %ACCs[%e] : {flat}, {vec}
    }}""",
    "store only": """\
    %iti = arith.index_cast %it : index to {dtype}
    scf.for %w = %c0 to %cchunk step %c1 {{
      memref.store %iti, %Xs[%w] : {xflat}
    }}
    %x = vector.load %Xs[%c0] : {xflat}, {vec}
    scf.for %f = %c0 to %crounds step %c1 {{
      %e = arith.muli %f, %cchunk : index
      %v = vector.load %Rs[%e] : {flat}, {vec}
      %v2 = arith.xori %v, %x : {vec}
      vector.store %v2, %Rs[%e] : {flat}, {vec}
    }}
    regcopy.copy {scope} %R -> %S[{region}] [{sizes}] : {R} -> {S}""",
}
"""The loop bodies. The registers are worked on in 16-byte chunks XORed word by word (one
``LOP3`` per 32-bit word, whatever the element width; no chain across words): the load-only
loop folds each loaded word into its own accumulator, the store-only loop XORs the iteration
number into each word before the stores."""

STATE = {"round trip": "ACC", "load only": "ACC", "store only": "R"}
"""The register array a loop carries from one iteration to the next: the tile choice of an
iteration reads its element 0, and it is folded (XOR) into the kernel's output at the end."""

TRANSFERS = {"round trip": 2, "load only": 1, "store only": 1}


def kernel_ir(s: Shape, kind: str) -> str:
    t = _types(s)
    body = BODIES[kind].format(scope=s.scope, dtype=s.dtype, **t)
    return HEAD.format(name="k", block=s.block, dtype=s.dtype, tile0=s.r_shape[0], k=s.row,
                       chunk=s.chunk, rounds=s.rounds, state=f"%{STATE[kind]}s", body=body, **t)


def lowered_source(s: Shape, kind: str, rotation: str, transfer: str = "auto") -> str:
    ctx = regcopy_context()
    module = Parser(ctx, kernel_ir(s, kind), "bench_shared.mlir").parse_module()
    LowerRegCopyPass(bank_rotation=rotation, transfer=transfer).apply(ctx, module)
    module.verify()
    return print_cuda(module)


HAND = """
typedef unsigned int uint32_t;
typedef unsigned short uint16_t;
// the plain pattern by hand: thread t of the CTA owns row t ({row_bytes} bytes), uint4 rounds
extern "C" __global__ void __launch_bounds__({block}) k({ct}* __restrict__ out, int n) {{
  __shared__ alignas(128) {ct} S[{elems2}];
  alignas(16) {ct} R[{row}];
  alignas(16) {ct} ACC[{row}];
  alignas(16) {ct} X[{chunk}];
  const int t = threadIdx.x;
  #pragma unroll
  for (int e = 0; e < {row}; ++e) {{ R[e] = ({ct})(t + e); ACC[e] = 0; }}
  #pragma unroll
  for (int e = 0; e < {chunk}; ++e) X[e] = 0;
  uint4* r = reinterpret_cast<uint4*>(R);
  uint4* acc = reinterpret_cast<uint4*>(ACC);
  for (int it = 0; it < n; ++it) {{
    const int m = (int){state}[0] + it;
    const int p = m & 1;
    uint4* tile = reinterpret_cast<uint4*>(&S[p * {elems} + t * {row}]);
    uint4* other = reinterpret_cast<uint4*>(&S[(1 - p) * {elems} + t * {row}]);
{body}
  }}
  {ct} s = 0;
  #pragma unroll
  for (int e = 0; e < {row}; ++e) s ^= {state}[e];
  out[t] = s;
}}
"""

HAND_BODIES = {
    "round trip": """\
    #pragma unroll
    for (int f = 0; f < {rounds}; ++f) r[f] = tile[f];
    #pragma unroll
    for (int f = 0; f < {rounds}; ++f) other[f] = r[f];
    __syncthreads();""",
    "load only": """\
    #pragma unroll
    for (int f = 0; f < {rounds}; ++f) r[f] = tile[f];
    #pragma unroll
    for (int f = 0; f < {rounds}; ++f) {{
      acc[f].x ^= r[f].x; acc[f].y ^= r[f].y; acc[f].z ^= r[f].z; acc[f].w ^= r[f].w;
    }}""",
    "store only": """\
    #pragma unroll
    for (int e = 0; e < {chunk}; ++e) X[e] = ({ct})it;
    const uint4 x = *reinterpret_cast<const uint4*>(X);
    #pragma unroll
    for (int f = 0; f < {rounds}; ++f) {{
      r[f].x ^= x.x; r[f].y ^= x.y; r[f].z ^= x.z; r[f].w ^= x.w;
    }}
    #pragma unroll
    for (int f = 0; f < {rounds}; ++f) tile[f] = r[f];""",
}


def hand_source(s: Shape, kind: str) -> str | None:
    if s.swizzle or s.regs is not None:
        return None
    ct = {4: "int", 2: "short"}[s.elem_bytes]
    fields = dict(ct=ct, row=s.row, rounds=s.rounds, row_bytes=s.row * s.elem_bytes,
                  block=s.block, elems=s.block * s.row, elems2=2 * s.block * s.row,
                  chunk=s.chunk, state=STATE[kind])
    return HAND.format(body=HAND_BODIES[kind].format(**fields), **fields)


@dataclass(frozen=True)
class Variant:
    shape: Shape
    kind: str
    label: str
    source: str


@contextmanager
def select_weight(weight: float) -> Iterator[None]:
    """``banks.SELECT_WEIGHT`` set to ``weight`` for the duration (calibration rows only)."""
    saved = banks.SELECT_WEIGHT
    banks.SELECT_WEIGHT = weight
    try:
        yield
    finally:
        banks.SELECT_WEIGHT = saved


def variants(weights: Sequence[float] = ()) -> list[Variant]:
    """Hand-written, rotation off and auto for every layout and kernel, and for each of
    ``weights``, ``auto`` with that select weight where it changes the chosen rotation."""
    out: list[Variant] = []
    for s in SHAPES:
        for kind in BODIES:
            if s.regs is not None:  # a fragment: the transfer kinds side by side
                for transfer in ("vector", "auto", "matrix"):
                    out.append(Variant(s, kind, f"regcopy transfer={transfer}",
                                       lowered_source(s, kind, "auto", transfer)))
                continue
            hand = hand_source(s, kind)
            if hand is not None:
                out.append(Variant(s, kind, "hand-written plain", hand))
            out.append(Variant(s, kind, "regcopy rotation=off", lowered_source(s, kind, "off")))
            auto = lowered_source(s, kind, "auto")
            out.append(Variant(s, kind, "regcopy rotation=auto", auto))
            for w in weights:
                with select_weight(w):
                    other = lowered_source(s, kind, "auto")
                if other != auto:
                    out.append(Variant(s, kind, f"auto, select weight {w:g}", other))
    return out


def time_kernel(core: Any, dev: Any, stream: Any, source: str, ctas: int, iters: int,
                block: int, out: Any, reps: int = 5) -> float:
    """Best milliseconds of ``reps`` timed launches (after a warm-up)."""
    opts = core.ProgramOptions(arch=f"sm_{dev.arch}", std="c++17")
    kernel = core.Program(source, code_type="c++", options=opts).compile("cubin").get_kernel("k")
    config = core.LaunchConfig(grid=(ctas, 1, 1), block=(block, 1, 1))
    import numpy as np

    n = np.int32(iters)
    core.launch(stream, config, kernel, int(out.handle), n)
    timed = core.EventOptions(timing_enabled=True)
    best = float("inf")
    for _ in range(reps):
        start = stream.record(options=timed)
        core.launch(stream, config, kernel, int(out.handle), n)
        end = stream.record(options=timed)
        end.sync()
        best = min(best, end - start)
    return best


def table_row(v: Variant, sass: dict[str, Any], frac: float | None) -> str:
    share = f"{frac:6.3f}x" if frac is not None else "    n/a"
    text = (f"{sass['total']:5} {sass['LDS']:3} {sass['STS']:3} "
            f"{sass['LDL'] + sass['STL']:3} {sass['BRA']:3}")
    n, acc, lop3, sel = sass["loop"]
    loop = f"{n:4}/{acc:<3} {lop3:4} {sel:3}"
    return (f"| {v.shape.name:25} | {v.kind:10} | {v.label:24} | {share} | {text:31} | "
            f"{loop:22} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ctas-per-sm", type=int, default=4)
    ap.add_argument("--iters", type=int, default=4096)
    ap.add_argument("--sass-only", action="store_true")
    ap.add_argument("--select-weight", type=float, action="append", default=[],
                    help="also time bank-rotation=auto with this select cost (in wavefronts; "
                    "default banks.SELECT_WEIGHT) where it picks another rotation")
    args = ap.parse_args()
    vs = variants(args.select_weight)
    run: Callable[[Variant], float | None] = lambda v: None  # noqa: E731
    peak = 0.0
    header = "SASS only (no GPU timing)"
    if not args.sass_only:
        try:
            from regcopy_backend.runner import cuda_core, get_device

            core, dev = cuda_core(), get_device()
        except Exception as e:  # noqa: BLE001 - no GPU: say so, exit 2
            print(f"bench_shared: no GPU ({e}); use --sass-only", file=sys.stderr)
            return 2
        props = dev.properties
        sms, khz = props.multiprocessor_count, props.clock_rate
        peak = 128.0 * sms * khz * 1e3
        stream = dev.create_stream()
        out = dev.allocate(4096, stream=stream)
        ctas = sms * args.ctas_per_sm
        header = (f"{dev.name}: {sms} SMs at {khz / 1e3:.0f} MHz, shared peak "
                  f"{peak / 1e12:.2f} TB/s (128 B/clock/SM); {ctas} CTAs x {args.iters} "
                  "iterations")

        def run(v: Variant) -> float | None:
            ms = time_kernel(core, dev, stream, v.source, ctas, args.iters, v.shape.block, out)
            moved = ctas * args.iters * TRANSFERS[v.kind] * v.shape.tile_bytes
            return moved / (ms * 1e-3) / peak

    print(header)
    print("SASS: the whole kernel (instructions, LDS, STS, LDL+STL, BRA) and its main loop "
          "(instructions / 128-bit shared accesses, LOP3, SEL)")
    print(f"| {'layout':25} | {'kernel':10} | {'variant':24} | {'of peak':>7} | "
          f"{'kernel: all LDS STS LDL/STL BRA':31} | {'loop: all/acc LOP3 SEL':22} |")
    print(f"|{'-' * 27}|{'-' * 12}|{'-' * 26}|{'-' * 9}|{'-' * 33}|{'-' * 24}|", flush=True)
    for v in vs:
        print(table_row(v, sass_summary(v.source), run(v)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
