"""Benchmark: one tile-copy kernel with runtime extents over every N of a range, as a ratio to
the aligned N, same run, same GPU.

    python -m regcopy_bench.bench_ragged [--iters K] [--rounds R] [--pair-iters K] [--mib M]
                                         [--wide NS] [--narrow NS] [--rows NS] [--fitted NS]
                                         [--bf16 NS] [--i8 NS] [--misaligned-stores FORM]
                                         [--no-peer] [--rows-on-x] [--sass]

A CTA-scope global -> registers -> global tile copy of an M x N f32 buffer
(``memref<?x?xf32>``: M and N are kernel parameters) is lowered by ``lower-reg-copy`` (bounds-
checked: one predicate per vector, versioned on N % 4: 128-bit vectors when it is 0, else 32-bit
loads and the stores in the form the pass's cost model picks: 128-bit stores realigned at run
time, 32-bit ones under a predicate each, or 32-bit ones in lane order staged through shared
memory) and compiled ONCE; it is then launched
for every N in 4000..4160 (tile 8 x 1024, 256 threads), in 1..256 (tiles 64 x 64 and
32 x 256), in 1..63 on the tile fitted to N (``--fitted``), and for bf16 and int8 rows
(``--bf16``, ``--i8``), beside the same copy in Triton where it is installed
(``ragged_peer``: every output of both checked bit for bit before timing), with M
chosen so that each launch moves at least ``--mib`` MiB (default 256, read + written: several waves
of CTAs), and timed with CUDA events.
The table gives each N's bandwidth as a ratio to the nearest aligned N (N % 4 == 0) of the same
run; the summary gives the fraction of N at >= 0.95x, the misaligned N by band of 32
(``band_summary``), and, on aligned N, the versioned kernel
(no divisibility promise) against the promised one (``{regcopy.divisibility = array<i64: 1,
4>}``: only the 128-bit path is compiled), each timed over ``--pair-iters`` launches (default
50: over 10, single N of the 64 x 64 tile came out 2-3% apart one run and within 1% the next).

``--sass`` (no GPU needed) prints the SASS memory instructions of the benchmark kernels and
checks that they hold ``LDG.E.128``/``STG.E.128`` for every row of the tile, and no local
memory (exit 1 otherwise). Exit status 2 without a GPU.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from regcopy_backend.cuda.kernel_info import KernelInfo, kernel_info, kernels
from regcopy_backend.cuda.printer import print_cuda
from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
from regcopy_backend.runtime.runner import (
    NoGpuError,
    cuda_core,
    extent_values,
    get_device,
)
from regcopy_backend.runtime.variants import KernelVariants
from regcopy_bench.bench_copy import time_launches
from regcopy_bench.ragged_tables import (
    Row,
    band_summary,
    issue_table,
    parse_ns,
    print_pair,
    print_sweep,
    versioned_summary,
)
from regcopy_passes.lower_reg_copy import LowerRegCopyPass
from regcopy_tools.run_report import sass_memory_ops
from xdsl.parser import Parser

from regcopy_dialect.context import regcopy_context

__all__ = ["band_summary", "main", "print_sweep", "versioned_summary"]
G = "memref<?x?xf32, #regcopy.mem<global>>"
PROMISE = " {regcopy.divisibility = array<i64: 1, 4>}"


@dataclass(frozen=True)
class Tile:
    """A CTA's tile: ``rows`` x ``cols`` f32 over 256 threads, its register layout, and the
    order of the tiles on the grid. ``columns_first``: a 1-D grid, CTA ``b`` takes column tile
    ``b % ceil(N / cols)`` of row tile ``b / ceil(N / cols)``, so that the CTAs of one row band,
    which share a 16-byte chunk at each tile edge when the rows are misaligned, run side by
    side; else ``blockIdx.x`` is the row tile and ``blockIdx.y`` the column tile."""

    rows: int
    cols: int
    layout: str
    columns_first: bool = True
    dtype: str = "f32"
    """The element type (f32, or bf16 / i8 for the narrow-element rows)."""

    @property
    def bytes(self) -> int:
        """Bytes of an element."""
        return {"f32": 4, "bf16": 2, "i8": 1}[self.dtype]

    @property
    def vec(self) -> int:
        """Elements of a 16-byte vector: an aligned N is a multiple of it."""
        return 16 // self.bytes

    def grid(self, m: int, n: int) -> tuple[int, int, int]:
        """The launch grid of an M x N copy."""
        tiles = (m // self.rows, -(-n // self.cols))
        return (tiles[0] * tiles[1], 1, 1) if self.columns_first else (*tiles, 1)


WIDE = Tile(8, 1024, "(8,256,4):(4,1@tx,1)")
"""8 rows of 1024: a warp moves 512 contiguous bytes of a row per vector."""
NARROW = Tile(64, 64, "(4,16,2,8,4):(4,8@tx,128@tx,1@tx,1)")
"""64 x 64, for N of 1..256: the columns in two halves of 32, warps 0-3 on the left one,
4-7 on the right, each warp 4 rows of its half a round (8 threads a row, 4 f32 each; thread
``t`` holds rows ``16 i + (t / 8) mod 16``, columns ``32 (t / 128) + 4 (t mod 8) ..``), as
Triton lays out the same tile (``warpsPerCTA = [4, 2]``). Below 32 columns whole warps own
nothing and skip; with ``NARROW_ROWS`` there half of every warp instruction's lanes did, and
the copy stayed under Triton's (0.90-0.93x at N = 21..31) where this layout runs at
1.02-1.15x (``lab/ragged/narrow_layout_ab.py``, 2026-12-04). It gives back 1-3% at N = 33..63,
where the right half's warps hold the few columns past 32."""
NARROW_ROWS = Tile(64, 64, "(4,16,16,4):(4,16@tx,1@tx,1)")
"""The 64 x 64 tile's earlier layout: 16 threads a row, a warp on 2 whole rows of 64, 16 rows
a round (the short-row threshold's tests use it: a warp holds whole rows of the tile)."""
ROWS = Tile(32, 256, "(8,4,64,4):(4,64@tx,1@tx,1)")
"""32 x 256: two warps per row, 4 rows per round, for N of 1..256: one CTA holds whole rows,
so only the chunks at its first and last row's ends are shared with other CTAs."""

FITTED = (Tile(1024, 4, "(4,256,4):(4,1@tx,1)"),
          Tile(512, 8, "(4,128,2,4):(4,2@tx,1@tx,1)"),
          Tile(256, 16, "(4,64,4,4):(4,4@tx,1@tx,1)"),
          Tile(128, 32, "(4,32,8,4):(4,8@tx,1@tx,1)"),
          NARROW)
"""Tiles fitted to N (256 threads, 16 registers a thread, 4 rounds, each thread 4 contiguous
f32 of a row, a warp on at most 32 columns: 1024 x 4 .. 128 x 32 whole rows, 64 x 64 halves
of rows): the narrowest whose columns hold N."""


BF16_ROWS = Tile(8, 2048, "(8,256,8):(8,1@tx,1)", dtype="bf16")
"""8 bf16 rows of 2048: each thread 8 contiguous elements (16 bytes) of a row, a warp along
one row (the row-wise kernel's pattern), for odd N such as 1001."""
I8_ROWS = Tile(8, 4096, "(8,256,16):(16,1@tx,1)", dtype="i8")
"""8 int8 rows of 4096: each thread 16 contiguous elements of a row, for odd N such as 8193."""


def fitted(n: int) -> Tile:
    """The fitted tile of N (``FITTED``): the first whose columns hold N, else 64 x 64."""
    return next((t for t in FITTED if n <= t.cols), NARROW)


KERNEL = """
func.func @ragged(%X: {g}{promise}, %Y: {g}{promise})
    attributes {{regcopy.launch = #regcopy.launch<block = 256, grid = [1, 1]>}} {{
  %R = memref.alloca() : {r}
  %cr = arith.constant {rows} : index
  %cc = arith.constant {cols} : index
{tiles}  %row = arith.muli %rt, %cr : index
  %col = arith.muli %ct, %cc : index
  regcopy.copy cta %X[%row, %col] [{rows}, {cols}] -> %R : {g} -> {r}
  regcopy.copy cta %R -> %Y[%row, %col] [{rows}, {cols}] : {r} -> {g}
  func.return
}}
"""

COLUMNS_FIRST = """  %b = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %c1 = arith.constant 1 : index
  %n = memref.dim %X, %c1 : {g}
  %nct = arith.ceildivui %n, %cc : index
  %rt = arith.divui %b, %nct : index
  %ct = arith.remui %b, %nct : index
"""
"""Row tile ``%rt`` and column tile ``%ct`` of a 1-D grid, columns first."""
ROWS_ON_X = """  %rt = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %ct = "gpu.block_id"() <{{dimension = #gpu<dim y>}}> : () -> index
"""
"""Row tile on ``blockIdx.x``, column tile on ``blockIdx.y``."""


def kernel_text(tile: Tile, promised: bool) -> str:
    r = (f"memref<{tile.rows}x{tile.cols}xf32, #regcopy.layout<{tile.layout}>, "
         "#regcopy.mem<local>>")
    g = G.replace("xf32", f"x{tile.dtype}")
    r = r.replace("xf32", f"x{tile.dtype}")
    tiles = (COLUMNS_FIRST if tile.columns_first else ROWS_ON_X).format(g=g)
    promise = PROMISE.replace(" 4>", f" {tile.vec}>")
    return KERNEL.format(g=g, r=r, rows=tile.rows, cols=tile.cols, tiles=tiles,
                         promise=promise if promised else "")


def lowered(tile: Tile, promised: bool) -> tuple[str, KernelInfo]:
    """The CUDA source and launch facts of the benchmark kernel."""
    return lower_text(kernel_text(tile, promised))


INDEX = ["auto"]
"""The index width of the launches (``--index``): ``auto``, the runner's choice per launch
(32-bit where every offset fits), or ``64``, the 64-bit compile always."""

MISALIGNED_STORES = ["auto"]
"""The pass's ``misaligned-stores`` option for the benchmark kernels (``--misaligned-stores``)."""


def lower_text(text: str) -> tuple[str, KernelInfo]:
    """The CUDA source and launch facts of a one-kernel module's text, lowered."""
    ctx = regcopy_context()
    module = Parser(ctx, text, "bench_ragged.mlir").parse_module()
    LowerRegCopyPass(misaligned_stores=MISALIGNED_STORES[0]).apply(ctx, module)
    module.verify()
    return print_cuda(module), kernel_info(kernels(module)[0])


MIN_MIB = 256
"""Default MiB a launch moves (read + written): several waves of CTAs, so that the ratio is
that of the sustained copy, not of one wave's start and tail."""


PAIR_ITERS = 50
"""Default launches per timing of the versioned against the promised kernel: their difference
is what is judged (within 2%), so it gets more launches than the sweep."""


def rows_for(n: int, tile: Tile, min_bytes: int = MIN_MIB << 20) -> int:
    """Rows M (a multiple of the tile's) such that an M x n launch moves >= ``min_bytes``."""
    m = -(-min_bytes // (2 * tile.bytes * n))
    return -(-m // tile.rows) * tile.rows


def aligned_of(n: int, vec: int = 4) -> int:
    """The nearest N with N % vec == 0 (the lower one on a tie), at least ``vec``."""
    return max(vec, min((n - n % vec, n - n % vec + vec), key=lambda a: (abs(a - n), a)))


# ---- SASS ------------------------------------------------------------------------------------


def sass_report(tile: Tile) -> tuple[list[str], bool]:
    """One line per kernel (versioned, promised) with its SASS memory instructions, and
    whether both hold >= one 128-bit load and store per vector of the tile and no LDL/STL."""
    per_thread = tile.rows * tile.cols // (256 * tile.vec)
    lines, ok = [], True
    for promised in (False, True):
        source, _ = lowered(tile, promised)
        ops = sass_memory_ops(disassemble(compile_cuda(source).cubin))
        loads = sum(c for op, c in ops.items() if op.startswith("LDG.E.128"))
        stores = sum(c for op, c in ops.items() if op.startswith("STG.E.128"))
        local = sum(c for op, c in ops.items() if op.startswith(("LDL", "STL")))
        good = loads >= per_thread and stores >= per_thread and local == 0
        ok &= good
        listed = " ".join(f"{op}*{c}" for op, c in sorted(ops.items()))
        lines.append(f"{tile.rows}x{tile.cols} {'promised ' if promised else 'versioned'}: "
                     f"{listed} ({'ok' if good else 'MISSING 128-bit transfers or spills'}; "
                     f"{per_thread} vectors per thread)")
    return lines, ok


# ---- timing ----------------------------------------------------------------------------------


@dataclass
class Bench:
    """Device buffers big enough for every launch, and the compiled kernels."""

    core: Any
    dev: Any
    stream: Any
    x: Any
    y: Any
    kernels: dict[tuple[Tile, bool], tuple[Any, KernelInfo]]
    min_bytes: int = MIN_MIB << 20

    def rows(self, tile: Tile, n: int) -> int:
        """Rows M of the M x n launch (``rows_for`` at this bench's ``min_bytes``)."""
        return rows_for(n, tile, self.min_bytes)

    def launcher(self, tile: Tile, promised: bool, m: int, n: int) -> Callable[[], None]:
        """A call that launches the M x N copy once on the bench's stream (not waiting)."""
        variants, info = self.kernels[(tile, promised)]
        kernel = variants.for_launch([(m, n), (m, n)], self.grid(tile, promised, m, n)) \
            if INDEX[0] == "auto" else variants.kernel(False)
        x_dims = extent_values(info, info.buffers[0], (m, n))
        y_dims = extent_values(info, info.buffers[1], (m, n))
        args = [int(self.x.handle), *x_dims, int(self.y.handle), *y_dims]
        config = self.core.LaunchConfig(grid=self.grid(tile, promised, m, n),
                                        block=(256, 1, 1))
        return lambda: self.core.launch(self.stream, config, kernel, *args)

    def grid(self, tile: Tile, promised: bool, m: int, n: int) -> tuple[int, int, int]:
        """The launch grid of the M x N copy: one CTA a tile (``Tile.grid``)."""
        return tile.grid(m, n)

    def launch(self, tile: Tile, promised: bool, m: int, n: int, iters: int) -> float:
        """Milliseconds per launch of the M x N copy."""
        return time_launches(self.stream, self.launcher(tile, promised, m, n), iters)


@dataclass(frozen=True)
class Pointer:
    """A device buffer known by its address (the peer's torch buffers, shared)."""

    handle: int


def setup(tiles: Sequence[Tile], max_bytes: int, min_bytes: int = MIN_MIB << 20,
          peer: Any = None) -> Bench:
    """The kernels of ``tiles`` compiled, and X, Y (the ``peer``'s buffers where it is)."""
    core, dev = cuda_core(), get_device()
    stream = dev.create_stream()
    compiled = {}
    for tile in tiles:
        for promised in (False, True):
            source, info = lowered(tile, promised)
            compiled[(tile, promised)] = (KernelVariants(dev, source, info), info)
    if peer is not None:
        x, y = Pointer(peer.x.data_ptr()), Pointer(peer.y.data_ptr())
    else:
        x, y = dev.allocate(max_bytes, stream=stream), dev.allocate(max_bytes, stream=stream)
    return Bench(core, dev, stream, x, y, compiled, min_bytes)


def sweep(bench: Bench, tile: Tile, ns: Sequence[int], iters: int) -> list[Row]:
    """``(N, M, GB/s, ratio to the aligned N)`` for every N (versioned kernel, no peer)."""
    return sweep_with_peer(bench, tile, ns, iters)[0]


def median(values: Sequence[float]) -> float:
    """The median (the mean of the middle two for an even count)."""
    v = sorted(values)
    return (v[len(v) // 2] + v[(len(v) - 1) // 2]) / 2


def sweep_with_peer(bench: Bench, tile: Tile, ns: Sequence[int], iters: int, peer: Any = None,
                    rounds: int = 1) -> tuple[list[Row], list[Row], list[int]]:
    """``(regcopy's rows, the peer's rows, the N whose output was not bit-exact)`` for every
    N (regcopy's versioned kernel; the peer's rows empty without a peer). With a peer, each
    N's output of both systems is checked bit for bit on the device before it is timed. Each
    N is timed ``rounds`` times, the two systems alternating (the peer first), each round
    ``iters`` launches; a row's GB/s is the median round's."""
    bw: dict[int, float] = {}
    peer_bw: dict[int, float] = {}
    rows: dict[int, int] = {}
    wrong: list[int] = []
    for n in sorted(set(ns) | {aligned_of(n, tile.vec) for n in ns}):
        m = bench.rows(tile, n)
        rows[n] = m
        ours = bench.launcher(tile, False, m, n)
        if peer is not None:
            theirs = peer.launcher(tile.rows, tile.cols, m, n, tile.dtype)
            nbytes = m * n * tile.bytes
            if not peer.exact(ours, nbytes, bench.stream.sync) or \
                    not peer.exact(theirs, nbytes, lambda: None):
                wrong.append(n)
        times: tuple[list[float], list[float]] = ([], [])
        for _ in range(rounds):
            if peer is not None:
                times[1].append(peer.time(theirs, iters))
            times[0].append(bench.launch(tile, False, m, n, iters))
        gbs = 2 * tile.bytes * m * n / 1e6
        bw[n] = gbs / median(times[0])
        if peer is not None:
            peer_bw[n] = gbs / median(times[1])

    def table(b: dict[int, float]) -> list[Row]:
        return [(n, rows[n], b[n], b[n] / b[aligned_of(n, tile.vec)]) for n in ns] if b else []

    return table(bw), table(peer_bw), wrong


def versioned_and_promised(bench: Bench, tile: Tile, m: int, n: int, iters: int
                           ) -> tuple[float, float]:
    """Milliseconds per launch of the versioned and the promised kernel, each the mean of two
    runs in the order versioned, promised, promised, versioned (neither always goes first)."""
    v1, p1, p2, v2 = (bench.launch(tile, promised, m, n, iters)
                      for promised in (False, True, True, False))
    return (v1 + v2) / 2, (p1 + p2) / 2


def check_copy(bench: Bench, tile: Tile, m: int, n: int) -> bool:
    """One launch on random data: Y == X bit for bit (the bounds hold at the edge)."""
    import ctypes

    host = np.random.default_rng(n).integers(0, 256, m * n * tile.bytes, dtype=np.uint8)
    pinned = bench.core.LegacyPinnedMemoryResource()
    staging = pinned.allocate(host.nbytes)
    ctypes.memmove(int(staging.handle), host.ctypes.data, host.nbytes)
    bench.x.copy_from(staging, stream=bench.stream) if host.nbytes == bench.x.size else \
        _copy_prefix(bench, staging, host.nbytes)
    bench.launch(tile, False, m, n, 1)
    ctypes.memset(int(staging.handle), 0, host.nbytes)
    _copy_prefix(bench, staging, host.nbytes, to_host=True)
    out = np.empty_like(host)
    ctypes.memmove(out.ctypes.data, int(staging.handle), host.nbytes)
    staging.close()
    return bool(np.array_equal(out, host))


def _copy_prefix(bench: Bench, staging: Any, nbytes: int, to_host: bool = False) -> None:
    """Copy ``nbytes`` between the pinned ``staging`` and the start of X (or from Y)."""
    from cuda.bindings import driver

    if to_host:
        (err,) = driver.cuMemcpyDtoH(int(staging.handle), int(bench.y.handle), nbytes)
    else:
        (err,) = driver.cuMemcpyHtoD(int(bench.x.handle), int(staging.handle), nbytes)
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"copy failed: {err.name}")
    bench.stream.sync()


def main(argv: Sequence[str] | None = None) -> int:
    from regcopy_bench import ragged_peer

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("--iters", type=int, default=10, help="timed launches per N (default 10)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="rounds of --iters launches per N, regcopy's and the peer's "
                         "alternating; each row the median round's (default 1)")
    ap.add_argument("--pair-iters", type=int, default=PAIR_ITERS,
                    help="timed launches of each of the versioned and promised kernels per "
                         f"aligned N (default {PAIR_ITERS}; 0: skip that comparison)")
    ap.add_argument("--wide", default="4000:4161", help="N of the 8x1024 tile (a:b,c,...)")
    ap.add_argument("--narrow", default="1:257", help="N of the 64x64 tile (a:b,c,...)")
    ap.add_argument("--rows", default="1:257", help="N of the 32x256 tile (a:b,c,...)")
    ap.add_argument("--fitted", default="1:64",
                    help="N run on the tile fitted to N (1024x4, 512x8, 256x16, 128x32, "
                         "64x64: the first whose columns hold N; a:b,c,...)")
    ap.add_argument("--bf16", default="1000:1011",
                    help="N of the bf16 8x2048 tile (odd rows of 16-bit elements; a:b,c,...)")
    ap.add_argument("--i8", default="8192:8201",
                    help="N of the int8 8x4096 tile (odd rows of 8-bit elements; a:b,c,...)")
    ap.add_argument("--no-peer", action="store_true", help="no Triton column")
    ap.add_argument("--misaligned-stores", default="auto",
                    choices=("auto", "realigned", "predicated", "shuffled", "staged"),
                    help="the pass option: the form of misaligned stores (default: the cost "
                         "model's; staged: loads too)")
    ap.add_argument("--index", default="auto", choices=("auto", "64"),
                    help="index math of the kernels: auto (32-bit where the launch's offsets "
                         "fit, the runner's choice; default) or 64 (always 64-bit)")
    ap.add_argument("--sass", action="store_true", help="SASS check only (no GPU)")
    ap.add_argument("--mib", type=int, default=MIN_MIB,
                    help=f"MiB a launch moves, read + written (default {MIN_MIB})")
    ap.add_argument("--rows-on-x", action="store_true",
                    help="row tile on blockIdx.x, column tile on blockIdx.y (default: a 1-D "
                         "grid, columns first)")
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.iters < 1:
        ap.error("--rounds and --iters must be at least 1")
    MISALIGNED_STORES[0] = args.misaligned_stores
    INDEX[0] = args.index
    wide, narrow, rows = (replace(t, columns_first=not args.rows_on_x)
                          for t in (WIDE, NARROW, ROWS))
    if args.sass:
        ok = True
        for tile in (wide, narrow, rows, *FITTED[:-1], BF16_ROWS, I8_ROWS):
            lines, good = sass_report(tile)
            print("\n".join(lines))
            ok &= good
        return 0 if ok else 1
    by_tile: dict[Tile, list[int]] = {}
    for n in parse_ns(args.fitted):
        by_tile.setdefault(fitted(n), []).append(n)
    ranges = [(t, ns) for t, ns in ((wide, parse_ns(args.wide)), (narrow, parse_ns(args.narrow)),
                                    (rows, parse_ns(args.rows)),
                                    (BF16_ROWS, parse_ns(args.bf16)),
                                    (I8_ROWS, parse_ns(args.i8)),
                                    *((replace(t, columns_first=not args.rows_on_x), ns)
                                      for t, ns in by_tile.items())) if ns]
    min_bytes = args.mib << 20
    max_bytes = max(t.bytes * rows_for(n, t, min_bytes) * n for t, ns in ranges for n in
                    (*ns, *(aligned_of(n, t.vec) for n in ns))) + 4096
    peer = None
    if not args.no_peer and ragged_peer.peer() is not None:
        peer = ragged_peer.Peer(max_bytes)
    else:
        print(f"bench_ragged: {'no Triton column: --no-peer' if args.no_peer else ragged_peer.MISSING[0]}")
    try:
        bench = setup(list(dict.fromkeys(t for t, _ in ranges)), max_bytes, min_bytes, peer)
    except NoGpuError as e:
        print(f"bench_ragged: {e}", file=sys.stderr)
        return 2
    status = 0
    results: dict[tuple[Tile, int], tuple[Row, Row | None]] = {}
    for tile, ns in ranges:
        ours, theirs, wrong = sweep_with_peer(bench, tile, ns, args.iters, peer, args.rounds)
        each = f"{args.iters} launches each" if args.rounds == 1 else \
            f"the median of {args.rounds} rounds of {args.iters} launches, alternating with the peer"
        print_pair(f"tile {tile.rows} x {tile.cols} {tile.dtype}, one kernel for every N "
                   f"(>= {args.mib} MiB moved per launch, {each}, "
                   f"{'1-D grid, columns first' if tile.columns_first else 'row tile on x'})",
                   ours, theirs, tile.vec)
        for i, row in enumerate(ours):
            results[(tile, row[0])] = (row, theirs[i] if theirs else None)
        if wrong:
            print(f"MISMATCH: not bit-exact at N = {', '.join(map(str, wrong))}")
            status = 1
        aligned = [n for n in ns if n % 4 == 0] if args.pair_iters else []
        ratios = {}
        for n in aligned:
            m = bench.rows(tile, n)
            versioned, promised = versioned_and_promised(bench, tile, m, n, args.pair_iters)
            ratios[n] = versioned / promised
        if ratios:
            print(versioned_summary(ratios))
        if peer is None:
            for n in (ns[0], ns[len(ns) // 2], ns[-1]):
                m = bench.rows(tile, n)
                if not check_copy(bench, tile, m, n):
                    print(f"MISMATCH: the {m} x {n} copy is not bit-exact")
                    status = 1
    print(issue_table({(f"{t.rows}x{t.cols}", n): v for (t, n), v in results.items()},
                      ragged_peer.MISSING[0] if ragged_peer.MISSING else ""))
    if peer is None:
        for b in (bench.x, bench.y):
            b.close(bench.stream)
    return status


if __name__ == "__main__":
    sys.exit(main())
