#!/usr/bin/env python3
"""The shared-memory bank model against the hardware: wavefronts counted by Nsight Compute.

    python3 lab/ncu/ncu_banks.py [--cases 120] [--seed 17] [--ncu PATH] [--timing]
    python3 lab/ncu/ncu_banks.py --cpu          # no GPU: generate, lower, compile, predict

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
(``Transfer.bank_report``: the one bank model of ``regcopy_passes.core.banks``, for the transfer and
lane rotation the pass chose). The all-ops counter's excess over ``op_ld + op_st`` in kernels
without matrix ops is a per-kernel baseline (``baseline_rest``), taken off before a matrix
side is read from that counter. Hand-written control kernels (``ncu_controls.py``: none, a
barrier, one 32-bit access, ldmatrix/stmatrix ``.x1/.x2/.x4``, twice, 8-way) are profiled
with the cases, and a second, smaller ncu run collects more counters (``op_ldsm``, the
per-SASS-instruction ``smsp__sass_*`` ones) for the controls and a few cases. It prints one
agreement table (by family and direction; model disagreements apart from kernels whose SASS
is not as planned), every disagreeing case with its raw counters and shared SASS, what the
controls say, and writes every kernel's counters to ``--raw`` (``$OUT/ncu_banks_raw.tsv``).
``ncu`` needs access to the GPU's performance counters; where it
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
from regcopy_passes.core.dispatch import Rejected
from regcopy_passes.lower_reg_copy import LowerRegCopyPass, plan_for
from xdsl.parser import Parser

# Sibling modules by name: lab/ncu is on sys.path as the script's own directory when this
# runs as `python3 lab/ncu/ncu_banks.py`, and through lab/tests/conftest.py under its tests.
from ncu_controls import PREFIX as CTL_PREFIX
from ncu_controls import controls
from ncu_report import (  # noqa: F401 - re-exported
    EXTRA_METRICS, LDSM, METRICS, attribute, baseline_rest, report, rest_of)
from ncu_timing import timed_source, timing  # noqa: F401 - re-exported

EXTRA_RUN_SECONDS = 150
"""The second ncu run is given up after this long (the whole script must stay under 8 min)."""
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
        return BankCase("cols", dtype, (k, 32), f"({k},32):(1,1@laneid)", (k, pitch))
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
    sass_ops: str = ""
    """The kernel's shared and barrier SASS instructions (``sass_shared_ops``), where known."""

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


SASS_SHARED_ANY = re.compile(
    r"\b((?:LDS|STS|LDSM|STSM|ATOMS|BAR|MEMBAR|LDGSTS|SYNCS|UBLKCP|UTMA\w*)(?:\.[A-Z0-9_.]+)?)\b")


def sass_shared_ops(sass: str) -> str:
    """Every shared-memory (or barrier) instruction of a kernel's SASS with its count, in
    order of first use: ``STS.U16 x16, BAR.SYNC.DEFER_BLOCKING x1, LDS.U16 x16``."""
    counts: dict[str, int] = {}
    for m in SASS_SHARED_ANY.finditer(sass):
        counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    return ", ".join(f"{k} x{v}" for k, v in counts.items()) or "none"


def cpu_check(planned: Sequence[Planned]) -> int:
    """Compile every kernel with NVRTC; compare its SASS's shared instructions with the plan."""
    from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble

    bad = 0
    for p in planned:
        sass = disassemble(compile_cuda(p.source).cubin)
        p.sass, p.sass_ops = got, _ = sass_shared(sass), sass_shared_ops(sass)
        want = (p.load.instructions, p.store.instructions)
        if got != want:
            bad += 1
            print(f"{p.name}: SASS has {got[0]} shared loads / {got[1]} stores, the plan "
                  f"{want[0]} / {want[1]}: {p.case.describe()}")
    print(f"{len(planned) - bad}/{len(planned)} kernels compile with the planned shared "
          "instruction counts")
    for c in controls():
        sass = disassemble(compile_cuda(c.source()).cubin)
        if sass_shared(sass) != c.instructions:
            bad += 1
            print(f"{c.name}: SASS {sass_shared_ops(sass)}, wanted {c.instructions[0]} "
                  f"shared loads / {c.instructions[1]} stores")
    print(f"{len(controls())} control kernels compiled")
    return 0 if bad == 0 else 1


# ---- ncu: launching and parsing -------------------------------------------------------------


def kernel_sources(planned: Sequence[Planned]) -> dict[str, str]:
    """Every kernel ncu profiles by name: the cases' and the controls' (``ncu_controls``)."""
    return {**{p.name: p.source for p in planned},
            **{c.name: c.source() for c in controls()}}


def launch_all(planned: Sequence[Planned], only: Sequence[str] | None = None) -> None:
    """Compile and launch every kernel (or those named in ``only``) once: what ncu
    profiles."""
    from regcopy_backend.runtime.runner import compile_kernel, cuda_core, get_device

    core, dev = cuda_core(), get_device()
    stream = dev.create_stream()
    buf_in, buf_out = dev.allocate(1 << 16, stream=stream), dev.allocate(1 << 16, stream=stream)
    config = core.LaunchConfig(grid=(1, 1, 1), block=(32, 1, 1))
    for name, source in kernel_sources(planned).items():
        if only is not None and name not in only:
            continue
        kernel = compile_kernel(dev, source, name)
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
        for metric in METRICS + EXTRA_METRICS:
            if metric in row and (value := number(row[metric] or "")) is not None:
                out.setdefault(name, {})[metric] = value
    return out


def known_metrics(ncu: str, wanted: Sequence[str]) -> list[str]:
    """Those of ``wanted`` this ncu can collect on this GPU (``ncu --query-metrics``, by base
    name); none if the query fails (the core ``METRICS`` are asked for regardless)."""
    try:
        proc = subprocess.run([ncu, "--query-metrics"], capture_output=True, text=True,
                              timeout=120)
    except (OSError, subprocess.SubprocessError):
        return []
    names = set(re.findall(r"^\s*([a-z0-9_]+__[a-z0-9_]+)", proc.stdout, re.MULTILINE))
    return [m for m in wanted if m.rsplit(".", 1)[0] in names]


def run_ncu(ncu: str, args: argparse.Namespace, metrics: Sequence[str],
            only: Sequence[str] | None = None, timeout: float | None = None) -> str | None:
    """Run this script's ``--launch`` mode under ncu (every case and control, or those in
    ``only``) collecting ``metrics``; its CSV log, or None if ncu failed or took longer than
    ``timeout`` seconds."""
    names = f"({'|'.join(only)})$" if only else f"({PREFIX}|{CTL_PREFIX})"
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "ncu.csv")
        cmd = [ncu, "--csv", "--log-file", log, "--metrics", ",".join(metrics),
               "--kernel-name", f"regex:^{names}", sys.executable, os.path.abspath(__file__),
               "--launch", "--cases", str(args.cases), "--seed", str(args.seed)]
        if only:
            cmd += ["--only", ",".join(only)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            print(f"ncu took longer than {timeout:g} s: left out", file=sys.stderr)
            return None
        text = open(log).read() if os.path.exists(log) else ""
        if proc.returncode != 0 or "ERR_NVGPUCTRPERM" in text + proc.stdout + proc.stderr:
            print(f"ncu failed (exit {proc.returncode}):\n{(proc.stdout + proc.stderr)[-2000:]}"
                  f"\n{text[-1000:]}", file=sys.stderr)
            return None
        return text


# ---- main -----------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=120)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--ncu", default=os.environ.get("NCU", NCU))
    ap.add_argument("--cpu", action="store_true", help="no GPU: lower, compile, predict")
    ap.add_argument("--timing", action="store_true", help="clock64 timing instead of ncu")
    ap.add_argument("--launch", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--only", help=argparse.SUPPRESS)
    ap.add_argument("--csv", action="append",
                    help="parse this ncu CSV instead of running ncu (repeatable)")
    ap.add_argument("--raw", default=(os.path.join(os.environ["OUT"], "ncu_banks_raw.tsv")
                                      if os.environ.get("OUT") else None),
                    help="write every kernel's counters and shared SASS here "
                         "(default: $OUT/ncu_banks_raw.tsv when $OUT is set)")
    ap.add_argument("--no-extra", action="store_true",
                    help="skip the second ncu run (the extra counters of a few kernels)")
    args = ap.parse_args(argv)
    planned = list(generate(args.cases, args.seed))
    if args.launch:
        launch_all(planned, args.only.split(",") if args.only else None)
        return 0
    print(f"{len(planned)} cases (seed {args.seed})")
    if args.cpu:
        for p in planned:
            print(f"{p.name}: store {p.store.kind} {p.store.wavefronts}/{p.store.ideal}, load "
                  f"{p.load.kind} {p.load.wavefronts}/{p.load.ideal}: {p.case.describe()}")
        return cpu_check(planned)
    if args.timing:
        return timing(planned)
    texts: list[str] = []
    if args.csv:
        texts = [open(path).read() for path in args.csv]
    else:
        ncu = args.ncu if os.path.exists(args.ncu) else shutil.which("ncu")
        text = run_ncu(ncu, args, METRICS) if ncu else None
        if text is None:
            print("ncu could not count wavefronts: falling back to clock64 timing")
            return timing(planned)
        texts.append(text)
    try:
        from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble

        for p in planned:
            sass = disassemble(compile_cuda(p.source).cubin)
            p.sass, p.sass_ops = sass_shared(sass), sass_shared_ops(sass)
    except Exception as e:  # noqa: BLE001 - no nvdisasm: the table without SASS counts
        print(f"(no SASS counts: {e})")
    measured = parse_ncu_csv(texts[0])
    for p in planned:
        p.measured = measured.get(p.name, {})
    if not args.csv and not args.no_extra:
        extra = known_metrics(ncu, EXTRA_METRICS)
        names = extra_run_kernels(planned)
        print(f"second ncu run: {len(extra)} more counters ({', '.join(extra) or 'none known'})"
              f" on {len(names)} kernels")
        if extra and (text := run_ncu(ncu, args, METRICS + tuple(extra), names,
                                              timeout=EXTRA_RUN_SECONDS)):
            texts.append(text)
    if os.environ.get("OUT") and not args.csv:
        for i, text in enumerate(texts):
            with open(os.path.join(os.environ["OUT"], f"ncu_banks_run{i + 1}.csv"), "w") as f:
                f.write(text)
    for text in texts[1:]:
        for name, m in parse_ncu_csv(text).items():
            measured.setdefault(name, {}).update(m)
    for p in planned:
        p.measured = measured.get(p.name, {})
    return report(planned, measured, args.raw)


def extra_run_kernels(planned: Sequence[Planned], matrix: int = 12, vector: int = 8,
                      off: int = 12) -> list[str]:
    """The kernels of the second ncu run: every control, the first ``matrix`` cases with an
    ldmatrix/stmatrix side, ``vector`` per-thread cases issued as planned and the first
    ``off`` others that disagree (after the baseline) — kept few, the extra counters cost
    replay passes."""
    base = baseline_rest(planned)
    mat = [p.name for p in planned if "vector" not in (p.load.kind, p.store.kind)][:matrix]
    vec = [p.name for p in planned
           if p.load.kind == p.store.kind == "vector" and not p.sass_differs][:vector]
    odd = [p.name for p in planned if p.name not in mat and (got := attribute(p, base))
           and (round(got[0]), round(got[1])) != (p.load.wavefronts, p.store.wavefronts)][:off]
    return [c.name for c in controls()] + mat + vec + odd


if __name__ == "__main__":
    sys.exit(main())
