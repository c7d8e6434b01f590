"""Every GEMM candidate's SASS in both index forms (this machine's NVRTC, no GPU): LDL/STL in
the kernel, registers, and the main loop's size and HMMA/LDSM/LDGSTS counts.

    python3 lab/pref/sass_candidates.py [NAME_SUBSTRING ...]
"""

from __future__ import annotations

import re
import sys
from collections import Counter

from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
from regcopy_bench.gemm_build import lowered
from regcopy_bench.gemm_kernels import CANDIDATES, candidate_text
from regcopy_bench.sass_loops import main_loop, sass_ops


def summary(source: str, options: tuple[str, ...]) -> str:
    """``LDL/STL n, loop k instructions (HMMA h, LDSM l, LDGSTS g, other o)``."""
    sass = disassemble(compile_cuda(source, options=options).cubin)
    local = len(re.findall(r"\b(?:LDL|STL)\b", sass))
    loop = main_loop(sass_ops(sass), len)
    heads = Counter(o.split(".")[0] for o in loop)
    other = len(loop) - heads["HMMA"] - heads["LDSM"] - heads["LDGSTS"]
    return (f"LDL/STL {local:2d}, loop {len(loop)} (HMMA {heads['HMMA']}, LDSM {heads['LDSM']}, "
            f"LDGSTS {heads['LDGSTS']}, other {other})")


def main(filters: list[str]) -> None:
    for name, kw in CANDIDATES.items():
        if filters and not any(f in name for f in filters):
            continue
        source, _ = lowered("gemm", "f16", False, text=candidate_text("gemm", "f16", kw))
        print(name)
        print("  64-bit:", summary(source, ()))
        print("  32-bit:", summary(source, ("-DREGCOPY_INDEX32",)))


if __name__ == "__main__":
    main(sys.argv[1:])
