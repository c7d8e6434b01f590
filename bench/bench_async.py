#!/usr/bin/env python3
"""Benchmark: a pipelined global -> shared streaming kernel, with cp.async and with the
register-staged copy, against a read-only baseline of the same bytes, same run, same GPU.

    python -m regcopy_bench.bench_async [--tiles-per-cta 64] [--ctas 1056] [--iters 10]
                                        [--sass-only]

Each CTA (128 threads) streams ``tiles-per-cta`` tiles of 64 x 64 f32 (16 KiB) through a
3-stage ring in dynamic shared memory (48 KiB): tile ``i`` of CTA ``b`` is rows
``64 (b + i * ctas)`` of a ``[64 * tiles, 64]`` f32 array. Iteration ``i`` waits for tile
``i``, meets the CTA at a barrier, starts tile ``i + 2`` into the slot of tile ``i - 1``, and
consumes tile ``i`` from shared memory: each thread adds its 32 floats (8 float4 reads) into a
float4 accumulator, and writes the accumulator once at the end (so nothing is elided).

Variants, each lowered by ``lower-reg-copy`` and printed by ``-t cuda``:

* ``cp.async``: ``regcopy.copy_async`` + ``async_group`` + ``async_wait {pending = 1}``
  (16-byte ``cp.async.cg``, SASS ``LDGSTS.E.BYPASS.128``);
* ``register-staged``: ``regcopy.copy`` global -> registers, then registers -> shared;
* ``TMA``: the cp.async kernel lowered with ``transfer=tma``: one thread of the CTA issues each
  16 KiB tile as one bulk tensor copy (SASS ``UTMALDG.2D``) on a 2-slot mbarrier ring; the
  runner's tensor map of ``A`` is passed by value (``runtime.tensor_map``).

Baselines: a hand-written read-only kernel (each thread sums the same bytes with float4
loads, no shared memory) and ``cudaMemcpy`` device -> device, whose read rate is its bytes
over its time (half of its read + write traffic). Ratios are read bandwidth over each
baseline's. Targets: cp.async >= 0.85x, TMA >= 0.90x. ``--sass-only`` prints the kernels' SASS summary
(LDGSTS present, main loop not elided) without a GPU.
"""

from __future__ import annotations

import argparse
import ctypes
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
from regcopy_backend.cuda.kernel_info import kernel_info, kernels
from regcopy_backend.cuda.printer import print_cuda
from regcopy_bench.sass_loops import main_loop, sass_ops
from regcopy_passes.lower_reg_copy import LowerRegCopyPass
from xdsl.parser import Parser

from regcopy_dialect.context import regcopy_context

THREADS = 128
TILE_ROWS, TILE_COLS = 64, 64
G = "memref<{rows}x64xf32, #regcopy.mem<global>>"
S = "memref<3x64x64xf32, #regcopy.mem<shared.dyn>>"
R = ("memref<64x64xf32, #regcopy.layout<(8,8,16,4):(4,16@tx,1@tx,1)>, #regcopy.mem<local>>")

ASYNC_START = """
      %ta{n} = regcopy.copy_async cta %A[%row{n}, 0] [64, 64] -> %S[%slot{n}, 0, 0] [1, 64, 64] : {G} -> {S}
      %g{n} = regcopy.async_group %ta{n}"""

KERNEL = """
func.func @stream(%A: {G}, %O: memref<{out}xf32, #regcopy.mem<global>>, %cT: index)
    attributes {{regcopy.launch = #regcopy.launch<block = 128, grid = [{ctas}]>}} {{
  %S = memref.alloca() : {S}
  %ACC = memref.alloca() : memref<4xf32, #regcopy.layout<4:1>, #regcopy.mem<local>>
{extra_alloca}
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c512 = arith.constant 512 : index
  %c4096 = arith.constant 4096 : index
  %cstride = arith.constant {row_stride} : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  %tid = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %bx = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %acc = regcopy.storage %ACC : memref<4xf32, #regcopy.layout<4:1>, #regcopy.mem<local>> -> memref<4xf32, #regcopy.mem<local>>
  %sv = regcopy.storage %S : {S} -> memref<12288xf32, #regcopy.mem<shared.dyn>>
  vector.store %zero, %acc[%c0] : memref<4xf32, #regcopy.mem<local>>, vector<4xf32>
  %row0 = arith.muli %bx, %c64 : index
  %row1 = arith.addi %row0, %cstride : index
  %slot0 = arith.constant 0 : index
  %slot1 = arith.constant 1 : index
{prologue}
  {loop}
  %gid = "gpu.global_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %o = arith.muli %gid, %c4 : index
  %res = vector.load %acc[%c0] : memref<4xf32, #regcopy.mem<local>>, vector<4xf32>
  vector.store %res, %O[%o] : memref<{out}xf32, #regcopy.mem<global>>, vector<4xf32>
  func.return
}}
"""

CONSUME = """
    %base = arith.muli %slot, %c4096 : index
    %mine = arith.muli %tid, %c4 : index
    %first = arith.addi %base, %mine : index
    scf.for %j = %c0 to %c8 step %c1 {{
      %jo = arith.muli %j, %c512 : index
      %off = arith.addi %first, %jo : index
      %v = vector.load %sv[%off] : memref<12288xf32, #regcopy.mem<shared.dyn>>, vector<4xf32>
      %a = vector.load %acc[%c0] : memref<4xf32, #regcopy.mem<local>>, vector<4xf32>
      %s = arith.addf %a, %v : vector<4xf32>
      vector.store %s, %acc[%c0] : memref<4xf32, #regcopy.mem<local>>, vector<4xf32>
    }}"""

ASYNC_LOOP = """%done:2 = scf.for %i = %c0 to %cT step %c1 iter_args(%gi = %g0, %gi1 = %g1) -> (!regcopy.token, !regcopy.token) {{
    %slot = arith.remui %i, %c3 : index
    regcopy.async_wait %gi {{pending = 1 : i64}}
    "gpu.barrier"() : () -> ()
    %i2 = arith.addi %i, %c2 : index
    %more = arith.cmpi ult, %i2, %cT : index
    %gn = scf.if %more -> (!regcopy.token) {{
      %slot2 = arith.remui %i2, %c3 : index
      %r2 = arith.muli %i2, %cstride : index
      %row2 = arith.addi %row0, %r2 : index
      %t = regcopy.copy_async cta %A[%row2, 0] [64, 64] -> %S[%slot2, 0, 0] [1, 64, 64] : {G} -> {S}
      %g = regcopy.async_group %t
      scf.yield %g : !regcopy.token
    }} else {{
      %g = regcopy.async_group
      scf.yield %g : !regcopy.token
    }}{consume}
    scf.yield %gi1, %gn : !regcopy.token, !regcopy.token
  }}"""

REGISTER_PROLOGUE = """
  regcopy.copy cta %A[%row0, 0] [64, 64] -> %R : {G} -> {R}
  regcopy.copy cta %R -> %S[0, 0, 0] [1, 64, 64] : {R} -> {S}
  regcopy.copy cta %A[%row1, 0] [64, 64] -> %R : {G} -> {R}
  regcopy.copy cta %R -> %S[1, 0, 0] [1, 64, 64] : {R} -> {S}"""

REGISTER_LOOP = """scf.for %i = %c0 to %cT step %c1 {{
    %slot = arith.remui %i, %c3 : index
    "gpu.barrier"() : () -> ()
    %i2 = arith.addi %i, %c2 : index
    %more = arith.cmpi ult, %i2, %cT : index
    scf.if %more {{
      %slot2 = arith.remui %i2, %c3 : index
      %r2 = arith.muli %i2, %cstride : index
      %row2 = arith.addi %row0, %r2 : index
      regcopy.copy cta %A[%row2, 0] [64, 64] -> %R : {G} -> {R}
      regcopy.copy cta %R -> %S[%slot2, 0, 0] [1, 64, 64] : {R} -> {S}
    }}{consume}
  }}"""

HAND = """
extern "C" __global__ void __launch_bounds__(128) read_only(const float* __restrict__ A,
                                                            float* __restrict__ O, int tiles,
                                                            int ctas) {
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int i = 0; i < tiles; ++i) {
    const long long tile = (long long)(blockIdx.x + (long long)i * ctas) * 4096;
    #pragma unroll
    for (int j = 0; j < 8; ++j) {
      const float4 v = *reinterpret_cast<const float4*>(&A[tile + j * 512 + threadIdx.x * 4]);
      acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
    }
  }
  reinterpret_cast<float4*>(O)[blockIdx.x * 128 + threadIdx.x] = acc;
}
"""

TMA_VARIANT: Callable[[int, int], str] | None = lambda tiles, ctas: kernel_text(  # noqa: E731
    "cp.async", tiles, ctas)
"""``(tiles, ctas) -> kernel text`` of the ``transfer=tma`` row (lowered with transfer=tma)."""
TRANSFER = {"TMA": "tma"}
"""The ``lower-reg-copy`` transfer of a variant (``auto`` when not listed)."""


def kernel_text(variant: str, tiles: int, ctas: int) -> str:
    """The streaming kernel's IR: ``variant`` ``cp.async`` or ``register``."""
    rows = TILE_ROWS * tiles * ctas
    g = G.format(rows=rows)
    fmt = {"G": g, "S": S, "R": R}
    consume = CONSUME.format()
    if variant == "cp.async":
        prologue = "".join(ASYNC_START.format(n=n, **fmt) for n in (0, 1))
        loop = ASYNC_LOOP.format(consume=consume, **fmt)
        extra = ""
    else:
        prologue = REGISTER_PROLOGUE.format(**fmt)
        loop = REGISTER_LOOP.format(consume=consume, **fmt)
        extra = f"  %R = memref.alloca() : {R}"
    return KERNEL.format(G=g, S=S, out=ctas * THREADS * 4, ctas=ctas,
                         row_stride=TILE_ROWS * ctas, prologue=prologue, loop=loop,
                         extra_alloca=extra)


def lowered(text: str, transfer: str = "auto") -> tuple[str, Any]:
    """The CUDA source and KernelInfo of a kernel lowered by ``lower-reg-copy``."""
    ctx = regcopy_context()
    module = Parser(ctx, text, "bench_async.mlir").parse_module()
    LowerRegCopyPass(strict=True, transfer=transfer).apply(ctx, module)
    module.verify()
    return print_cuda(module), kernel_info(kernels(module)[0])


def variants(tiles: int, ctas: int) -> list[tuple[str, str]]:
    """``(label, IR)`` of each regcopy variant, TMA included when it exists."""
    out = [("cp.async", kernel_text("cp.async", tiles, ctas)),
           ("register-staged", kernel_text("register", tiles, ctas))]
    if TMA_VARIANT is not None:
        out.append(("TMA", TMA_VARIANT(tiles, ctas)))
    return out


def sass_report(tiles: int, ctas: int) -> list[str]:
    """One line per kernel: its LDGSTS (cp.async) and LDG instructions in SASS, and its main
    loop (a kernel whose loop was elided has none)."""
    from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble

    lines = []
    sources = [(label, lowered(text, TRANSFER.get(label, "auto"))[0])
               for label, text in variants(tiles, ctas)]
    for label, source in [*sources, ("read-only (hand)", HAND)]:
        try:
            sass = disassemble(compile_cuda(source).cubin)
        except Exception as e:  # noqa: BLE001 - no NVRTC/nvdisasm here
            lines.append(f"{label:16} SASS unavailable: {e}")
            continue
        ops = [o for _, o, _ in sass_ops(sass) if o != ":"]
        loop = main_loop(sass_ops(sass)) or main_loop(sass_ops(sass), rank=len)
        ldgsts = sum(1 for o in ops if o.startswith("LDGSTS"))
        widths = sorted({o for o in ops if o.startswith("LDGSTS")})
        tma = sum(1 for o in ops if o.startswith("UTMALDG"))
        lines.append(f"{label:16} SASS: {len(ops)} instructions, {ldgsts} LDGSTS "
                     f"{'/'.join(widths) or ''}, {sum(o.startswith('LDG.') for o in ops)} LDG"
                     f"{f', {tma} UTMALDG' if tma else ''}; "
                     f"main loop {len(loop)} instructions "
                     f"({sum(o.startswith('LDGSTS') for o in loop)} LDGSTS, "
                     f"{sum(o.startswith('LDS') for o in loop)} LDS)")
    return lines


def expected_sums(a: np.ndarray, tiles: int, ctas: int) -> np.ndarray:
    """What every variant writes: per CTA b and thread t, float4 lane k sums over the CTA's
    tiles i and the thread's 8 reads j of element ``j * 512 + 4 t + k`` of the tile."""
    t4 = a.reshape(tiles, ctas, 8, THREADS, 4)  # [i, b, j, t, k]
    return t4.sum(axis=(0, 2), dtype=np.float32).reshape(-1)


def run(tiles: int, ctas: int, iters: int) -> list[tuple[str, float, bool]]:
    """``(label, ms per launch, output bit-exact)`` of every variant and baseline."""
    from regcopy_backend.runtime.runner import (
        compile_kernel,
        cuda_core,
        get_device,
        set_dynamic_shared_memory,
        tensor_maps,
    )
    from regcopy_backend.runtime.tensor_map import launch_raw
    from regcopy_bench.bench_copy import time_launches

    core, dev = cuda_core(), get_device()
    stream = dev.create_stream()
    n = TILE_ROWS * TILE_COLS * tiles * ctas
    rng = np.random.default_rng(0)
    host = rng.integers(-8, 8, size=n).astype(np.float32)  # small integers: sums are exact
    want = expected_sums(host, tiles, ctas)
    src = _upload(core, dev, stream, host)
    dst = dev.allocate(ctas * THREADS * 16, stream=stream)
    out_host = np.empty(ctas * THREADS * 4, np.float32)
    results: list[tuple[str, float, bool]] = []

    def check() -> bool:
        _download(core, stream, dst, out_host)
        ok = bool(np.array_equal(out_host, want))
        _upload(core, dev, stream, np.zeros_like(out_host), dst)  # the next variant starts clean
        return ok

    for label, text in variants(tiles, ctas):
        source, info = lowered(text, TRANSFER.get(label, "auto"))
        kernel = compile_kernel(dev, source, info.symbol)
        if info.dynamic_shared_bytes:
            set_dynamic_shared_memory(dev, kernel, info.dynamic_shared_bytes)
        config = core.LaunchConfig(grid=(ctas, 1, 1), block=(THREADS, 1, 1),
                                   shmem_size=info.dynamic_shared_bytes)
        args = [int(src.handle), int(dst.handle), np.int32(tiles)]
        if info.tensor_maps:  # TMA: the maps go by value, through cuLaunchKernel
            maps = tensor_maps(info, [host.reshape(-1, TILE_COLS), None, tiles],
                               [int(src.handle), int(dst.handle)])
            ms = time_launches(stream, lambda k=kernel, a=args + maps, i=info: launch_raw(
                k, stream, (ctas, 1, 1), THREADS, i.dynamic_shared_bytes, a), iters)
        else:
            ms = time_launches(stream, lambda k=kernel, c=config, a=args: core.launch(
                stream, c, k, *a), iters)
        results.append((label, ms, check()))
    hand = compile_kernel(dev, HAND, "read_only")
    config = core.LaunchConfig(grid=(ctas, 1, 1), block=(THREADS, 1, 1))
    ms = time_launches(stream, lambda: core.launch(
        stream, config, hand, int(src.handle), int(dst.handle), np.int32(tiles),
        np.int32(ctas)), iters)
    results.append(("read-only (hand-written)", ms, check()))
    copy = dev.allocate(host.nbytes, stream=stream)
    ms = time_launches(stream, lambda: src.copy_to(copy, stream=stream), iters)
    results.append(("cudaMemcpy d2d (read rate)", ms, True))
    for b in (src, dst, copy):
        b.close(stream)
    return results


def _upload(core: Any, dev: Any, stream: Any, host: np.ndarray, buf: Any = None) -> Any:
    """``host`` copied into ``buf`` (a new device buffer when None), through pinned memory."""
    pinned = core.LegacyPinnedMemoryResource().allocate(host.nbytes)
    ctypes.memmove(int(pinned.handle), host.ctypes.data, host.nbytes)
    buf = dev.allocate(host.nbytes, stream=stream) if buf is None else buf
    buf.copy_from(pinned, stream=stream)
    stream.sync()
    pinned.close()
    return buf


def _download(core: Any, stream: Any, buf: Any, out: np.ndarray) -> None:
    """The first ``out.nbytes`` bytes of ``buf`` into ``out``, through pinned memory."""
    pinned = core.LegacyPinnedMemoryResource().allocate(out.nbytes)
    buf.copy_to(pinned, stream=stream)
    stream.sync()
    ctypes.memmove(out.ctypes.data, int(pinned.handle), out.nbytes)
    pinned.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tiles-per-cta", type=int, default=64)
    ap.add_argument("--ctas", type=int, default=1056, help="CTAs (default 8 per SM of 132)")
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--sass-only", action="store_true")
    args = ap.parse_args()
    if args.sass_only:
        print("\n".join(sass_report(args.tiles_per_cta, args.ctas)))
        return 0
    from regcopy_backend.runtime.runner import NoGpuError

    try:
        results = run(args.tiles_per_cta, args.ctas, args.iters)
    except NoGpuError as e:
        print(f"bench_async: {e}", file=sys.stderr)
        return 2
    nbytes = TILE_ROWS * TILE_COLS * 4 * args.tiles_per_cta * args.ctas
    times = {label: ms for label, ms, _ in results}
    hand, memcpy = times["read-only (hand-written)"], times["cudaMemcpy d2d (read rate)"]
    print(f"global -> shared streaming, {args.ctas} CTAs x {args.tiles_per_cta} tiles of "
          f"64 x 64 f32 ({nbytes / 2**30:.2f} GiB read per launch), {args.iters} launches each")
    print(f"| {'variant':28} | {'ms/launch':>9} | {'read GB/s':>9} | {'vs read-only':>12} | "
          f"{'vs memcpy':>9} | exact |")
    print(f"|{'-' * 30}|{'-' * 11}|{'-' * 11}|{'-' * 14}|{'-' * 11}|-------|")
    for label, ms, ok in results:
        print(f"| {label:28} | {ms:9.3f} | {nbytes / ms / 1e6:9.0f} | {hand / ms:11.2f}x | "
              f"{memcpy / ms:8.2f}x | {'yes' if ok else 'NO':5} |")
    print("\n".join(sass_report(args.tiles_per_cta, args.ctas)))
    return 0 if all(ok for _, _, ok in results) else 1


if __name__ == "__main__":
    sys.exit(main())
