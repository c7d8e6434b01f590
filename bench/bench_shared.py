#!/usr/bin/env python3
"""Benchmark: shared-memory copies of regcopy's lowering against the shared peak (issue 8).

    python bench/bench_shared.py [--ctas-per-sm 4] [--iters 4096] [--sass-only]

For each layout (256-thread CTAs, ``(8,32,k):(1@warpid,1@laneid,1)``: 32-bit k=8, 32-bit
k=16, 16-bit k=16; and a 128-thread warpgroup 16-bit ``(128,64):(1@tid_in_wg,1)`` tile through
``swizzle<3,3,3>``) three kernels loop ``iters`` times over two shared tiles (which tile an iteration
uses depends on data computed in the loop, so no load is loop-invariant and no store is
provably overwritten: without that, ptxas hoisted the loads and dropped stores, showing
"2x of peak"):

* ``round trip``: S[p] -> R -> S[1-p], a barrier per iteration (2 tile transfers);
* ``load only``: S[p] -> R, each register folded into an accumulator ``a = a*31 + r`` (order
  matters, so the selects of rotated rounds cannot cancel); the accumulator is written out;
* ``store only``: each register updated ``r = r*31 + it``, then R -> S[p].

Each runs as lowered by ``lower-reg-copy`` with ``bank-rotation=auto`` and ``off``, beside a
hand-written CUDA kernel of the plain pattern (thread t moves its row with uint4 accesses).
Throughput is bytes through shared memory per second over the peak of 128 B/clock/SM (SM
count and clock read from the device), all in the same run. Element types are integers of
the same width as f32/f16 (the CUDA target does arithmetic on them; the banks see bytes).
The SASS of every kernel is summarised (LDS/STS counts, LOP3, LDL/STL, BRA) so that an
elided or spilled kernel is visible. ``--sass-only`` prints that without a GPU.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "gpu"))

from cases import bootstrap  # noqa: E402

bootstrap()

from xdsl.parser import Parser  # noqa: E402

from regcopy_backend.cuda import print_cuda  # noqa: E402
from regcopy_backend.nvrtc import compile_cuda, disassemble  # noqa: E402
from regcopy_dialect.context import regcopy_context  # noqa: E402
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
        """Elements per thread (one row)."""
        return self.r_shape[-1]


SHAPES = (
    Shape("32-bit k=8", "(8,32,8):(1@warpid,1@laneid,1)", (8, 32, 8), "i32", 256, "cta"),
    Shape("32-bit k=16", "(8,32,16):(1@warpid,1@laneid,1)", (8, 32, 16), "i32", 256, "cta"),
    Shape("16-bit k=16", "(8,32,16):(1@warpid,1@laneid,1)", (8, 32, 16), "i16", 256, "cta"),
    Shape("16-bit wg swizzle<3,3,3>", "(128,64):(1@tid_in_wg,1)", (128, 64), "i16", 128,
          "warpgroup", True),
)


def _types(s: Shape) -> dict[str, str]:
    dims = "x".join(map(str, s.r_shape))
    s_dims = "x".join(map(str, (2 * s.r_shape[0], *s.r_shape[1:])))
    rank = len(s.r_shape)
    if s.swizzle:
        s_lay = f"#regcopy.layout<({2 * s.r_shape[0]},{s.r_shape[1]}):({s.r_shape[1]},1), " \
                "swizzle<3,3,3>>, "
    else:
        s_lay = ""
    idx = {3: "%w, %l, %j", 2: "%t, %j"}[rank]
    return {
        "R": f"memref<{dims}x{s.dtype}, #regcopy.layout<{s.r_layout}>, #regcopy.mem<local>>",
        "S": f"memref<{s_dims}x{s.dtype}, {s_lay}#regcopy.mem<shared>>",
        "A": f"memref<{s.block}x{s.dtype}, #regcopy.layout<{s.block}:1@tx>, #regcopy.mem<local>>",
        "region": ", ".join(["%row"] + ["0"] * (rank - 1)),
        "other": ", ".join(["%orow"] + ["0"] * (rank - 1)),
        "sizes": ", ".join(map(str, s.r_shape)),
        "ridx": idx,
    }


HEAD = """func.func @{name}(%out: memref<{block}x{dtype}, #regcopy.mem<global>>, %n: index)
    attributes {{regcopy.launch = #regcopy.launch<block = {block}, grid = [1]>}} {{
  %S = memref.alloca() : {S}
  %R = memref.alloca() : {R}
  %A = memref.alloca() : {A}
  %tid = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %ctile = arith.constant {tile0} : index
  %ck = arith.constant {k} : index
  %w = arith.divsi %tid, %c32 : index
  %l = arith.remsi %tid, %c32 : index
  %t = arith.remsi %tid, %c128 : index
  %k31 = arith.constant 31 : {dtype}
  %z = arith.constant 0 : {dtype}
  memref.store %z, %A[%tid] : {A}
  scf.for %it = %c0 to %n step %c1 {{
    %a0 = memref.load %A[%tid] : {A}
    %a0i = arith.index_cast %a0 : {dtype} to index
    %mix = arith.addi %a0i, %it : index
    %p = arith.remsi %mix, %c2 : index
    %pp = arith.muli %p, %p : index
    %row = arith.muli %pp, %ctile : index
    %q = arith.subi %c1, %p : index
    %orow = arith.muli %q, %ctile : index
{body}
  }}
  %acc = memref.load %A[%tid] : {A}
  memref.store %acc, %out[%tid] : memref<{block}x{dtype}, #regcopy.mem<global>>
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
    scf.for %j = %c0 to %ck step %c1 {{
      %v = memref.load %R[{ridx}] : {R}
      %a = memref.load %A[%tid] : {A}
      %a31 = arith.muli %a, %k31 : {dtype}
      %a2 = arith.addi %a31, %v : {dtype}
      memref.store %a2, %A[%tid] : {A}
    }}""",
    "store only": """\
    %iti = arith.index_cast %it : index to {dtype}
    scf.for %j = %c0 to %ck step %c1 {{
      %v = memref.load %R[{ridx}] : {R}
      %v31 = arith.muli %v, %k31 : {dtype}
      %v2 = arith.addi %v31, %iti : {dtype}
      memref.store %v2, %R[{ridx}] : {R}
      %s = memref.load %A[%tid] : {A}
      %s2 = arith.addi %s, %v2 : {dtype}
      memref.store %s2, %A[%tid] : {A}
    }}
    regcopy.copy {scope} %R -> %S[{region}] [{sizes}] : {R} -> {S}""",
}

TRANSFERS = {"round trip": 2, "load only": 1, "store only": 1}


def kernel_ir(s: Shape, kind: str) -> str:
    t = _types(s)
    body = BODIES[kind].format(scope=s.scope, dtype=s.dtype, **t)
    return HEAD.format(name="k", block=s.block, dtype=s.dtype, tile0=s.r_shape[0], k=s.row,
                       body=body, **t)


def lowered_source(s: Shape, kind: str, rotation: str) -> str:
    ctx = regcopy_context()
    module = Parser(ctx, kernel_ir(s, kind), "bench_shared.mlir").parse_module()
    LowerRegCopyPass(bank_rotation=rotation).apply(ctx, module)
    module.verify()
    return print_cuda(module)


HAND = """
typedef unsigned int uint32_t;
// the plain pattern by hand: thread t of the CTA owns row t ({row_bytes} bytes), uint4 rounds
extern "C" __global__ void __launch_bounds__({block}) k({ct}* __restrict__ out, int n) {{
  __shared__ alignas(128) {ct} S[{elems2}];
  alignas(16) {ct} R[{row}];
  {ct} a = 0;
  const int t = threadIdx.x;
  for (int it = 0; it < n; ++it) {{
    const int m = (int)a + it;
    const int p = (m % 2) * (m % 2);
    uint4* tile = reinterpret_cast<uint4*>(&S[p * {elems} + t * {row}]);
    uint4* other = reinterpret_cast<uint4*>(&S[(1 - p) * {elems} + t * {row}]);
    uint4* r = reinterpret_cast<uint4*>(R);
{body}
  }}
  out[t] = a;
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
    for (int j = 0; j < {row}; ++j) a = a * 31 + R[j];""",
    "store only": """\
    #pragma unroll
    for (int j = 0; j < {row}; ++j) {{ R[j] = R[j] * 31 + ({ct})it; a += R[j]; }}
    #pragma unroll
    for (int f = 0; f < {rounds}; ++f) tile[f] = r[f];""",
}


def hand_source(s: Shape, kind: str) -> str | None:
    if s.swizzle:
        return None
    ct = {4: "int", 2: "short"}[s.elem_bytes]
    row_bytes = s.row * s.elem_bytes
    fields = dict(ct=ct, row=s.row, rounds=row_bytes // 16, row_bytes=row_bytes,
                  block=s.block, elems=s.block * s.row, elems2=2 * s.block * s.row)
    return HAND.format(body=HAND_BODIES[kind].format(**fields), **fields)


SASS_KINDS = ("LDS", "STS", "LOP3", "LDL", "STL", "BRA", "BAR")


def sass_summary(source: str) -> dict[str, Any]:
    """Counts of the SASS instruction kinds that show whether a kernel is honest."""
    try:
        sass = disassemble(compile_cuda(source, options=("--diag-suppress=550,549",)).cubin)
    except Exception:  # noqa: BLE001 - no nvdisasm here: the timing still stands
        sass = ""
    ops = Counter(re.findall(r"^\s+/\*[0-9a-f]+\*/\s+(?:@!?P\w+\s+)?([A-Z][A-Z0-9_.]*)", sass,
                             re.M))
    out: dict[str, Any] = {k: 0 for k in SASS_KINDS}
    widths: Counter[str] = Counter()
    for op, c in ops.items():
        head = op.split(".")[0]
        if head in out:
            out[head] += c
        if head in ("LDS", "STS"):
            widths[op] += c
    out["total"] = sum(ops.values())
    out["widths"] = dict(widths)
    return out


@dataclass(frozen=True)
class Variant:
    shape: Shape
    kind: str
    label: str
    source: str


def variants() -> list[Variant]:
    out: list[Variant] = []
    for s in SHAPES:
        for kind in BODIES:
            hand = hand_source(s, kind)
            if hand is not None:
                out.append(Variant(s, kind, "hand-written plain", hand))
            out.append(Variant(s, kind, "regcopy rotation=off", lowered_source(s, kind, "off")))
            out.append(Variant(s, kind, "regcopy rotation=auto",
                               lowered_source(s, kind, "auto")))
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ctas-per-sm", type=int, default=4)
    ap.add_argument("--iters", type=int, default=4096)
    ap.add_argument("--sass-only", action="store_true")
    args = ap.parse_args()
    vs = variants()
    rows: list[tuple[Variant, dict[str, Any], float | None]] = []
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

    for v in vs:
        rows.append((v, sass_summary(v.source), run(v)))
    print(header)
    print(f"| {'layout':25} | {'kernel':10} | {'variant':22} | {'of peak':>7} | "
          f"{'SASS: total LDS STS LOP3 LDL/STL BRA':38} |")
    print(f"|{'-' * 27}|{'-' * 12}|{'-' * 24}|{'-' * 9}|{'-' * 40}|")
    for v, sass, frac in rows:
        share = f"{frac:6.3f}x" if frac is not None else "    n/a"
        text = (f"{sass['total']:5} {sass['LDS']:3} {sass['STS']:3} {sass['LOP3']:4} "
                f"{sass['LDL'] + sass['STL']:3} {sass['BRA']:3} {sass['widths']}")
        print(f"| {v.shape.name:25} | {v.kind:10} | {v.label:22} | {share} | {text:38} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
