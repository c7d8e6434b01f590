#!/usr/bin/env python3
"""Benchmark: compile time of ``lower-reg-copy`` against parsing and printing the module.

    python bench/bench_compile.py [--sizes 200 2000] [--repeats 3]

For each N it generates two modules of N warp copies from a swizzled f16 shared tile into an
mma A fragment (the shared path: bank model, rotation and the ld/stmatrix choice all run):

* ``same``: N identical copies (one layout pair, one offset);
* ``mixed``: the copies cycle over a few distinct register layouts and column offsets.

Each module is parsed, lowered and printed separately, in this process, best of ``repeats``
(a fresh parse before each pass run). The table gives milliseconds per copy for each step
and the pass's time over parse + print. A pass whose per-copy time grows with N walks the
whole module per copy somewhere.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from io import StringIO

from regcopy_passes import lower
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.printer import Printer

from regcopy_dialect.context import regcopy_context

SHARED = "memref<16x64xf16, #regcopy.layout<(16,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>"
LAYOUTS = (
    "(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)",   # mma A fragment (ldmatrix.x4)
    "(2,8,2,4,2):(4,4@laneid,2,1@laneid,1)",   # its registers in another order
    "(8,2,2,4,2):(4@laneid,2,4,1@laneid,1)",   # rows split the other way
    "(16,2,8):(2@laneid,1@laneid,1)",          # 8 contiguous f16 a lane: vector path
)
OFFSETS = (0, 16, 8, 32)


def _local(layout: str) -> str:
    return f"memref<16x16xf16, #regcopy.layout<{layout}>, #regcopy.mem<local>>"


def module_text(n: int, distinct: int = 1) -> str:
    """A kernel with ``n`` shared -> register warp copies cycling over ``distinct`` variants
    (register layout and column offset)."""
    lines = ["func.func @k() attributes {regcopy.launch = #regcopy.launch<block = 32, "
             "grid = [1]>} {",
             f"  %S = memref.alloca() : {SHARED}"]
    for v in range(distinct):
        lines.append(f"  %R{v} = memref.alloca() : {_local(LAYOUTS[v % len(LAYOUTS)])}")
    for i in range(n):
        v = i % distinct
        local = _local(LAYOUTS[v % len(LAYOUTS)])
        lines.append(f"  regcopy.copy warp %S[0, {OFFSETS[v % len(OFFSETS)]}] [16, 16] -> "
                     f"%R{v} : {SHARED} -> {local}")
    lines += ["  func.return", "}"]
    return "\n".join(lines) + "\n"


def _parse(text: str) -> ModuleOp:
    return Parser(regcopy_context(), text).parse_module()


def _print(module: ModuleOp) -> str:
    out = StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def _best(repeats: int, setup: Callable[[], object], step: Callable[[object], object]
          ) -> float:
    """Best wall time of ``step(setup())`` in seconds (setup not timed)."""
    best = float("inf")
    for _ in range(repeats):
        arg = setup()
        t0 = time.perf_counter()
        step(arg)
        best = min(best, time.perf_counter() - t0)
    return best


def measure(n: int, distinct: int, repeats: int) -> tuple[float, float, float]:
    """Seconds to parse, lower and print a module of ``n`` copies (best of ``repeats``)."""
    text = module_text(n, distinct)
    parse = _best(repeats, lambda: text, lambda t: _parse(str(t)))
    run = _best(repeats, lambda: _parse(text), lambda m: lower(m))  # type: ignore[arg-type]
    lowered = lower(_parse(text))
    printed = _best(repeats, lambda: lowered, lambda m: _print(m))  # type: ignore[arg-type]
    return parse, run, printed


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[200, 2000])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    print(f"{'module':>8} {'copies':>6} {'parse':>9} {'pass':>9} {'print':>9} "
          f"{'pass/(parse+print)':>19}   (ms/copy)")
    for n in args.sizes:
        for name, distinct in (("same", 1), ("mixed", 4)):
            parse, run, printed = measure(n, distinct, args.repeats)
            ms = [1e3 * t / n for t in (parse, run, printed)]
            print(f"{name:>8} {n:>6} {ms[0]:>9.3f} {ms[1]:>9.3f} {ms[2]:>9.3f} "
                  f"{run / (parse + printed):>19.2f}")


if __name__ == "__main__":
    main()
