"""SASS summaries for the benchmarks (NVRTC + nvdisasm, no GPU): instruction kinds of a whole
kernel and of its main loop, to show that a timed kernel is honest (no access hoisted, dropped
or spilled) and whether it is bound by instruction issue rather than by the memory pipe."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from regcopy_backend.runtime.nvrtc import compile_cuda, disassemble

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


def sass_summary(source: str) -> dict[str, Any]:
    """Counts of the SASS instruction kinds that show whether a kernel is honest, in the whole
    kernel and in its main loop (``loop``: instructions, shared accesses, LOP3, SEL)."""
    try:
        sass = disassemble(compile_cuda(source, options=("--diag-suppress=550,549",)).cubin)
    except Exception:  # noqa: BLE001 - no nvdisasm here: the timing still stands
        sass = ""
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
    return out
