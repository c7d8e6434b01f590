"""SASS summaries for the benchmarks (NVRTC + nvdisasm, no GPU): instruction kinds of a whole
kernel and of its main loop, to show that a timed kernel is honest (no access hoisted, dropped
or spilled) and whether it is bound by instruction issue rather than by the memory pipe."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble

SASS_KINDS = ("LDS", "STS", "LOP3", "SEL", "LDL", "STL", "BRA", "BAR")
SASS_LINE = re.compile(r"^\s+/\*([0-9a-f]+)\*/\s+(?:@!?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")
LABEL = re.compile(r"^(\.L_x_\d+):")


def sass_ops(sass: str) -> list[tuple[int, str, str]]:
    """``(address, opcode, operands)`` of every instruction, labels as ``(address, ':', name)``."""
    out: list[tuple[int, str, str]] = []
    address = 0
    for line in sass.splitlines():
        label = LABEL.match(line)
        if label:
            out.append((address, ":", label.group(1)))
            continue
        m = SASS_LINE.match(line)
        if m:
            address = int(m.group(1), 16)
            out.append((address, m.group(2), m.group(3)))
    return out


def main_loop(ops: list[tuple[int, str, str]],
              rank: Callable[[list[str]], int] | None = None) -> list[str]:
    """Opcodes of the loop (a backward ``BRA`` to a label) that ``rank`` scores highest: by
    default the one with the most shared accesses (``len`` picks the longest)."""
    score = _shared if rank is None else rank
    labels = {name: i for i, (_, op, name) in enumerate(ops) if op == ":"}
    best: list[str] = []
    for i, (_, op, args) in enumerate(ops):
        target = re.search(r"\((\.L_x_\d+)\)", args) if op == "BRA" else None
        if target is None or labels.get(target.group(1), i) >= i:
            continue
        body = [o for _, o, _ in ops[labels[target.group(1)]:i + 1] if o != ":"]
        if score(body) > score(best):
            best = body
    return best


def _shared(ops: list[str]) -> int:
    return sum(1 for o in ops if o.split(".")[0] in ("LDS", "STS", "LDSM", "STSM"))


MATRIX = {"LDSM": "LDS", "STSM": "STS"}
"""ldmatrix/stmatrix count as shared loads/stores (their widths show which)."""


PIPES: dict[str, str] = {
    **dict.fromkeys(("LOP3", "LOP", "IADD3", "LEA", "SEL", "ISETP", "SHF", "PRMT", "IMNMX",
                     "PLOP3", "MOV", "FSEL", "FSETP", "FMNMX", "I2FP", "BMSK", "SGXT", "IABS",
                     "VIADD"), "alu"),
    "IMAD": "fmaheavy",
    **dict.fromkeys(("FADD", "FMUL", "FFMA", "HADD2", "HMUL2", "HFMA2"), "fma"),
}
"""The execution pipe of the SASS opcodes a benchmark loop uses (opcode up to the first dot),
as on sm_90, per SM and clock: ``alu`` (integer/logic, 64 lanes: ``LOP3``, ``IADD3``,
``SEL``, ``LEA``, …), ``fmaheavy`` (64 lanes: ``IMAD`` in all its forms), ``fma`` (FP32
add/mul/fma, 128 lanes over the heavy and the lite half). ``VIADD`` and ``I2FP`` are counted
on ``alu`` (the conservative guess). Everything else (shared accesses, branches, barriers,
uniform-datapath ops) takes only an issue slot here."""

PEAK_BUDGET: dict[str, float] = {"issue": 4, "alu": 2, "fmaheavy": 2, "fma": 4}
"""Warp instructions an SM can issue or execute per clock of the shared pipe at its peak (one
wavefront, 128 bytes, a clock): 4 schedulers; 64 lanes a clock on the integer pipe and on
the FMA pipe's heavy half (``IMAD``); 128 on the FMA pipe as a whole (``fma`` counts ``IMAD``
too). A conflict-free 128-bit access takes 4 clocks: 16 issue slots, 8 integer and 8 ``IMAD``
instructions."""


def shared_clocks(op: str) -> int:
    """Clocks of the shared pipe that a conflict-free warp-wide access ``op`` takes at the
    peak: its bytes over 128, at least one (``LDS.128``: 4, ``LDS.64``: 2, ``LDS``: 1;
    ``LDSM``/``STSM`` ``.4``/``.2``/``.1``: 4/2/1)."""
    parts = op.split(".")
    if MATRIX.get(parts[0], parts[0]) not in ("LDS", "STS"):
        return 0
    if parts[0] in MATRIX:
        return int(parts[-1]) if parts[-1] in ("1", "2", "4") else 4
    bits = next((int(p) for p in parts[1:] if p.isdigit()), 32)
    return max(1, bits * 32 // 8 // 128)


def pipe_estimate(loop: list[str], accesses: int | None = None) -> tuple[float, str]:
    """``(fraction of the shared peak, binding resource)`` that a loop of these opcodes can
    reach if issue slots and pipes were the only limits: ``min(1, budget * clocks / use)``
    over ``PEAK_BUDGET``, ``clocks`` the shared-pipe clocks of its accesses at the peak
    (``shared_clocks``). An upper bound: latency, dependences and scheduling cost more.
    ``accesses`` is unused (kept for callers that pass the access count)."""
    clocks = sum(shared_clocks(o) for o in loop)
    if not clocks:
        return 0.0, "no access"
    use = Counter(PIPES.get(o.split(".")[0]) for o in loop)
    per = {"issue": len(loop), "alu": use["alu"], "fmaheavy": use["fmaheavy"],
           "fma": use["fmaheavy"] + use["fma"]}
    bound, what = 1.0, "shared"
    for name, count in per.items():
        if count and PEAK_BUDGET[name] * clocks / count < bound:
            bound, what = PEAK_BUDGET[name] * clocks / count, name
    return bound, what


SUMMARY_OPTIONS = ("--diag-suppress=550,549",)
"""The NVRTC options of the benchmark kernels whose SASS ``sass_summary`` reads."""


def sass_summary(source: str) -> dict[str, Any]:
    """Counts of the SASS instruction kinds that show whether a kernel is honest, in the whole
    kernel and in its main loop (``listing_summary`` of the kernel's SASS)."""
    try:
        sass = disassemble(compile_cuda(source, options=SUMMARY_OPTIONS).cubin)
    except Exception:  # noqa: BLE001 - no nvdisasm here: the timing still stands
        sass = ""
    return listing_summary(sass)


def listing_summary(sass: str) -> dict[str, Any]:
    """Counts of the SASS instruction kinds of a one-kernel listing, in the whole kernel and
    in its main loop (``loop``: instructions, shared accesses, LOP3, SEL; its opcodes
    ``loop_ops``; ``estimate``: the loop's ``pipe_estimate``)."""
    listing = sass_ops(sass)
    ops = Counter(o for _, o, _ in listing if o != ":")
    out: dict[str, Any] = {k: 0 for k in SASS_KINDS}
    widths: Counter[str] = Counter()
    for op, c in ops.items():
        head = MATRIX.get(op.split(".")[0], op.split(".")[0])
        if head in out:
            out[head] += c
        if head in ("LDS", "STS"):
            widths[op] += c
    out["total"] = sum(ops.values())
    out["widths"] = dict(widths)
    loop = main_loop(listing)
    heads = Counter(MATRIX.get(o.split(".")[0], o.split(".")[0]) for o in loop)
    out["loop"] = (len(loop), heads["LDS"] + heads["STS"], heads["LOP3"], heads["SEL"])
    out["loop_ops"] = loop
    out["estimate"] = pipe_estimate(loop)
    return out
