"""Register ↔ register conversion throughput on the GPU, against the hand-written shared round
trip, in one process (``python -m regcopy_bench.bench_convert``).

Each case is a tile that every CTA loads from global memory into registers in layout ``A``,
converts ``A -> B -> A`` ``n`` times in a loop (``regcopy.copy`` between two ``local`` tiles,
lowered by ``lower-reg-copy``), and stores; the output must equal the input (checked). The
forms of each case:

* ``auto``: the pass's choice (``conversion=auto``), as a user gets it;
* ``shuffle`` / ``shared``: the pass forced to warp shuffles / its shared round trip
  (``conversion=...``), where they differ from ``auto``;
* ``hand``: what a user writes without the op: a row-major ``shared`` tile, ``A -> S``,
  ``gpu.barrier``, ``S -> B``, ``gpu.barrier`` (the copies lowered by the same pass).

The table gives, per form, microseconds per launch, conversions per second, the ratio to
``hand`` and the SASS counts of one ``A -> B -> A`` (two conversions: ``SHFL``,
``LDS``/``STS``/``LDSM``/``STSM``, ``BAR``, ``SEL``, local memory; the load and store of the
tile are global). ``--sass-only`` prints the SASS columns without a GPU.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
from regcopy_backend.cuda.kernel_info import kernel_info, kernels
from regcopy_backend.cuda.printer import print_cuda
from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
from regcopy_passes import LowerRegCopyPass
from xdsl.parser import Parser

from regcopy_dialect import regcopy_context


@dataclass(frozen=True)
class Case:
    """One conversion: a ``rows x cols`` tile of ``dtype`` from layout ``a`` to ``b``."""

    name: str
    rows: int
    cols: int
    dtype: str
    a: str
    b: str
    scope: str = "warp"
    block: int = 32


CASES = (
    Case("acc->rows f32 (m16n8 x4)", 16, 32, "f32", "(2,8,4,4,2):(2,4@laneid,4,1@laneid,1)",
         "(16,2,4,4):(2@laneid,1@laneid,4,1)"),
    Case("acc->rows bf16 (m16n8 x4)", 16, 32, "bf16", "(2,8,4,4,2):(2,4@laneid,4,1@laneid,1)",
         "(16,2,2,8):(2@laneid,1@laneid,8,1)"),
    Case("warp transpose 32x32 f32", 32, 32, "f32", "(32,32):(1@laneid,1)",
         "(32,32):(1,1@laneid)"),
    Case("cta rows->columns 64x64 f32", 64, 64, "f32", "(64,2,32):(2@tx,1@tx,1)",
         "(2,32,64):(64@tx,1,1@tx)", "cta", 128),
)
"""The benchmark's cases (the first two are the GEMM epilogue's accumulator → rows)."""

FORMS = ("auto", "shuffle", "shared", "hand")


def _types(c: Case) -> dict[str, str]:
    tile = f"{c.rows}x{c.cols}x{c.dtype}"
    return {"A": f"memref<{tile}, #regcopy.layout<{c.a}>, #regcopy.mem<local>>",
            "B": f"memref<{tile}, #regcopy.layout<{c.b}>, #regcopy.mem<local>>",
            "S": f"memref<{tile}, #regcopy.mem<shared>>",
            "G": f"memref<?x{c.cols}x{c.dtype}, #regcopy.mem<global>>"}


def kernel_text(c: Case, form: str, grid: int = 1, trips: int | None = None) -> str:
    """The case's kernel (module doc): ``k(%in, %out, %n)``; ``hand`` converts through a
    row-major shared tile, the other forms with ``regcopy.copy`` between the tiles. With
    ``trips``, the loop runs that constant number of times instead of ``%n`` (unrolled: the
    SASS of one ``A -> B -> A`` is then the kernel's)."""
    t = _types(c)
    s = c.scope

    def conv(x: str, tx: str, y: str, ty: str) -> str:
        if form != "hand":
            return f"    regcopy.copy {s} %{x} -> %{y} : {t[tx]} -> {t[ty]}\n"
        return (f"    regcopy.copy {s} %{x} -> %S : {t[tx]} -> {t['S']}\n"
                '    "gpu.barrier"() : () -> ()\n'
                f"    regcopy.copy {s} %S -> %{y} : {t['S']} -> {t[ty]}\n"
                '    "gpu.barrier"() : () -> ()\n')

    shared = f"  %S = memref.alloca() : {t['S']}\n" if form == "hand" else ""
    region = f"[%row, 0] [{c.rows}, {c.cols}]"
    return (
        f"func.func @k(%in: {t['G']}, %out: {t['G']}, %n: index) attributes "
        f"{{regcopy.launch = #regcopy.launch<block = {c.block}, grid = [{grid}]>}} {{\n"
        '  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index\n'
        f"  %rows = arith.constant {c.rows} : index\n"
        "  %row = arith.muli %bx, %rows : index\n"
        "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
        f"  %a = memref.alloca() : {t['A']}\n  %b = memref.alloca() : {t['B']}\n{shared}"
        f"  regcopy.copy {s} %in{region} -> %a {{in_bounds}} : {t['G']} -> {t['A']}\n"
        + (f"  %trips = arith.constant {trips} : index\n" if trips is not None else "")
        + f"  scf.for %i = %c0 to {'%trips' if trips is not None else '%n'} step %c1 {{\n"
        + conv("a", "A", "b", "B") + conv("b", "B", "a", "A") +
        "  }\n"
        f"  regcopy.copy {s} %a -> %out{region} {{in_bounds}} : {t['A']} -> {t['G']}\n"
        "  func.return\n}\n")


def lower(c: Case, form: str, grid: int = 1, trips: int | None = None) -> Any:
    """The lowered module of ``kernel_text`` (``auto``/``hand``: the default options)."""
    ctx = regcopy_context()
    module = Parser(ctx, kernel_text(c, form, grid, trips), "bench_convert.mlir").parse_module()
    conversion = form if form in ("shuffle", "shared") else "auto"
    LowerRegCopyPass(conversion=conversion, warn_unlowered=False).apply(ctx, module)
    module.verify()
    return module


def sass_counts(sass: str) -> Counter[str]:
    """Opcode heads of the SASS (``SHFL``, ``LDS``, ``BAR``, ``SEL``, ``LDL`` ...)."""
    ops = re.findall(r"^\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", sass,
                     re.MULTILINE)
    return Counter(ops)


def source_and_sass(c: Case, form: str) -> tuple[str, Counter[str]]:
    """The CUDA of the timed kernel, and the SASS counts of one ``A -> B -> A`` (the kernel
    with one constant trip, its loop unrolled away)."""
    source = print_cuda(lower(c, form))
    one = print_cuda(lower(c, form, trips=1))
    return source, sass_counts(disassemble(compile_cuda(one).cubin))


def _sass_text(n: Counter[str]) -> str:
    shared = n["LDS"] + n["STS"] + n["LDSM"] + n["STSM"]
    return (f"SHFL {n['SHFL']:3}  shared {shared:3}  BAR {n['BAR']:2}  SEL {n['SEL']:3}  "
            f"local {n['LDL'] + n['STL']}")


def _time(c: Case, form: str, grid: int, iters: int, reps: int) -> tuple[float, bool]:
    """``(microseconds per launch, output equal to input)`` of the case's ``form``: compiled
    once, timed by CUDA events over ``reps`` launches (``bench_copy.time_launches``)."""
    from regcopy_backend.runtime.runner import (
        compile_kernel,
        cuda_core,
        get_device,
        launch_arguments,
        set_dynamic_shared_memory,
    )
    from regcopy_bench.bench_async import _download, _upload
    from regcopy_bench.bench_copy import time_launches

    core, dev = cuda_core(), get_device()
    stream = dev.create_stream()
    module = lower(c, form, grid)
    info = kernel_info(kernels(module)[0])
    kernel = compile_kernel(dev, print_cuda(module), info.symbol)
    if info.dynamic_shared_bytes:
        set_dynamic_shared_memory(dev, kernel, info.dynamic_shared_bytes)
    dtype = np.float32 if c.dtype == "f32" else np.uint16
    a = np.random.default_rng(0).integers(0, 1 << 15, size=(grid * c.rows, c.cols)).astype(dtype)
    src = _upload(core, dev, stream, a)
    dst = _upload(core, dev, stream, np.zeros_like(a))
    values = launch_arguments(info, [a, a, iters], [int(src.handle), int(dst.handle)])
    config = core.LaunchConfig(grid=(grid, 1, 1), block=(c.block, 1, 1),
                               shmem_size=info.dynamic_shared_bytes)
    ms = time_launches(stream, lambda: core.launch(stream, config, kernel, *values), reps)
    out = np.empty_like(a)
    _download(core, stream, dst, out)
    for b in (src, dst):
        b.close(stream)
    return ms * 1e3, bool(np.array_equal(out, a))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sass-only", action="store_true")
    ap.add_argument("--iters", type=int, default=2048)
    ap.add_argument("--ctas-per-sm", type=int, default=16)
    ap.add_argument("--reps", type=int, default=10, help="timed launches per form")
    args = ap.parse_args()
    print("| case | form | SASS | us/launch | conversions/s | vs hand | output |")
    print("|---|---|---|---|---|---|---|")
    grid = 132 * args.ctas_per_sm
    for c in CASES:
        base: float | None = None
        seen: dict[str, str] = {}
        for form in ("hand", *FORMS[:-1]):
            source, counts = source_and_sass(c, form)
            if source in seen.values():
                continue
            seen[form] = source
            cells = ["n/a", "n/a", "n/a", "n/a"]
            if not args.sass_only:
                try:
                    us, ok = _time(c, form, grid, args.iters, args.reps)
                except Exception as e:  # noqa: BLE001 - no GPU: SASS only
                    print(f"bench_convert: no GPU run ({e})", file=sys.stderr)
                    args.sass_only = True
                else:
                    base = us if form == "hand" else base
                    rate = grid * args.iters * 2 * (c.block // 32 if c.scope != "cta" else 1)
                    cells = [f"{us:.1f}", f"{rate / us * 1e6:.3g}",
                             f"{base / us:.2f}x" if base else "-", "ok" if ok else "WRONG"]
            print(f"| {c.name} | {form} | {_sass_text(counts)} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
