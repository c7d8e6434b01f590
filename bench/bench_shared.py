#!/usr/bin/env python3
"""Benchmark: shared-memory copies of regcopy's lowering against the shared peak.

    python -m regcopy_bench.bench_shared [--ctas-per-sm 4] [--iters 4096] [--sass-only]
                                         [--consumer fadd|xor] [--select-weight W] [--auto]
                                         [--fma-swap-share F] [--only TEXT]

``--auto`` times, instead, the ``#regcopy.layout<auto>`` cases (``AUTO_CASES``: the seed f32
k=8 tile, 128-byte f32 rows, GEMM A ldmatrix fragments, K x N B ldmatrix.trans fragments), each
with S plain, S with the hand-chosen swizzle and S ``auto``, in every kernel (both directions).

For each layout (256-thread CTAs, ``(8,32,k):(1@warpid,1@laneid,1)``: 32-bit k=8, 32-bit
k=16, 16-bit k=16; a 128-thread warpgroup 16-bit ``(128,64):(1@tid_in_wg,1)`` tile through
``swizzle<3,3,3>``; eight warps' mma A fragments; last, four warps of 32-bit k=32, an 8-way
conflict that lane rotation takes to the ideal with 3 lane bits) three kernels loop ``iters`` times over
shared tiles. In the single-direction loops, which tiles an iteration uses depends on ``R[0]``,
which the previous iteration loaded or computed, so no access is loop-invariant and no store
provably overwritten (without that, ptxas hoisted the loads and dropped stores, showing "2x of
peak"); the round trip alternates with ``it & 1``, its barrier keeping every access in place:

* ``round trip``: S[2u ^ p] -> R -> S[(2u + 1) ^ p] for each pair u < ``copies``, then a
  barrier (2 tile transfers a pair; two pairs where they fit ``SLOT_BYTES``, so that every
  case moves about 32 KiB a barrier);
* ``load only``: ``copies`` tiles an iteration, S[u^p] -> R for u < copies, each 32-bit word
  of R folded into its own accumulator word after each copy (no chain across words);
* ``store only``: ``copies`` times, ``it * copies + u`` folded into each 32-bit word of R,
  then R -> S[u^p].

``copies`` is 2 to 4 (as many tiles as fit 32 KiB), so the per-iteration choice of tiles (a
few integer instructions) is paid once for 4 to 8 128-bit accesses, not once for two.

The consumer (``--consumer``) is what a loop does to each word: ``fadd`` (default) adds it as an
f32 (``vector.bitcast`` to ``vector<4xf32>``, ``arith.addf``: one ``FADD`` a word, on the FMA
pipe, like a kernel's math); ``xor`` XORs it (one ``LOP3`` a word, on the integer pipe, which
the lane-rotation blends also use: 8 ``LOP3`` per 128-bit access against a budget of 8 at the
shared peak, so that loop is integer-bound, and the table shows by how much).

Each runs as lowered by ``lower-reg-copy`` with ``bank-rotation=auto`` and ``off``, beside a
hand-written CUDA kernel of the same shape with the plain pattern (thread t moves its row with
uint4 accesses). Throughput is bytes through shared memory per second over the peak of
128 B/clock/SM (SM count and clock read from the device), all in the same run. Element types
are integers of the same width as f32/f16 (the banks see bytes). The SASS of every kernel is
summarised: LDS/STS, LDL/STL and BRA in the whole kernel, and the main loop's instructions per
128-bit shared access, LOP3, IMAD and SEL, so that an elided, spilled or issue-bound kernel is
visible, and the loop's issue-slot and pipe bound on the fraction of the peak (``est``,
``sass_loops.pipe_estimate``: per 128-bit access an SM has 16 issue slots, 8 integer-pipe and
8 ``IMAD`` instructions) with the resource that binds it. ``--sass-only`` prints that without a
GPU. After the table, the rotated 4-way and 8-way kernels are compared with their targets
(``ROTATION_TARGETS``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from regcopy_backend.cuda.printer import print_cuda
from regcopy_bench.sass_loops import sass_summary
from regcopy_passes.core.banks import FMA_SWAP_SHARE, SELECT_WEIGHT
from regcopy_passes.lower_reg_copy import LowerRegCopyPass
from xdsl.parser import Parser

from regcopy_dialect.context import regcopy_context


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
    Shape("32-bit k=32 (8-way)", "(4,32,32):(1@warpid,1@laneid,1)", (4, 32, 32), "i32", 128,
          "cta"),
)
"""The seed row layouts and, last, eight warps' m16n8k16 A fragments (16 x 16 each, 8
registers a lane: rows ``lane/4`` and ``+8``, column pairs ``2(lane%4)`` and ``+8``) read from
/ written to a row-major 16-column tile (its 16-byte rows 32 bytes apart: 2-way conflicts
between ldmatrix rows, so ``transfer=auto`` keeps the lane-rotated 32-bit path) and four K
steps of them from a swizzled 64-column tile (conflict-free rows: ``auto`` takes ldmatrix):
ldmatrix/stmatrix territory, timed as ``transfer=vector``, ``auto`` and ``matrix``
(forced)."""


ROTATION_TARGETS = {"32-bit k=16": 0.90, "32-bit k=32 (8-way)": 0.85}
"""Fractions of the shared peak that the lane-rotated (``bank-rotation=auto``) kernels of the
4-way (f32 k=16: a 2-bit butterfly) and 8-way (f32 k=32, four warps so that two tiles fit the
48 KiB of static shared memory: a 3-bit butterfly) layouts should reach."""


def target_lines(results: Sequence[tuple[Variant, float | None]]) -> list[str]:
    """One line per timed rotated kernel of a ``ROTATION_TARGETS`` layout: its fraction of the
    peak against the target."""
    out: list[str] = []
    for v, frac in results:
        target = ROTATION_TARGETS.get(v.shape.name)
        if target is None or frac is None or v.label != "regcopy rotation=auto":
            continue
        verdict = "meets" if frac >= target else "MISSES"
        out.append(f"{v.shape.name}, {v.kind}: {frac:.3f}x of peak, target {target:.2f}x: "
                   f"{verdict}")
    return out


SLOT_BYTES = 32 * 1024
"""Shared bytes a single-direction loop spreads its copies over (4 CTAs fit an SM)."""


@dataclass(frozen=True)
class Consumer:
    """What a loop does with each 32-bit word it loads, or to each word before it stores:
    ``fadd`` adds it as an f32 (``FADD``, the FMA pipe, like a kernel's math), ``xor`` XORs
    it (``LOP3``, the integer pipe that the lane-rotation blends use too)."""

    name: str
    word: str
    """MLIR type of a word: ``f32`` or ``i32``."""
    op: str
    """The MLIR op combining two vectors of words."""
    c_word: str
    """CUDA C of ``a op b`` on two ``unsigned`` words (``{a}``, ``{b}``)."""
    c_it: str
    """CUDA C of the word made from ``it * copies + u`` (iteration ``it``, copy ``u``)."""


CONSUMERS = {
    "fadd": Consumer("fadd", "f32", "arith.addf",
                     "__float_as_uint(__uint_as_float({a}) + __uint_as_float({b}))",
                     "__float_as_uint((float)(it * {copies} + u))"),
    "xor": Consumer("xor", "i32", "arith.xori", "{a} ^ {b}", "(unsigned)(it * {copies} + u)"),
}


def copies(s: Shape, kind: str) -> int:
    """Copies an iteration makes: the round trip as many pairs of tiles (one copy each way) as
    fit ``SLOT_BYTES`` (1 or 2), so that every case moves about the same bytes a barrier; a
    single-direction loop as many tiles as fit ``SLOT_BYTES`` (2 to 4), so that choosing the
    tiles (a few integer instructions an iteration) is paid once for several copies, not once
    for two 128-bit accesses."""
    if kind == "round trip":
        return max(1, min(2, SLOT_BYTES // (2 * s.tile_bytes)))
    return max(2, min(4, SLOT_BYTES // s.tile_bytes))


def slots(s: Shape, kind: str) -> int:
    """Shared tiles a kernel cycles through: copy ``u`` of an iteration uses tile ``u ^ p``
    (``p`` in {0, 1}, computed from data); the round trip's pair ``u`` reads tile
    ``2u ^ p`` and writes tile ``(2u + 1) ^ p``."""
    if kind == "round trip":
        return 2 * copies(s, kind)
    return max(2, copies(s, kind))


def _types(s: Shape, kind: str, c: Consumer) -> dict[str, str]:
    dims = "x".join(map(str, s.r_shape))
    rows = slots(s, kind) * s.r_shape[0]
    s_dims = "x".join(map(str, (rows, *s.r_shape[1:])))
    if s.swizzle:
        s_lay = f"#regcopy.layout<({rows},{s.r_shape[1]}):({s.r_shape[1]},1), swizzle<3,3,3>>, "
    else:
        s_lay = ""
    local = "#regcopy.mem<local>"
    words = s.row * s.elem_bytes // 4
    return {
        "R": f"memref<{dims}x{s.dtype}, #regcopy.layout<{s.r_layout}>, {local}>",
        "S": f"memref<{s_dims}x{s.dtype}, {s_lay}#regcopy.mem<shared>>",
        "F": f"memref<{s.block}x{words}x{c.word}, #regcopy.layout<({s.block},{words}):"
             f"(1@tx,1)>, {local}>",
        "X": f"memref<{s.block}x4x{c.word}, #regcopy.layout<({s.block},4):(1@tx,1)>, {local}>",
        "flat": f"memref<{s.row}x{s.dtype}, {local}>",
        "fflat": f"memref<{words}x{c.word}, {local}>",
        "xflat": f"memref<4x{c.word}, {local}>",
        "vec": f"vector<{s.chunk}x{s.dtype}>",
        "wvec": f"vector<4x{c.word}>",
        "OUT": f"memref<{4 * s.block}x{c.word}, #regcopy.mem<global>>",
        "region": "".join(", 0" for _ in s.r_shape[1:]),
        "sizes": ", ".join(map(str, s.r_shape)),
        "words": str(words),
    }


HEAD = """func.func @k(%out: {OUT}, %n: index)
    attributes {{regcopy.launch = #regcopy.launch<block = {block}, grid = [1]>}} {{
  %S = memref.alloca() : {S}
  %R = memref.alloca() : {R}
  %F = memref.alloca() : {F}
  %X = memref.alloca() : {X}
  %Rs = regcopy.storage %R : {R} -> {flat}
  %Fs = regcopy.storage %F : {F} -> {fflat}
  %Xs = regcopy.storage %X : {X} -> {xflat}
  %tid = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %cchunk = arith.constant {chunk} : index
  %crounds = arith.constant {rounds} : index
  %cwords = arith.constant {words} : index
  %ctile = arith.constant {tile0} : index
  %ck = arith.constant {k} : index
  %zw = {zero_word}
  scf.for %e = %c0 to %ck step %c1 {{
    %te = arith.addi %tid, %e : index
    %tv = arith.index_cast %te : index to {dtype}
    memref.store %tv, %Rs[%e] : {flat}
  }}
  scf.for %e = %c0 to %cwords step %c1 {{
    memref.store %zw, %Fs[%e] : {fflat}
  }}
  scf.for %it = %c0 to %n step %c1 {{
{choice}{body}  }}
{fold}  %ot = arith.muli %tid, %c4 : index
  vector.store %y, %out[%ot] : {OUT}, {wvec}
  func.return
}}
"""
"""The kernel around a loop body: R starts as ``tid + e``; ``{choice}`` picks the iteration's
tiles (``_choice``); at the end the carried registers are folded into 16 bytes a thread of
output."""


def _words(t: dict[str, str], v: str, w: str) -> tuple[str, str]:
    """(IR viewing the chunk ``%v`` as words, the words' name): a ``vector.bitcast`` unless
    the chunk already is words."""
    if t["vec"] == t["wvec"]:
        return "", v
    return f"      %{w} = vector.bitcast %{v} : {t['vec']} to {t['wvec']}\n", w


def _chunk_loop(t: dict[str, str], tag: str, body: str) -> str:
    """``scf.for`` over R's 16-byte chunks: ``%v{tag}`` a chunk, ``%e{tag}``/``%o{tag}`` its
    element and word offsets, ``body`` (a format string of ``w``, the chunk's words) after."""
    cast, w = _words(t, f"v{tag}", f"w{tag}")
    return (f"    scf.for %f{tag} = %c0 to %crounds step %c1 {{\n"
            f"      %e{tag} = arith.muli %f{tag}, %cchunk : index\n"
            f"      %o{tag} = arith.muli %f{tag}, %c4 : index\n"
            f"      %v{tag} = vector.load %Rs[%e{tag}] : {t['flat']}, {t['vec']}\n"
            f"{cast}{body.format(w=w, tag=tag)}    }}\n")


def _tiles(n: int) -> str:
    """IR of ``%row{u} = (u ^ p) * rows`` for ``u < n``, written ``u * rows + p * rows`` for
    even ``u`` and ``u * rows - p * rows`` for odd ``u`` (the same, as ``p`` is 0 or 1): two
    bases an iteration, and every copy's addresses one of them plus a constant that ptxas
    folds into the access (``[R+imm]``)."""
    out = ["    %pt = arith.muli %p, %ctile : index\n",
           "    %npt = arith.subi %c0, %pt : index\n"]
    for u in range(n):
        out.append(f"    %cu{u} = arith.constant {u} : index\n"
                   f"    %ut{u} = arith.muli %cu{u}, %ctile : index\n"
                   f"    %row{u} = arith.addi %ut{u}, {'%npt' if u % 2 else '%pt'} : index\n")
    return "".join(out)


def _copy(s: Shape, t: dict[str, str], row: str, into_registers: bool) -> str:
    region = f"%S[%{row}{t['region']}] [{t['sizes']}]"
    if into_registers:
        return f"    regcopy.copy {s.scope} {region} -> %R : {t['S']} -> {t['R']}\n"
    return f"    regcopy.copy {s.scope} %R -> {region} : {t['R']} -> {t['S']}\n"


def _body(s: Shape, kind: str, t: dict[str, str], c: Consumer) -> str:
    """The loop body: round trip ``S[p] -> R -> S[1-p]`` and a barrier; load only: each copy
    ``S[u^p] -> R`` then every word of R folded into its own accumulator word (no chain
    across words); store only: ``it`` folded into every word of R, then ``R -> S[u^p]``."""
    n = copies(s, kind)
    if kind == "round trip":
        pairs = [_copy(s, t, f"row{2 * u}", True) + _copy(s, t, f"row{2 * u + 1}", False)
                 for u in range(n)]
        return _tiles(2 * n) + "".join(pairs) + '    "gpu.barrier"() : () -> ()\n'
    out = [_tiles(n)]
    if kind == "load only":
        fold = (f"      %a{{tag}} = vector.load %Fs[%o{{tag}}] : {t['fflat']}, {t['wvec']}\n"
                f"      %b{{tag}} = {c.op} %a{{tag}}, %{{w}} : {t['wvec']}\n"
                f"      vector.store %b{{tag}}, %Fs[%o{{tag}}] : {t['fflat']}, {t['wvec']}\n")
        for u in range(n):
            out.append(_copy(s, t, f"row{u}", True) + _chunk_loop(t, str(u), fold))
        return "".join(out)
    for u in range(n):
        out.append(_producer(t, c, n, u))
        out.append(_chunk_loop(t, str(u), _back(t, c)) + _copy(s, t, f"row{u}", False))
    return "".join(out)


def _producer(t: dict[str, str], c: Consumer, n: int, u: int) -> str:
    """IR of ``%x{u}``: the word made of ``it * n + u`` in all 4 lanes (a distinct value a
    copy: the same ``x`` XORed in twice would cancel and let the compiler merge copies)."""
    word = f"%iti{u}"
    text = (f"    %cn{u} = arith.constant {n} : index\n"
            f"    %itn{u} = arith.muli %it, %cn{u} : index\n"
            f"    %itu{u} = arith.addi %itn{u}, %cu{u} : index\n"
            f"    %iti{u} = arith.index_cast %itu{u} : index to i32\n")
    if c.word == "f32":
        word = f"%itf{u}"
        text += f"    %itf{u} = arith.sitofp %iti{u} : i32 to f32\n"
    return (text + f"    scf.for %q{u} = %c0 to %c4 step %c1 {{\n"
            f"      memref.store {word}, %Xs[%q{u}] : {t['xflat']}\n    }}\n"
            f"    %x{u} = vector.load %Xs[%c0] : {t['xflat']}, {t['wvec']}\n")


def _back(t: dict[str, str], c: Consumer) -> str:
    """Chunk-loop body of the store-only loop: ``R chunk = R chunk op x``."""
    back = f"      %b{{tag}} = {c.op} %{{w}}, %x{{tag}} : {t['wvec']}\n"
    if t["vec"] != t["wvec"]:
        back += f"      %r{{tag}} = vector.bitcast %b{{tag}} : {t['wvec']} to {t['vec']}\n"
        store = "r"
    else:
        store = "b"
    return back + (f"      vector.store %{store}{{tag}}, %Rs[%e{{tag}}] : {t['flat']}, "
                   f"{t['vec']}\n")


def _fold(kind: str, t: dict[str, str], c: Consumer) -> str:
    """``%y``: what the loop computed, folded word-wise: the accumulators of the load-only loop,
    R of the store-only loop. The round trip's loads all feed its stores, so it folds the
    (zero) accumulators: keeping R live across its iterations only for the fold made ptxas
    spill two registers in the unrolled loops of the ldmatrix/stmatrix round trips."""
    head = (f"  scf.for %q = %c0 to %c4 step %c1 {{\n"
            f"    memref.store %zw, %Xs[%q] : {t['xflat']}\n  }}\n")
    if kind != "store only":
        words = (f"      %w = vector.load %Fs[%o] : {t['fflat']}, {t['wvec']}\n", "w")
        loop = (f"  scf.for %f = %c0 to %crounds step %c1 {{\n"
                f"      %o = arith.muli %f, %c4 : index\n{words[0]}")
    else:
        cast, w = _words(t, "v", "w")
        loop = (f"  scf.for %f = %c0 to %crounds step %c1 {{\n"
                f"      %e = arith.muli %f, %cchunk : index\n"
                f"      %v = vector.load %Rs[%e] : {t['flat']}, {t['vec']}\n{cast}")
        words = ("", w)
    return (head + loop
            + f"      %ya = vector.load %Xs[%c0] : {t['xflat']}, {t['wvec']}\n"
            + f"      %yb = {c.op} %ya, %{words[1]} : {t['wvec']}\n"
            + f"      vector.store %yb, %Xs[%c0] : {t['xflat']}, {t['wvec']}\n  }}\n"
            + f"  %y = vector.load %Xs[%c0] : {t['xflat']}, {t['wvec']}\n")


def _choice(kind: str, t: dict[str, str], dtype: str) -> str:
    """IR of ``%p``, which tiles an iteration uses: ``it & 1`` for the round trip (its barrier
    already keeps every access in the loop), else ``(R[0] + it) & 1`` (R[0] loaded or computed
    by the previous iteration: no access is loop-invariant, no store provably overwritten)."""
    if kind == "round trip":
        return "    %p = arith.andi %it, %c1 : index\n"
    return (f"    %m0 = memref.load %Rs[%c0] : {t['flat']}\n"
            f"    %m0i = arith.index_cast %m0 : {dtype} to index\n"
            "    %mix = arith.addi %m0i, %it : index\n"
            "    %p = arith.andi %mix, %c1 : index\n")


def kernel_ir(s: Shape, kind: str, consumer: str = "fadd") -> str:
    c = CONSUMERS[consumer]
    t = _types(s, kind, c)
    zero = "arith.constant 0.0 : f32" if c.word == "f32" else "arith.constant 0 : i32"
    return HEAD.format(block=s.block, dtype=s.dtype, tile0=s.r_shape[0], k=s.row,
                       choice=_choice(kind, t, s.dtype),
                       chunk=s.chunk, rounds=s.rounds,
                       zero_word=zero, body=_body(s, kind, t, c), fold=_fold(kind, t, c), **t)


def lowered_source(s: Shape, kind: str, rotation: str, transfer: str = "auto",
                   consumer: str = "fadd", select_weight: float = SELECT_WEIGHT,
                   fma_swap_share: float = FMA_SWAP_SHARE) -> str:
    ctx = regcopy_context()
    module = Parser(ctx, kernel_ir(s, kind, consumer), "bench_shared.mlir").parse_module()
    LowerRegCopyPass(bank_rotation=rotation, transfer=transfer,
                     select_weight=select_weight,
                     fma_swap_share=fma_swap_share).apply(ctx, module)
    module.verify()
    return print_cuda(module)


HAND = """
typedef unsigned int uint32_t;
typedef unsigned short uint16_t;
__device__ __forceinline__ unsigned op(unsigned a, unsigned b) {{ return {c_word}; }}
__device__ __forceinline__ uint4 op4(uint4 a, uint4 b) {{
  return {{op(a.x, b.x), op(a.y, b.y), op(a.z, b.z), op(a.w, b.w)}};
}}
// the plain pattern by hand: thread t of the CTA owns row t ({row_bytes} bytes), uint4 rounds
extern "C" __global__ void __launch_bounds__({block}) k(uint4* __restrict__ out, int n) {{
  __shared__ alignas(128) {ct} S[{slots} * {elems}];
  alignas(16) {ct} R[{row}];
  uint4 acc[{rounds}];
  const int t = threadIdx.x;
  #pragma unroll
  for (int e = 0; e < {row}; ++e) R[e] = ({ct})(t + e);
  #pragma unroll
  for (int f = 0; f < {rounds}; ++f) acc[f] = make_uint4(0, 0, 0, 0);
  uint4* r = reinterpret_cast<uint4*>(R);
  for (int it = 0; it < n; ++it) {{
    const int p = {choice};
{body}
  }}
  uint4 y = make_uint4(0, 0, 0, 0);
  #pragma unroll
  for (int f = 0; f < {rounds}; ++f) y = op4(y, {state}[f]);
  out[t] = y;
}}
"""

HAND_BODIES = {
    "round trip": """\
    #pragma unroll
    for (int u = 0; u < {copies}; ++u) {{
      uint4* tile = reinterpret_cast<uint4*>(&S[(2 * u + p) * {elems} + t * {row}]);
      uint4* other = reinterpret_cast<uint4*>(&S[(2 * u + 1 - p) * {elems} + t * {row}]);
      #pragma unroll
      for (int f = 0; f < {rounds}; ++f) r[f] = tile[f];
      #pragma unroll
      for (int f = 0; f < {rounds}; ++f) other[f] = r[f];
    }}
    __syncthreads();""",
    "load only": """\
    #pragma unroll
    for (int u = 0; u < {copies}; ++u) {{
      const uint4* tile = reinterpret_cast<const uint4*>(&S[(u + ((u & 1) ? -p : p)) * {elems} + t * {row}]);
      #pragma unroll
      for (int f = 0; f < {rounds}; ++f) r[f] = tile[f];
      #pragma unroll
      for (int f = 0; f < {rounds}; ++f) acc[f] = op4(acc[f], r[f]);
    }}""",
    "store only": """\
    #pragma unroll
    for (int u = 0; u < {copies}; ++u) {{
      const unsigned w = {c_it};
      const uint4 x = make_uint4(w, w, w, w);
      uint4* tile = reinterpret_cast<uint4*>(&S[(u + ((u & 1) ? -p : p)) * {elems} + t * {row}]);
      #pragma unroll
      for (int f = 0; f < {rounds}; ++f) r[f] = op4(r[f], x);
      #pragma unroll
      for (int f = 0; f < {rounds}; ++f) tile[f] = r[f];
    }}""",
}
"""The same loops by hand, with the plain pattern (thread t moves its row)."""


def hand_source(s: Shape, kind: str, consumer: str = "fadd") -> str | None:
    if s.swizzle or s.regs is not None:
        return None
    c = CONSUMERS[consumer]
    ct = {4: "int", 2: "short"}[s.elem_bytes]
    fields = dict(ct=ct, row=s.row, rounds=s.rounds, row_bytes=s.row * s.elem_bytes,
                  block=s.block, elems=s.block * s.row, slots=slots(s, kind),
                  copies=copies(s, kind), c_it=c.c_it.format(copies=copies(s, kind)),
                  state="r" if kind == "store only" else "acc",
                  choice="it & 1" if kind == "round trip" else "((int)R[0] + it) & 1")
    return HAND.format(body=HAND_BODIES[kind].format(**fields),
                       c_word=c.c_word.format(a="a", b="b"), **fields)


@dataclass(frozen=True)
class Variant:
    shape: Shape
    kind: str
    label: str
    source: str


KINDS = ("round trip", "load only", "store only")


def transfers(s: Shape, kind: str) -> int:
    """Tile transfers an iteration makes (the bytes it moves over ``s.tile_bytes``)."""
    return 2 * copies(s, kind) if kind == "round trip" else copies(s, kind)


def variants(weights: Sequence[float] = (), consumer: str = "fadd",
             shares: Sequence[float] = (), only: Sequence[str] = ()) -> list[Variant]:
    """Hand-written, rotation off and auto for every layout and kernel (of the layouts whose
    name contains one of ``only``, if given), and for each of ``weights``, ``auto`` with that
    select weight, and for each of ``shares``, ``auto`` with that share of multiply-add
    swaps, where it changes the kernel."""
    out: list[Variant] = []
    for s in SHAPES:
        if only and not any(o in s.name for o in only):
            continue
        for kind in KINDS:
            if s.regs is not None:  # a fragment: the transfer kinds side by side
                for transfer in ("vector", "auto", "matrix"):
                    out.append(Variant(s, kind, f"regcopy transfer={transfer}",
                                       lowered_source(s, kind, "auto", transfer, consumer)))
                continue
            hand = hand_source(s, kind, consumer)
            if hand is not None:
                out.append(Variant(s, kind, "hand-written plain", hand))
            out.append(Variant(s, kind, "regcopy rotation=off",
                               lowered_source(s, kind, "off", consumer=consumer)))
            auto = lowered_source(s, kind, "auto", consumer=consumer)
            out.append(Variant(s, kind, "regcopy rotation=auto", auto))
            for w in weights:
                other = lowered_source(s, kind, "auto", consumer=consumer, select_weight=w)
                if other != auto:
                    out.append(Variant(s, kind, f"auto, select weight {w:g}", other))
            for f in shares:
                other = lowered_source(s, kind, "auto", consumer=consumer, fma_swap_share=f)
                if other != auto:
                    out.append(Variant(s, kind, f"auto, fma share {f:g}", other))
    return out


# ---- layouts the compiler chooses: #regcopy.layout<auto> against hand-chosen and plain -------

MMA_BT = "(8,2,4,2,4,8):(1@warpid,2,1@laneid,1,4,4@laneid)"
"""Per warp, the m16n8k16 B ("col") fragments of a 16 x 32 slice of a K x N tile (k =
``2(lane%4) + p + 8h``, n = ``8 ni + lane/4``): ``ldmatrix.trans`` territory."""

AUTO_CASES = (
    (Shape("32-bit k=8 (seed)", "(8,32,8):(1@warpid,1@laneid,1)", (8, 32, 8), "i32", 256,
           "cta"), "swizzle<2,1,3>"),
    (Shape("32-bit k=32 rows", "(4,32,32):(1@warpid,1@laneid,1)", (4, 32, 32), "i32", 128,
           "cta"), "swizzle<2,3,3>"),
    (Shape("16-bit mma A, K=64", MMA_A64, (128, 64), "i16", 256, "cta", regs=32),
     "swizzle<3,3,3>"),
    (Shape("16-bit mma B K x N .trans", MMA_BT, (128, 32), "i16", 256, "cta", regs=16),
     "swizzle<3,2,3>"),
)
"""The ``auto`` cases, each with the swizzle a user would pick by hand: the seed f32 k=8 round
trip, the 32 x 32 f32 transpose's row side (rows 128 bytes apart), the GEMM A tile's ldmatrix
fragments (64-column f16 rows), a K x N B tile's ldmatrix.trans fragments (32-column rows)."""


def _s_layout_source(s: Shape, kind: str, layout: str, transfer: str, consumer: str) -> str:
    """``lowered_source`` with S's layout replaced: ``auto`` or a swizzle over the
    row-major tiles (``plain``: none)."""
    c = CONSUMERS[consumer]
    t = _types(s, kind, c)
    rows, cols = slots(s, kind) * s.r_shape[0], s.r_shape[1:]
    if layout == "auto":
        lay = "#regcopy.layout<auto>, "
    elif layout == "plain":
        lay = ""
    else:
        dims = (rows, *cols)
        strides = [1] * len(dims)
        for k in range(len(dims) - 2, -1, -1):
            strides[k] = strides[k + 1] * dims[k + 1]
        lay = (f"#regcopy.layout<({','.join(map(str, dims))}):({','.join(map(str, strides))}),"
               f" {layout}>, ")
    new_s = t["S"].replace("x" + s.dtype + ", ", "x" + s.dtype + ", " + lay, 1) \
        if "#regcopy.layout" not in t["S"] else t["S"]
    ir = kernel_ir(s, kind, consumer).replace(t["S"], new_s)
    ctx = regcopy_context()
    module = Parser(ctx, ir, "bench_shared.mlir").parse_module()
    LowerRegCopyPass(transfer=transfer).apply(ctx, module)
    module.verify()
    return print_cuda(module)


def auto_variants(consumer: str = "fadd") -> list[Variant]:
    """For each ``AUTO_CASES`` layout and kernel (both directions): S plain, S with the
    hand-chosen swizzle, S ``#regcopy.layout<auto>`` (``transfer=auto``, lane rotation on)."""
    out: list[Variant] = []
    for s, hand in AUTO_CASES:
        for kind in KINDS:
            for layout in ("plain", hand, "auto"):
                out.append(Variant(s, kind, f"S {layout}",
                                   _s_layout_source(s, kind, layout, "auto", consumer)))
    return out


def shared_peak(props: Any) -> float:
    """Bytes a second through shared memory at the peak: 128 a clock on every SM of a device
    with these ``properties``."""
    return 128.0 * props.multiprocessor_count * props.clock_rate * 1e3


def fraction_of_peak(s: Shape, kind: str, ms: float, ctas: int, iters: int,
                     peak: float) -> float:
    """A ``kind`` kernel of ``s``'s fraction of ``peak``: the tile bytes its ``ctas`` CTAs
    move in ``iters`` iterations (``transfers`` a one), over ``ms`` milliseconds."""
    return ctas * iters * transfers(s, kind) * s.tile_bytes / (ms * 1e-3) / peak


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
    imad = sum(1 for o in sass.get("loop_ops", ()) if o.split(".")[0] == "IMAD")
    loop = f"{n:4}/{acc:<3} {lop3:4} {imad:4} {sel:3}"
    est, binding = sass.get("estimate", (0.0, "-"))
    return (f"| {v.shape.name:25} | {v.kind:10} | {v.label:24} | {share} | {text:31} | "
            f"{loop:27} | {est:4.2f} {binding:8} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ctas-per-sm", type=int, default=4)
    ap.add_argument("--iters", type=int, default=4096)
    ap.add_argument("--sass-only", action="store_true")
    ap.add_argument("--select-weight", type=float, action="append", default=[],
                    help="also time bank-rotation=auto with this select cost (in wavefronts; "
                    "default: the pass's select-weight option, 0.25) where it picks another rotation")
    ap.add_argument("--fma-swap-share", type=float, action="append", default=[],
                    help="also time bank-rotation=auto with this share of the rotation's swaps "
                    "as multiply-adds (default: the pass's fma-swap-share option, 1/3; 0: all "
                    "selects) where it changes the kernel")
    ap.add_argument("--only", action="append", default=[],
                    help="time only the layouts whose name contains this text (repeatable), "
                    "e.g. --only k=16 --only 8-way")
    ap.add_argument("--consumer", choices=sorted(CONSUMERS), default="fadd",
                    help="what the single-direction loops do to each 32-bit word: fadd (FMA "
                    "pipe, default) or xor (the integer pipe the rotation blends share)")
    ap.add_argument("--auto", action="store_true",
                    help="time the #regcopy.layout<auto> cases (AUTO_CASES) against the "
                    "hand-chosen swizzle and the plain layout instead")
    args = ap.parse_args()
    vs = (auto_variants(args.consumer) if args.auto
          else variants(args.select_weight, args.consumer, args.fma_swap_share, args.only))
    run: Callable[[Variant], float | None] = lambda v: None  # noqa: E731
    peak = 0.0
    header = "SASS only (no GPU timing)"
    if not args.sass_only:
        try:
            from regcopy_backend.runtime.runner import cuda_core, get_device

            core, dev = cuda_core(), get_device()
        except Exception as e:  # noqa: BLE001 - no GPU: say so, exit 2
            print(f"bench_shared: no GPU ({e}); use --sass-only", file=sys.stderr)
            return 2
        props = dev.properties
        sms, khz = props.multiprocessor_count, props.clock_rate
        peak = shared_peak(props)
        stream = dev.create_stream()
        out = dev.allocate(4096, stream=stream)
        ctas = sms * args.ctas_per_sm
        header = (f"{dev.name}: {sms} SMs at {khz / 1e3:.0f} MHz, shared peak "
                  f"{peak / 1e12:.2f} TB/s (128 B/clock/SM); {ctas} CTAs x {args.iters} "
                  f"iterations; consumer {args.consumer}")

        def run(v: Variant) -> float | None:
            ms = time_kernel(core, dev, stream, v.source, ctas, args.iters, v.shape.block, out)
            return fraction_of_peak(v.shape, v.kind, ms, ctas, args.iters, peak)

    print(header)
    print("SASS: the whole kernel (instructions, LDS, STS, LDL+STL, BRA) and its main loop "
          "(instructions / 128-bit shared accesses, LOP3, IMAD, SEL); est: the loop's issue-slot "
          "and pipe bound on the fraction of peak (sass_loops.pipe_estimate) and what binds it")
    print(f"| {'layout':25} | {'kernel':10} | {'variant':24} | {'of peak':>7} | "
          f"{'kernel: all LDS STS LDL/STL BRA':31} | {'loop: all/acc LOP3 IMAD SEL':27} | "
          f"{'est':13} |")
    print(f"|{'-' * 27}|{'-' * 12}|{'-' * 26}|{'-' * 9}|{'-' * 33}|{'-' * 29}|{'-' * 15}|",
          flush=True)
    results: list[tuple[Variant, float | None]] = []
    for v in vs:
        results.append((v, run(v)))
        print(table_row(v, sass_summary(v.source), results[-1][1]), flush=True)
    for line in target_lines(results):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
