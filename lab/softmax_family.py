#!/usr/bin/env python3
"""Writes examples/softmax.mlir's row-in-registers kernels (the family by row length).

    python3 lab/softmax_family.py > /tmp/family.mlir

Each kernel holds a whole row in registers: T threads a row, 32 bf16 elements a thread (four
128-bit pieces of 8), so the row may have up to 32 T elements. T = 32 is a warp (4 rows a
CTA of 128 threads); T = 128, 256, 512 is a CTA a row, its warps' partial maxima and sums
combined through shared memory.
"""

from __future__ import annotations

import sys

G = "memref<?x?xbf16, #regcopy.mem<global>>"


def kernel(name: str, threads: int) -> str:
    warp = threads == 32
    tile = 32 * threads
    axis = "laneid" if warp else "tx"
    lay = f"#regcopy.layout<(4,{threads},8):(8,1@{axis},1)>"
    rt = f"memref<{tile}xbf16, {lay}, #regcopy.mem<local>>"
    block = 128 if warp else threads
    scope = "warp" if warp else "cta"
    nw = threads // 32
    lines = [
        f"func.func @{name}(%X: {G},",
        f"{' ' * (len(name) + 11)}%Y: {G})",
        f"    attributes {{regcopy.launch = #regcopy.launch<block = {block}, grid = [2]>}} {{",
        f"  %R = memref.alloca() : {rt}",
        f"  %r = regcopy.storage %R : {rt} -> memref<32xbf16, #regcopy.mem<local>>",
        "  %E = memref.alloca() : memref<32xf32, #regcopy.mem<local>>",
    ]
    if not warp:
        lines += [
            f"  %SM = memref.alloca() : memref<{nw}xf32, #regcopy.mem<shared>>",
            f"  %SS = memref.alloca() : memref<{nw}xf32, #regcopy.mem<shared>>",
        ]
    lines += [
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        "  %c5 = arith.constant 5 : index",
        "  %c32 = arith.constant 32 : index",
        "  %i1 = arith.constant 1 : i32",
        "  %i16 = arith.constant 16 : i32",
        "  %width = arith.constant 32 : i32",
        "  %ninf = arith.constant 0xFF800000 : f32",
        "  %zero = arith.constant 0.0 : f32",
        "  %one = arith.constant 1.0 : f32",
        "  %log2e = arith.constant 1.44269504 : f32",
        '  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index',
        '  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index',
    ]
    if warp:
        lines += [
            "  %c4 = arith.constant 4 : index",
            "  %warp = arith.divui %tid, %c32 : index",
            "  %rows = arith.muli %bx, %c4 : index",
            "  %row = arith.addi %rows, %warp : index",
        ]
    else:
        lines += [
            f"  %cw = arith.constant {nw} : index",
            "  %warp = arith.divui %tid, %c32 : index",
            "  %lane = arith.remui %tid, %c32 : index",
            "  %lead = arith.cmpi eq, %lane, %c0 : index",
            "  %row = arith.addi %bx, %c0 : index",
        ]
    lines += [
        "  // The whole row, once: elements past N are not read and hold -inf.",
        f"  regcopy.copy {scope} %X[%row, %c0] [1, {tile}] -> %R {{padding = 0xFF80 : bf16}} : {G} -> {rt}",
        "  %tmax = scf.for %j = %c0 to %c32 step %c1 iter_args(%a = %ninf) -> (f32) {",
        "    %h = memref.load %r[%j] : memref<32xbf16, #regcopy.mem<local>>",
        "    %x = arith.extf %h : bf16 to f32",
        "    %a1 = arith.maximumf %a, %x : f32",
        "    scf.yield %a1 : f32",
        "  }",
    ]

    def reduce(src: str, dst: str, op: str) -> list[str]:
        return [
            f"  {dst}, %{dst[1:]}_off = scf.for %k = %c0 to %c5 step %c1 iter_args(%a = {src}, %off = %i16) -> (f32, i32) {{",
            "    %other, %valid = gpu.shuffle xor %a, %off, %width : f32",
            f"    %a1 = {op} %a, %other : f32",
            "    %off1 = arith.shrui %off, %i1 : i32",
            "    scf.yield %a1, %off1 : f32, i32",
            "  }",
        ]

    def across(src: str, dst: str, buf: str, op: str, init: str) -> list[str]:
        return [
            "  scf.if %lead {",
            f"    memref.store {src}, {buf}[%warp] : memref<{nw}xf32, #regcopy.mem<shared>>",
            "  }",
            "  \"gpu.barrier\"() : () -> ()",
            f"  {dst} = scf.for %w = %c0 to %cw step %c1 iter_args(%a = {init}) -> (f32) {{",
            f"    %v = memref.load {buf}[%w] : memref<{nw}xf32, #regcopy.mem<shared>>",
            f"    %a1 = {op} %a, %v : f32",
            "    scf.yield %a1 : f32",
            "  }",
        ]

    if warp:
        lines += reduce("%tmax", "%m", "arith.maximumf")
    else:
        lines += reduce("%tmax", "%wmax", "arith.maximumf")
        lines += across("%wmax", "%m", "%SM", "arith.maximumf", "%ninf")
    lines += [
        "  %mlog = arith.mulf %m, %log2e : f32",
        "  %nmlog = arith.negf %mlog : f32",
        "  // e = 2^((x - m) log2 e), kept in f32 registers; this thread's sum of them.",
        "  %tsum = scf.for %j = %c0 to %c32 step %c1 iter_args(%a = %zero) -> (f32) {",
        "    %h = memref.load %r[%j] : memref<32xbf16, #regcopy.mem<local>>",
        "    %x = arith.extf %h : bf16 to f32",
        "    %t = math.fma %x, %log2e, %nmlog : f32",
        "    %e = math.exp2 %t : f32",
        "    memref.store %e, %E[%j] : memref<32xf32, #regcopy.mem<local>>",
        "    %a1 = arith.addf %a, %e : f32",
        "    scf.yield %a1 : f32",
        "  }",
    ]
    if warp:
        lines += reduce("%tsum", "%s", "arith.addf")
    else:
        lines += reduce("%tsum", "%wsum", "arith.addf")
        lines += across("%wsum", "%s", "%SS", "arith.addf", "%zero")
    lines += [
        "  %inv = arith.divf %one, %s : f32",
        "  scf.for %j = %c0 to %c32 step %c1 {",
        "    %e = memref.load %E[%j] : memref<32xf32, #regcopy.mem<local>>",
        "    %y = arith.mulf %e, %inv : f32",
        "    %yh = arith.truncf %y : f32 to bf16",
        "    memref.store %yh, %r[%j] : memref<32xbf16, #regcopy.mem<local>>",
        "  }",
        f"  regcopy.copy {scope} %R -> %Y[%row, %c0] [1, {tile}] : {rt} -> {G}",
        "  func.return",
        "}",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    for name, threads in (("softmax_1k", 32), ("softmax_4k", 128), ("softmax_8k", 256),
                          ("softmax_16k", 512)):
        sys.stdout.write(kernel(name, threads))


if __name__ == "__main__":
    main()
