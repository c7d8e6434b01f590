#!/usr/bin/env python3
"""Benchmark: the row-wise bf16 softmax of ``examples/softmax.mlir`` against Triton's tutorial
softmax and ``torch.softmax``, in one process, on the same input.

    python -m regcopy_bench.bench_softmax [--n 1024,1001,4096,4093,8192,16384] [--mib M]
                                          [--iters K] [--classes]

For each row length N, an M x N bf16 matrix (M such that reading it and writing the result
moves at least ``--mib`` MiB, default 256: many waves of CTAs) of random normal values is
given to the three kernels:

* **regcopy**: the kernel of ``examples/softmax.mlir`` that ``pick_kernel`` picks for N, lowered
  by ``lower-reg-copy`` (the module compiled ONCE for every N: N is a kernel parameter): the
  whole row in registers (32 elements a thread, 32 to 512 threads a row by row-length class),
  read once and written once, 128-bit transfers when N is a multiple of 8; the table names it;
* **2-pass**: the example's ``softmax`` kernel, for any N: one warp a row walking it in chunks
  of 512, reading it twice (the online maximum and sum, then the outputs);
* **triton**: the Triton tutorial's fused softmax (one program per row, the whole row in
  registers, ``BLOCK_SIZE`` = the next power of two of N, 4/8/16 warps), computing in f32;
* **torch**: ``torch.softmax(x, -1)`` on the bf16 tensor;
* with ``--classes``, **1k** ... **16k**: each row-in-registers kernel whose class holds N (a
  longer class: more threads a row, more of its tile padding), to see which class is fastest
  for N; ``-`` where N is too long for it.

Every output is checked against ``torch.softmax`` of the f32 values, within one bf16 ulp
(relative 2^-7), before anything is timed; a kernel that fails is reported and not timed.
Times are CUDA events around ``--iters`` back-to-back launches after warm-up (regcopy's on
its ``cuda.core`` stream, the others on torch's), divided by ``--iters``; GB/s counts the
minimal traffic (M x N x 2 bytes read, the same written: the 2-pass kernel's second read of
each row is not counted), so the ratios compare the kernels' useful bandwidth. Exit status:
0, 1 when an output was wrong, 2 without a GPU or without torch.
"""

from __future__ import annotations

import argparse
import copy
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from regcopy_backend.cuda.kernel_info import KernelInfo, kernel_info, kernels
from regcopy_backend.cuda.printer import print_cuda
from regcopy_backend.runtime.runner import (
    NoGpuError,
    cuda_core,
    get_device,
)
from regcopy_backend.runtime.variants import KernelVariants
from regcopy_bench.bench_copy import time_launches
from regcopy_passes.lower_reg_copy import LowerRegCopyPass

from regcopy_dialect.context import regcopy_context
from regcopy_dialect.source import parse_located

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "softmax.mlir"
ROWS_PER_CTA = 4
"""CTAs of the warp-a-row kernels (``softmax_1k``, ``softmax``): 128 threads, 4 rows."""
FAMILY = ((1024, "softmax_1k", 4), (4096, "softmax_4k", 1), (8192, "softmax_8k", 1),
          (16384, "softmax_16k", 1))
"""The row-in-registers kernels of the example: (longest row, kernel, rows a CTA)."""
TWO_PASS = ("softmax", ROWS_PER_CTA)
"""The example's kernel for any row length (two reads of each row)."""
NS = (1024, 1001, 4096, 4093, 8192, 16384)


def pick_kernel(n: int) -> tuple[str, int]:
    """The example's kernel for rows of ``n`` elements and its rows a CTA: the smallest
    row-in-registers class holding ``n``, else the two-pass ``softmax``."""
    return next(((name, rows) for longest, name, rows in FAMILY if n <= longest), TWO_PASS)


def always(name: str, rows: int) -> Callable[[int], tuple[str, int]]:
    """A choice of kernel that ignores the row length."""
    return lambda n: (name, rows)


def softmax_source(path: Path = EXAMPLE) -> tuple[str, dict[str, KernelInfo]]:
    """The CUDA source and each kernel's launch facts (by MLIR name) of the softmax example,
    lowered."""
    ctx = regcopy_context()
    module = parse_located(ctx, path.read_text(), str(path))
    LowerRegCopyPass().apply(ctx, module)
    module.verify()
    return print_cuda(module), {f.sym_name.data: kernel_info(f) for f in kernels(module)}


def rows_for(n: int, mib: int) -> int:
    """Rows M such that an M x n bf16 softmax moves >= ``mib`` MiB (read + written)."""
    return max(ROWS_PER_CTA, -(-(mib << 20) // (2 * 2 * n)))


PEERS = ("triton", "torch")
"""The columns the regcopy kernel is compared with."""

Kernel = Callable[[Any, Any], Any]
"""``f(x, y)``: launch a softmax of the CUDA tensor ``x`` (not waiting), into ``y`` or into a
tensor it returns."""


def triton_softmax() -> Kernel | None:
    """The Triton tutorial's softmax as a ``Kernel``; None without Triton."""
    try:
        import triton
        import triton.language as tl
    except ImportError:
        return None

    @triton.jit
    def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols,
                       BLOCK_SIZE: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
        x = x.to(tl.float32)
        numerator = tl.exp(x - tl.max(x, axis=0))
        y = numerator / tl.sum(numerator, axis=0)
        tl.store(out_ptr + row * out_stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)

    def run(x: Any, y: Any) -> Any:
        m, n = x.shape
        block = triton.next_power_of_2(n)
        warps = 16 if block >= 4096 else 8 if block >= 2048 else 4
        softmax_kernel[(m,)](y, x, x.stride(0), y.stride(0), n, BLOCK_SIZE=block,
                             num_warps=warps)
        return y

    return run


class RegcopySoftmax:
    """The example's kernels, compiled once, launched on torch tensors (same context) on their
    own ``cuda.core`` stream: ``launch`` queues one launch of the kernel ``pick`` chooses for
    the row length (``pick_kernel``, or always the two-pass one), a call also waits for it."""

    def __init__(self, pick: Callable[[int], tuple[str, int]] = pick_kernel) -> None:
        self.core, self.dev = cuda_core(), get_device()
        self.pick = pick
        source, self.infos = softmax_source()
        # each kernel in the index width of each launch (32-bit where its offsets fit)
        self.kernels = {name: KernelVariants(self.dev, source, info)
                        for name, info in self.infos.items()}
        self.stream = self.dev.create_stream()

    def picking(self, pick: Callable[[int], tuple[str, int]]) -> RegcopySoftmax:
        """The same compiled kernels and stream, another choice of kernel."""
        other = copy.copy(self)
        other.pick = pick
        return other

    def holds(self, n: int) -> bool:
        """Whether the kernel picked for rows of ``n`` elements computes them whole."""
        name = self.pick(n)[0]
        return name == TWO_PASS[0] or n <= next(k for k, f, _ in FAMILY if f == name)

    def __call__(self, x: Any, y: Any) -> Any:
        self.launch(x, y)
        self.stream.sync()
        return y

    def launch(self, x: Any, y: Any) -> None:
        import numpy as np

        m, n = x.shape
        name, rows = self.pick(n)
        info = self.infos[name]
        index = np.int64 if info.index64 else np.int32
        args = [x.data_ptr(), index(m), index(n), y.data_ptr(), index(m), index(n)]
        grid = (-(-m // rows), 1, 1)
        config = self.core.LaunchConfig(grid=grid, block=(info.block, 1, 1))
        kernel = self.kernels[name].for_launch([(m, n), (m, n)], grid)
        self.core.launch(self.stream, config, kernel, *args)


def torch_ms(torch: Any, fn: Callable[[], Any], iters: int) -> float:
    """Milliseconds per call of ``fn`` (launching on torch's current stream), by CUDA events
    around ``iters`` calls after warm-up, as ``bench_copy.time_launches`` times the regcopy
    kernel on its stream."""
    for _ in range(2):
        fn()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    end.synchronize()
    return float(start.elapsed_time(end)) / iters


def time_one(torch: Any, fn: Kernel, x: Any, y: Any, iters: int) -> float:
    """Milliseconds per launch of ``fn`` on ``x`` (regcopy's: on its stream)."""
    if isinstance(fn, RegcopySoftmax):  # (also the 2-pass column)
        regcopy = fn
        return float(time_launches(regcopy.stream, lambda: regcopy.launch(x, y), iters))
    return torch_ms(torch, lambda: fn(x, y), iters)


def check(torch: Any, got: Any, want: Any) -> str | None:
    """None when ``got`` (bf16) is within one bf16 ulp of ``want`` (f32), else the worst
    element."""
    g = got.float()
    err = (g - want).abs() - (2.0 ** -7) * want.abs() - 1e-7
    if bool((err <= 0).all()) and not bool(torch.isnan(g).any()):
        return None
    k = int(torch.argmax(torch.nan_to_num(err, nan=1.0)).item())
    r, c = divmod(k, want.shape[1])
    return f"[{r}, {c}]: {g[r, c].item()!r}, expected {want[r, c].item()!r}"


def bench_n(torch: Any, kernels: dict[str, Kernel], n: int, mib: int, iters: int
            ) -> tuple[list[str], bool]:
    """One table row (GB/s of each kernel and the ratios to Triton and torch) and whether
    every output was right."""
    m = rows_for(n, mib)
    gen = torch.Generator(device="cuda").manual_seed(n)
    x = (torch.randn((m, n), device="cuda", generator=gen) * 3).to(torch.bfloat16)
    want = torch.softmax(x.float(), dim=-1)
    gbps: dict[str, float] = {}
    notes, ok = [], True
    torch.cuda.synchronize()
    for name, fn in kernels.items():
        if isinstance(fn, RegcopySoftmax) and not fn.holds(n):
            continue  # a class too short for n: no cell
        y = torch.full_like(x, float("nan"))
        torch.cuda.synchronize()
        out = fn(x, y)
        torch.cuda.synchronize()
        if (problem := check(torch, out, want)) is not None:
            notes.append(f"{name} WRONG at {problem}")
            ok = False
            continue
        ms = time_one(torch, fn, x, y, iters)
        gbps[name] = 2 * 2 * m * n / ms / 1e6
    cells = [f"{gbps[k]:8.0f}" if k in gbps else "       -" for k in kernels]
    ratios = [f"{gbps['regcopy'] / gbps[k]:6.2f}x" if "regcopy" in gbps and k in gbps
              else "      -" for k in kernels if k in PEERS]
    line = (f"{n:6d} {m:7d} " + " ".join(cells) + "  " + " ".join(ratios)
            + f"  {pick_kernel(n)[0]}")
    return [line, *(f"       {note}" for note in notes)], ok


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("--n", default=",".join(map(str, NS)), help="row lengths, comma-separated")
    ap.add_argument("--mib", type=int, default=256, help="MiB moved per launch (default 256)")
    ap.add_argument("--iters", type=int, default=20, help="timed launches (default 20)")
    ap.add_argument("--classes", action="store_true",
                    help="also time every row-in-registers kernel whose class holds N (one "
                         "column each: which class is fastest for N)")
    args = ap.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("bench_softmax: torch is not installed (it provides the peer columns and the "
              "device tensors)", file=sys.stderr)
        return 2
    try:
        get_device()
        if not torch.cuda.is_available():
            raise NoGpuError("torch sees no CUDA device")
    except NoGpuError as e:
        print(f"bench_softmax: {e}", file=sys.stderr)
        return 2
    regcopy = RegcopySoftmax()
    kernels: dict[str, Kernel] = {"regcopy": regcopy, "2-pass": regcopy.picking(always(*TWO_PASS))}
    if args.classes:
        for _, name, rows in FAMILY:
            kernels[name.removeprefix("softmax_")] = regcopy.picking(always(name, rows))
    if (triton_run := triton_softmax()) is not None:
        kernels["triton"] = triton_run
    else:
        print("bench_softmax: triton is not installed: no triton column", file=sys.stderr)
    def torch_softmax(x: Any, y: Any) -> Any:
        return torch.softmax(x, dim=-1)

    kernels["torch"] = torch_softmax
    names = list(kernels)
    print(f"bf16 softmax, GB/s of minimal traffic (read + write once), {torch.cuda.get_device_name()}")
    print(f"{'N':>6} {'M':>7} " + " ".join(f"{k:>8}" for k in names) + "  " +
          " ".join(f"{'vs ' + k:>7}" for k in names if k in PEERS) + "  kernel")
    ok = True
    for n in (int(v) for v in args.n.split(",") if v):
        lines, good = bench_n(torch, kernels, n, args.mib, args.iters)
        ok &= good
        print("\n".join(lines), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
