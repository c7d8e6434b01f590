#!/usr/bin/env python3
"""Benchmark: regcopy's lowered tile copies against hand-written CUDA, same run, same GPU.

    python -m regcopy_bench.bench_copy [--rows N] [--iters K]

A CTA-scope global -> register -> global tile copy (``examples/cta_tile.mlir``'s shape:
each block moves 8 rows of 1024 f32 through registers, layout ``(8,256,4):(4,1@tx,1)``) is
lowered by ``lower-reg-copy`` and printed by ``-t cuda``; it runs beside

* the same copy lowered with ``max-vector-bits=32`` (one element per transfer),
* a hand-written CUDA kernel doing the identical partition with ``float4`` loads and stores,
* a device-to-device ``cudaMemcpy`` (the bandwidth ceiling),

and a table prints time per launch and bandwidth (bytes read + written), with the ratio to the
hand-written kernel. A second part moves a buffer of more than 2^31 i8 elements through the
same kind of tile copy (the size at which 32-bit offsets overflow) and checks every byte.

Needs a GPU with cuda-core/cuda-bindings and numpy, and regcopy installed (``pip install -e .``:
this module is ``regcopy_bench.bench_copy``). Exit status 2 without a GPU.
"""

from __future__ import annotations

import argparse
import ctypes
import sys
from typing import Any

import numpy as np
from regcopy_backend.cuda.kernel_info import kernel_info, kernels
from regcopy_backend.cuda.printer import print_cuda
from regcopy_backend.runtime.runner import (
    NoGpuError,
    check_alignment,
    compile_kernel,
    cuda_core,
    get_device,
)
from regcopy_passes.lower_reg_copy import LowerRegCopyPass
from xdsl.parser import Parser

from regcopy_dialect.context import regcopy_context

TILE = """
func.func @tile(%B: memref<{rows}x{cols}x{t}, #regcopy.mem<global>>, %C: memref<{rows}x{cols}x{t}, #regcopy.mem<global>>)
    attributes {{regcopy.launch = #regcopy.launch<block = 256, grid = [{grid}]>}} {{
  %R = memref.alloca() : memref<8x{cols}x{t}, #regcopy.layout<(8,256,{v}):({v},1@tx,1)>, #regcopy.mem<local>>
  %bx = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %c8 = arith.constant 8 : index
  %row = arith.muli %bx, %c8 : index
  regcopy.copy cta %B[%row, 0] [8, {cols}] -> %R : memref<{rows}x{cols}x{t}, #regcopy.mem<global>> -> memref<8x{cols}x{t}, #regcopy.layout<(8,256,{v}):({v},1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %R -> %C[%row, 0] [8, {cols}] : memref<8x{cols}x{t}, #regcopy.layout<(8,256,{v}):({v},1@tx,1)>, #regcopy.mem<local>> -> memref<{rows}x{cols}x{t}, #regcopy.mem<global>>
  func.return
}}
"""

HAND = """
extern "C" __global__ void __launch_bounds__(256) hand(const float* __restrict__ B, float* __restrict__ C) {
  float4 r[8];
  const long long base = (long long)blockIdx.x * 8 * 1024 + threadIdx.x * 4;
  #pragma unroll
  for (int i = 0; i < 8; ++i) r[i] = *reinterpret_cast<const float4*>(&B[base + i * 1024]);
  #pragma unroll
  for (int i = 0; i < 8; ++i) *reinterpret_cast<float4*>(&C[base + i * 1024]) = r[i];
}
"""


def lowered_cuda(text: str, max_vector_bits: int = 128) -> tuple[str, Any]:
    """Parse, lower and print one kernel; return the CUDA source and its KernelInfo."""
    ctx = regcopy_context()
    module = Parser(ctx, text, "bench.mlir").parse_module()
    LowerRegCopyPass(max_vector_bits=max_vector_bits).apply(ctx, module)
    module.verify()
    return print_cuda(module), kernel_info(kernels(module)[0])


def time_launches(stream: Any, launch: Any, iters: int) -> float:
    """Milliseconds per call of ``launch()``, by CUDA events, after two warm-up calls."""
    for _ in range(2):
        launch()
    timed = cuda_core().EventOptions(timing_enabled=True)
    start = stream.record(options=timed)
    for _ in range(iters):
        launch()
    end = stream.record(options=timed)
    end.sync()
    return (end - start) / iters


def bandwidth_table(rows: int, iters: int) -> list[tuple[str, float]]:
    core, dev = cuda_core(), get_device()
    stream = dev.create_stream()
    nbytes = rows * 1024 * 4
    src, dst = dev.allocate(nbytes, stream=stream), dev.allocate(nbytes, stream=stream)
    config = core.LaunchConfig(grid=(rows // 8, 1, 1), block=(256, 1, 1))
    text = TILE.format(rows=rows, cols=1024, t="f32", v=4, grid=rows // 8)
    results: list[tuple[str, float]] = []
    for label, bits in (("regcopy (128-bit)", 128), ("regcopy (max-vector-bits=32)", 32)):
        source, info = lowered_cuda(text, bits)
        kernel = compile_kernel(dev, source, info.symbol)
        ptrs = [int(src.handle), int(dst.handle)]
        check_alignment(info.name, info.params, ptrs)
        results.append((label, time_launches(
            stream, lambda k=kernel, p=ptrs: core.launch(stream, config, k, *p), iters)))
    hand = compile_kernel(dev, HAND, "hand")
    results.append(("hand-written CUDA (float4)", time_launches(
        stream, lambda: core.launch(stream, config, hand, int(src.handle), int(dst.handle)),
        iters)))
    results.append(("cudaMemcpy device-to-device", time_launches(
        stream, lambda: src.copy_to(dst, stream=stream), iters)))
    src.close(stream)
    dst.close(stream)
    return results


def check_large(seed: int = 0) -> tuple[int, bool, str]:
    """Copy a [rows, 4096] i8 buffer of more than 2^31 elements through registers."""
    rows = (1 << 31) // 4096 + 8
    text = TILE.format(rows=rows, cols=4096, t="i8", v=16, grid=rows // 8)
    source, info = lowered_cuda(text)
    core, dev = cuda_core(), get_device()
    stream = dev.create_stream()
    host = np.random.default_rng(seed).integers(-128, 128, size=rows * 4096, dtype=np.int8)
    pinned = core.LegacyPinnedMemoryResource()
    staging = pinned.allocate(host.nbytes)
    ctypes.memmove(int(staging.handle), host.ctypes.data, host.nbytes)
    src, dst = dev.allocate(host.nbytes, stream=stream), dev.allocate(host.nbytes, stream=stream)
    src.copy_from(staging, stream=stream)
    kernel = compile_kernel(dev, source, info.symbol)
    core.launch(stream, core.LaunchConfig(grid=(rows // 8, 1, 1), block=(256, 1, 1)), kernel,
                int(src.handle), int(dst.handle))
    ctypes.memset(int(staging.handle), 0, host.nbytes)
    dst.copy_to(staging, stream=stream)
    stream.sync()
    out = np.empty_like(host)
    ctypes.memmove(out.ctypes.data, int(staging.handle), host.nbytes)
    ok = bool(np.array_equal(out, host))
    for b in (src, dst):
        b.close(stream)
    staging.close()
    return rows * 4096, ok, "long long" if "long long" in source else "int"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=1 << 18, help="rows of 1024 f32 (default 2^18)")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--skip-large", action="store_true")
    args = ap.parse_args()
    try:
        results = bandwidth_table(args.rows, args.iters)
    except NoGpuError as e:
        print(f"bench_copy: {e}", file=sys.stderr)
        return 2
    moved = 2 * args.rows * 1024 * 4
    hand_ms = dict(results)["hand-written CUDA (float4)"]
    print(f"tile copy global -> registers -> global, {args.rows} x 1024 f32 "
          f"({moved / 2**30:.2f} GiB moved per launch), {args.iters} launches each")
    print(f"| {'variant':30} | {'ms/launch':>9} | {'GB/s':>7} | {'vs hand-written':>15} |")
    print(f"|{'-' * 32}|{'-' * 11}|{'-' * 9}|{'-' * 17}|")
    for label, ms in results:
        print(f"| {label:30} | {ms:9.3f} | {moved / ms / 1e6:7.0f} | {hand_ms / ms:14.2f}x |")
    if not args.skip_large:
        n, ok, itype = check_large()
        print(f"\n> 2^31 elements: i8 buffer of {n} elements ({n - 2**31} past 2^31), index type "
              f"'{itype}': {'every byte correct' if ok else 'MISMATCH'}")
        if not ok:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
