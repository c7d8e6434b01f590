#!/usr/bin/env python3
"""The shared-memory bank model against the hardware: wavefronts counted by Nsight Compute.

    python3 test/gpu/ncu_banks.py [--cases 120] [--seed 17] [--ncu PATH] [--timing]
    python3 test/gpu/ncu_banks.py --cpu          # no GPU: generate, lower, compile, predict

Each case is one warp's kernel that moves a register tile through a shared tile and back:

    G -> R (global)   R -> S (the STORE under test)   barrier   S -> R (the LOAD under test)   R -> G

with a random shared copy: row tiles (one row a lane, 8/16/32-bit elements, pitch padded or
not, ``swizzle<M,B,S>`` or not, vector widths 32 to 128 bits, lane rotation on or off), column
tiles (a column a lane: sub-word accesses, broadcasts within a word) and MMA fragments
(ldmatrix / stmatrix, ``.trans`` included, or the per-thread path, by ``transfer``). The only
shared accesses of a kernel are the two copies under test, so Nsight Compute's per-kernel
counters

    l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum   (loads)
    l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum   (stores)
    l1tex__data_pipe_lsu_wavefronts_mem_shared.sum         (every shared op: ldmatrix and
                                                            stmatrix land here if not above)

give the wavefronts of each copy, which the script compares with the model's prediction
(``Transfer.bank_report``: the one bank model of ``regcopy_passes.banks``, for the transfer and
lane rotation the pass chose). It prints one agreement table (by family and direction) and
every disagreeing case. ``ncu`` needs access to the GPU's performance counters; where it
cannot run (``ERR_NVGPUCTRPERM``), ``--timing`` (taken by itself when ncu fails) times each
kernel's two copies in a loop with ``clock64()`` and reports how well the predicted wavefronts
explain the clocks (a least-squares fit, cases far off it listed).

``--cpu`` does everything a GPU is not needed for: generates the cases, lowers them, compiles
each with NVRTC for sm_90 and checks that the SASS has as many shared instructions as the plan
says (so that the counters will measure the copies the model describes), and prints the
predictions. Exit status: 0 when every case agrees (or, under ``--cpu``, every kernel compiles
with the planned instruction counts), 1 otherwise, 2 when nothing could be measured.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from regcopy_backend.cuda.printer import print_cuda
from regcopy_dialect.context import regcopy_context
from regcopy_dialect.regcopy import CopyOp
from regcopy_passes.dispatch import Rejected
from regcopy_passes.lower_reg_copy import LowerRegCopyPass, plan_for
from xdsl.parser import Parser

METRICS = ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum")
NCU = "/usr/local/cuda/bin/ncu"
PREFIX = "bank_"


# ---- the cases ------------------------------------------------------------------------------


@dataclass(frozen=True)
class BankCase:
    """One random shared copy: R's shape/layout, S's shape and layout attribute (None: row
    major), the element type and the pass options."""

    family: str
    dtype: str
    r_shape: tuple[int, int]
    r_layout: str
    s_shape: tuple[int, int]
    s_layout: str | None = None
    options: tuple[tuple[str, Any], ...] = ()

    def describe(self) -> str:
        s = "x".join(map(str, self.s_shape))
        lay = f" {self.s_layout}" if self.s_layout else ""
        opts = " ".join(f"{k}={v}" for k, v in self.options)
        return (f"{self.dtype} R {self.r_layout} S [{s}]{lay} {opts}").strip()

    def kernel_text(self, name: str, iters: int | None = None) -> str:
        """The kernel: G -> R, R -> S (store under test), barrier, S -> R (load), R -> G.
        With ``iters``, the two shared copies run in a loop of ``iters`` iterations, a barrier
        before the loop, one after each copy (the clock64 fallback's kernel)."""
        rs = "x".join(map(str, self.r_shape))
        ss = "x".join(map(str, self.s_shape))
        g = f"memref<{rs}x{self.dtype}, #regcopy.mem<global>>"
        r = (f"memref<{rs}x{self.dtype}, #regcopy.layout<{self.r_layout}>, "
             "#regcopy.mem<local>>")
        lay = f"#regcopy.layout<{self.s_layout}>, " if self.s_layout else ""
        s = f"memref<{ss}x{self.dtype}, {lay}#regcopy.mem<shared>>"
        region = f"%S[0, 0] [{self.r_shape[0]}, {self.r_shape[1]}]"
        if iters is not None:
            bar = '  "gpu.barrier"() : () -> ()\n'
            return (
                f"func.func @{name}(%G: {g}, %O: {g}) attributes "
                "{regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {\n"
                f"  %S = memref.alloca() : {s}\n"
                f"  %R = memref.alloca() : {r}\n"
                "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
                f"  %cn = arith.constant {iters} : index\n"
                f"  regcopy.copy warp %G -> %R : {g} -> {r}\n" + bar
                + "  scf.for %i = %c0 to %cn step %c1 {\n"
                f"  regcopy.copy warp %R -> {region} : {r} -> {s}\n" + bar
                + f"  regcopy.copy warp {region} -> %R : {s} -> {r}\n" + bar + "  }\n" + bar
                + f"  regcopy.copy warp %R -> %O : {r} -> {g}\n  func.return\n}}\n")
        return (
            f"func.func @{name}(%G: {g}, %O: {g}) attributes "
            "{regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {\n"
            f"  %S = memref.alloca() : {s}\n"
            f"  %R = memref.alloca() : {r}\n"
            f"  regcopy.copy warp %G -> %R : {g} -> {r}\n"
            f"  regcopy.copy warp %R -> {region} : {r} -> {s}\n"
            '  "gpu.barrier"() : () -> ()\n'
            f"  regcopy.copy warp {region} -> %R : {s} -> {r}\n"
            f"  regcopy.copy warp %R -> %O : {r} -> {g}\n"
            "  func.return\n}\n")


ELEMENT_BYTES = {"f32": 4, "f16": 2, "i8": 1}

FRAGMENTS = (
    # (family, dtype, R shape, R layout): mma A 16x16 f16, B on a K x N tile (ldmatrix.trans),
    # C 16x8 f32, A 16x32 i8
    ("frag-a", "f16", (16, 16), "(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)"),
    ("frag-b-trans", "f16", (16, 8), "(2,4,2,8):(2,1@laneid,1,4@laneid)"),
    ("frag-c-f32", "f32", (16, 8), "(2,8,4,2):(2,4@laneid,1@laneid,1)"),
    ("frag-a-i8", "i8", (16, 32), "(2,8,2,4,4):(4,4@laneid,8,1@laneid,1)"),
)


def _swizzle(rng: random.Random, eb: int, cols: int, pitch: int) -> str | None:
    """A random ``swizzle<M,B,S>`` on a row-major ``(rows, pitch)`` tile (None: plain):
    16-byte chunks (``M``), 1 to 3 bits XORed from the row bits above them (``S``)."""
    if pitch != cols or rng.random() < 0.5:
        return None
    m = (16 // eb).bit_length() - 1
    b = rng.choice((1, 2, 3))
    s = max(b, (pitch.bit_length() - 1) - m) if pitch & (pitch - 1) == 0 else b
    return f"swizzle<{m},{b},{s}>"


def _s_layout(rows: int, pitch: int, swizzle: str | None) -> str | None:
    return None if swizzle is None else f"({rows},{pitch}):({pitch},1), {swizzle}"


def random_case(rng: random.Random) -> BankCase:
    """One random case of the three families (see the module doc)."""
    kind = rng.choices(("rows", "cols", "fragment"), weights=(5, 2, 3))[0]
    if kind == "fragment":
        family, dtype, shape, lay = rng.choice(FRAGMENTS)
        eb = ELEMENT_BYTES[dtype]
        pitch = shape[1] + rng.choice((0, 0, 8, 16, 48)) // eb
        sw = _swizzle(rng, eb, shape[1], pitch) if shape[1] * eb >= 32 else None
        transfer = rng.choice(("auto", "matrix", "matrix", "vector"))
        return BankCase(family, dtype, shape, lay, (shape[0], pitch),
                        _s_layout(shape[0], pitch, sw),
                        (("transfer", transfer), ("bank_rotation", rng.choice(("auto", "off")))))
    dtype = rng.choice(("f32", "f16", "i8"))
    eb = ELEMENT_BYTES[dtype]
    if kind == "cols":
        k = rng.choice((4, 8, 16)) * 4 // eb
        pitch = 32 + rng.choice((0, 0, 4, 8, 16)) // eb
        return BankCase("cols", dtype, (k, 32), "(%d,32):(1,1@laneid)" % k, (k, pitch))
    k = rng.choice((16, 32, 64, 128)) // eb
    pitch = k + rng.choice((0, 0, 0, 4, 8, 16, 32)) // eb
    sw = _swizzle(rng, eb, k, pitch)
    bits = rng.choice((32, 64, 128, 128))
    rotation = rng.choice(("auto", "auto", "off"))
    family = "rows" + ("-swizzled" if sw else "")
    return BankCase(family, dtype, (32, k), f"(32,{k}):(1@laneid,1)", (32, pitch),
                    _s_layout(32, pitch, sw),
                    (("max_vector_bits", bits), ("bank_rotation", rotation)))


@dataclass(frozen=True)
class Side:
    """The prediction for one shared copy of a case: its transfer, instructions a warp and
    wavefronts (``bank_report``) with the ideal."""

    kind: str
    instructions: int
    wavefronts: int
    ideal: int
    rotated: bool


@dataclass
class Planned:
    """A case lowered: its kernel name and CUDA source, the store and load predictions."""

    name: str
    case: BankCase
    source: str
    store: Side
    load: Side
    measured: dict[str, float] = field(default_factory=dict[str, float])
    sass: tuple[int, int] | None = None
    """(shared loads, shared stores) in the compiled kernel's SASS, where known."""

    @property
    def sass_differs(self) -> bool:
        """The compiler issues another number of shared instructions than the plan (NVVM
        merges neighbouring narrow accesses into wider ones where it proves alignment)."""
        return self.sass is not None and self.sass != (self.load.instructions,
                                                       self.store.instructions)


def _side(op: CopyOp, options: dict[str, Any]) -> Side:
    lp = plan_for(op, options.get("max_vector_bits", 128),
                  options.get("bank_rotation", "auto") == "auto",
                  options.get("transfer", "auto"))
    report = lp.transfer.bank_report(lp.copy)
    return Side(lp.transfer.kind, lp.transfer.instructions, report.wavefronts, report.ideal,
                lp.shared.rotates)


def plan_case(case: BankCase, name: str) -> Planned | str:
    """Lower ``case`` into a kernel called ``name``; why not, as a string, if it cannot be."""
    ctx = regcopy_context()
    text = case.kernel_text(name)
    options = dict(case.options)
    try:
        module = Parser(ctx, text, f"{name}.mlir").parse_module()
        module.verify()
        copies = [op for op in module.walk() if isinstance(op, CopyOp)]
        store, load = _side(copies[1], options), _side(copies[2], options)
        LowerRegCopyPass(strict=True, **options).apply(ctx, module)
        module.verify()
        return Planned(name, case, print_cuda(module), store, load)
    except Rejected as e:
        return f"rejected: {e}"
    except Exception as e:  # noqa: BLE001 - a random case the dialect refuses: skip it
        return f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"


def generate(count: int, seed: int) -> Iterator[Planned]:
    """``count`` distinct cases that lower (others are drawn again)."""
    rng = random.Random(seed)
    seen: set[BankCase] = set()
    made = tries = 0
    while made < count and tries < 50 * count:
        tries += 1
        case = random_case(rng)
        if case in seen:
            continue
        seen.add(case)
        planned = plan_case(case, f"{PREFIX}{made:03d}")
        if isinstance(planned, Planned):
            made += 1
            yield planned


# ---- counting shared instructions in SASS (CPU) ---------------------------------------------

SHARED_OPS = re.compile(r"\b(LDS|STS|LDSM|STSM)(\.[A-Z0-9.]+)?\b")


def sass_shared(sass: str) -> tuple[int, int]:
    """(shared load instructions, shared store instructions) in a kernel's SASS."""
    loads = stores = 0
    for m in SHARED_OPS.finditer(sass):
        if m.group(1).startswith("LD"):
            loads += 1
        else:
            stores += 1
    return loads, stores


def cpu_check(planned: Sequence[Planned]) -> int:
    """Compile every kernel with NVRTC; compare its SASS's shared instructions with the plan."""
    from regcopy_backend.runtime.nvrtc import compile_cuda, disassemble

    bad = 0
    for p in planned:
        p.sass = got = sass_shared(disassemble(compile_cuda(p.source).cubin))
        want = (p.load.instructions, p.store.instructions)
        if got != want:
            bad += 1
            print(f"{p.name}: SASS has {got[0]} shared loads / {got[1]} stores, the plan "
                  f"{want[0]} / {want[1]}: {p.case.describe()}")
    print(f"{len(planned) - bad}/{len(planned)} kernels compile with the planned shared "
          "instruction counts")
    return 0 if bad == 0 else 1


# ---- ncu: launching and parsing -------------------------------------------------------------


def launch_all(planned: Sequence[Planned]) -> None:
    """Compile and launch every kernel once (what ncu profiles)."""
    from regcopy_backend.runtime.runner import compile_kernel, cuda_core, get_device

    core, dev = cuda_core(), get_device()
    stream = dev.create_stream()
    buf_in, buf_out = dev.allocate(1 << 16, stream=stream), dev.allocate(1 << 16, stream=stream)
    config = core.LaunchConfig(grid=(1, 1, 1), block=(32, 1, 1))
    for p in planned:
        kernel = compile_kernel(dev, p.source, p.name)
        core.launch(stream, config, kernel, int(buf_in.handle), int(buf_out.handle))
    stream.sync()


def parse_ncu_csv(text: str) -> dict[str, dict[str, float]]:
    """Metric values by kernel name from ``ncu --csv`` output (the default ``details`` page:
    one row per kernel and metric, columns ``Kernel Name``, ``Metric Name``, ``Metric
    Value``; or ``--page raw``: one row per kernel, a column per metric, a row of units
    second). Lines before the CSV header (``==PROF==`` and the program's own) are skipped;
    values may carry thousands separators."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        return {}
    rows = list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))
    out: dict[str, dict[str, float]] = {}

    def number(v: str) -> float | None:
        try:
            return float(v.replace(",", ""))
        except ValueError:
            return None

    for row in rows:
        name = (row.get("Kernel Name") or "").split("(")[0].strip()
        if not name:
            continue
        if "Metric Name" in row:
            value = number(row.get("Metric Value") or "")
            if value is not None:
                out.setdefault(name, {})[row["Metric Name"]] = value
            continue
        for metric in METRICS:
            if metric in row and (value := number(row[metric] or "")) is not None:
                out.setdefault(name, {})[metric] = value
    return out


def attribute(p: Planned) -> tuple[float, float] | None:
    """(load, store) wavefronts measured for ``p``: ``op_ld`` and ``op_st``, plus what the
    all-ops counter has beyond them (ldmatrix/stmatrix where the op counters leave them out)
    given to the matrix side; None if the counters are missing."""
    m = p.measured
    if not all(k in m for k in METRICS):
        return None
    ld, st, total = (m[k] for k in METRICS)
    rest = total - ld - st
    if rest > 0:
        if p.load.kind == "ldmatrix" and p.store.kind != "stmatrix":
            ld += rest
        elif p.store.kind == "stmatrix" and p.load.kind != "ldmatrix":
            st += rest
        elif p.load.kind == "ldmatrix":  # both matrix: split in the model's proportion
            share = p.load.wavefronts / max(1, p.load.wavefronts + p.store.wavefronts)
            ld, st = ld + rest * share, st + rest * (1 - share)
    return ld, st


def run_ncu(planned: Sequence[Planned], ncu: str, args: argparse.Namespace) -> str | None:
    """Run this script's ``--launch`` mode under ncu; its CSV log, or None if ncu failed."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "ncu.csv")
        cmd = [ncu, "--csv", "--log-file", log, "--metrics", ",".join(METRICS),
               "--kernel-name", f"regex:^{PREFIX}", sys.executable, os.path.abspath(__file__),
               "--launch", "--cases", str(args.cases), "--seed", str(args.seed)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        text = open(log).read() if os.path.exists(log) else ""
        if proc.returncode != 0 or "ERR_NVGPUCTRPERM" in text + proc.stdout + proc.stderr:
            print(f"ncu failed (exit {proc.returncode}):\n{(proc.stdout + proc.stderr)[-2000:]}"
                  f"\n{text[-1000:]}", file=sys.stderr)
            return None
        return text


def report(planned: Sequence[Planned]) -> int:
    """The agreement table and the disagreeing cases; exit status."""
    table: dict[tuple[str, str], list[int]] = {}
    wrong: list[str] = []
    for p in planned:
        got = attribute(p)
        if got is None:
            wrong.append(f"{p.name}: no counters")
            continue
        for direction, side, value in (("load", p.load, got[0]), ("store", p.store, got[1])):
            key = (f"{p.case.family} {side.kind}{' rotated' if side.rotated else ''}", direction)
            row = table.setdefault(key, [0, 0])
            row[0] += 1
            if round(value) == side.wavefronts:
                row[1] += 1
            else:
                sass = (f" [SASS: {p.sass[0]} shared loads / {p.sass[1]} stores, not as "
                        "planned]" if p.sass_differs and p.sass else "")
                wrong.append(f"{p.name} {direction}: predicted {side.wavefronts} (ideal "
                             f"{side.ideal}, {side.instructions} instr), measured {value:g}: "
                             f"{p.case.describe()}{sass}")
    cases = sum(r[0] for r in table.values())
    agree = sum(r[1] for r in table.values())
    print(f"\n| family / transfer | copy | cases | agree |\n|---|---|---|---|")
    for (fam, direction), (n, ok) in sorted(table.items()):
        print(f"| {fam} | {direction} | {n} | {ok} |")
    print(f"| all | both | {cases} | {agree} ({100 * agree / max(1, cases):.1f}%) |")
    if wrong:
        print("\ndisagreeing:")
        print("\n".join(wrong))
    return 0 if not wrong and cases else (2 if not cases else 1)


# ---- fallback: clock64 timing ---------------------------------------------------------------

TIMED_ITERS = 64


def timed_source(p: Planned) -> str:
    """``p``'s case as a kernel whose two shared copies run ``TIMED_ITERS`` times in a loop
    between two ``clock64()`` reads (at the barriers around the loop: the first and the last
    ``__syncthreads()``), lane 0 writing the clocks to the output's first 8 bytes at the end."""
    ctx = regcopy_context()
    module = Parser(ctx, p.case.kernel_text(p.name, TIMED_ITERS), "timed.mlir").parse_module()
    LowerRegCopyPass(strict=True, **dict(p.case.options)).apply(ctx, module)
    src = print_cuda(module)
    sync = "__syncthreads();"
    first, last = src.index(sync), src.rindex(sync)
    end = src.rindex("}")
    return (src[:first] + sync + " long long rc_t0 = clock64();"
            + src[first + len(sync):last] + "long long rc_t1 = clock64(); " + sync
            + src[last + len(sync):end]
            + "  if (threadIdx.x == 0) *reinterpret_cast<long long*>(O) = rc_t1 - rc_t0;\n"
            + src[end:])


def timing(planned: Sequence[Planned]) -> int:
    """Clocks per iteration of each kernel against the predicted wavefronts of its copies:
    a least-squares line, and the cases more than 25% off it."""
    import numpy as np

    from regcopy_backend.runtime.runner import compile_kernel, cuda_core, get_device

    core, dev = cuda_core(), get_device()
    stream = dev.create_stream()
    buf_in, buf_out = dev.allocate(1 << 16, stream=stream), dev.allocate(1 << 16, stream=stream)
    config = core.LaunchConfig(grid=(1, 1, 1), block=(32, 1, 1))
    xs, ys = [], []
    for p in planned:
        kernel = compile_kernel(dev, timed_source(p), p.name)
        best = None
        for _ in range(3):
            core.launch(stream, config, kernel, int(buf_in.handle), int(buf_out.handle))
            host = np.zeros(1, dtype=np.int64)
            stream.sync()
            from cuda.bindings import driver

            driver.cuMemcpyDtoH(host.ctypes.data, int(buf_out.handle), 8)
            clocks = float(host[0]) / TIMED_ITERS
            best = clocks if best is None else min(best, clocks)
        xs.append(p.load.wavefronts + p.store.wavefronts)
        ys.append(best)
    a, b = np.polyfit(np.array(xs, float), np.array(ys, float), 1)
    r = np.corrcoef(xs, ys)[0, 1]
    print(f"clocks per iteration = {a:.2f} x predicted wavefronts + {b:.1f} "
          f"(r = {r:.3f}, {len(xs)} cases)")
    off = [(p, x, y) for p, x, y in zip(planned, xs, ys) if abs(y - (a * x + b)) > 0.25 * y]
    for p, x, y in off:
        print(f"{p.name}: {x} wavefronts predicted, {y:.0f} clocks (fit {a * x + b:.0f}): "
              f"{p.case.describe()}")
    return 0 if r > 0.9 else 1


# ---- main -----------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=120)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--ncu", default=os.environ.get("NCU", NCU))
    ap.add_argument("--cpu", action="store_true", help="no GPU: lower, compile, predict")
    ap.add_argument("--timing", action="store_true", help="clock64 timing instead of ncu")
    ap.add_argument("--launch", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--csv", help="parse this ncu CSV instead of running ncu")
    args = ap.parse_args(argv)
    planned = list(generate(args.cases, args.seed))
    if args.launch:
        launch_all(planned)
        return 0
    print(f"{len(planned)} cases (seed {args.seed})")
    if args.cpu:
        for p in planned:
            print(f"{p.name}: store {p.store.kind} {p.store.wavefronts}/{p.store.ideal}, load "
                  f"{p.load.kind} {p.load.wavefronts}/{p.load.ideal}: {p.case.describe()}")
        return cpu_check(planned)
    if args.timing:
        return timing(planned)
    if args.csv is not None:
        text: str | None = open(args.csv).read()
    else:
        ncu = args.ncu if os.path.exists(args.ncu) else shutil.which("ncu")
        text = run_ncu(planned, ncu, args) if ncu else None
        if text is None:
            print("ncu could not count wavefronts: falling back to clock64 timing")
            return timing(planned)
    counters = parse_ncu_csv(text or "")
    for p in planned:
        p.measured = counters.get(p.name, {})
    try:
        from regcopy_backend.runtime.nvrtc import compile_cuda, disassemble

        for p in planned:
            p.sass = sass_shared(disassemble(compile_cuda(p.source).cubin))
    except Exception as e:  # noqa: BLE001 - no nvdisasm: the table without SASS counts
        print(f"(no SASS counts: {e})")
    return report(planned)


if __name__ == "__main__":
    sys.exit(main())
