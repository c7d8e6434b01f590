"""SASS of runtime-shaped kernels in both index widths (no GPU): the main loop of the mma.sync
GEMM (examples/gemm.mlir's kernel, ``bench_gemm``'s generator) and the whole small-N ragged
copy kernels of ``bench_ragged`` (no loop: each thread's rows are unrolled), by instruction
class, as printed (64-bit ``rc_index``) and compiled with ``-DREGCOPY_INDEX32``.

    python3 lab/index32_sass.py
"""

from __future__ import annotations

from collections import Counter

from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
from regcopy_backend.cuda.types import INDEX32_OPTION
from regcopy_bench.sass_loops import main_loop, sass_ops

CLASSES = {
    "mma": ("HMMA",),
    "memory": ("LDG", "STG", "LDS", "STS", "LDSM", "STSM", "LDGSTS", "LDGDEPBAR", "DEPBAR"),
    "imad": ("IMAD",),
    "iadd/lea": ("IADD3", "LEA", "VIADD", "IADD"),
    "compare/select": ("ISETP", "SEL", "PLOP3", "FSEL"),
    "logic/shift": ("LOP3", "SHF", "PRMT", "SGXT", "BMSK"),
    "move": ("MOV", "S2R", "S2UR", "CS2R", "R2UR", "ULDC", "LDC"),
    "uniform": ("UIADD3", "UMOV", "ULEA", "UIMAD", "USHF", "ULOP3", "UISETP", "USEL"),
    "branch/barrier": ("BRA", "BAR", "BSYNC", "BSSY", "EXIT", "WARPSYNC", "NOP"),
}


def classify(ops: list[str]) -> Counter[str]:
    """Instructions by class (``CLASSES``; the rest as ``other``), and ``IMAD.WIDE``/``.X``
    (64-bit address math) apart."""
    out: Counter[str] = Counter()
    for op in ops:
        head = op.split(".")[0]
        out[next((k for k, v in CLASSES.items() if head in v), "other")] += 1
        if (head == "IMAD" and (".WIDE" in op or ".X" in op)) or op.startswith("IADD3.X") \
                or op.startswith("LEA.HI.X"):
            out["64-bit pairs (.WIDE/.X)"] += 1
    return out


def row(label: str, ops: list[str]) -> str:
    c = classify(ops)
    listed = ", ".join(f"{k} {n}" for k, n in sorted(c.items(), key=lambda kv: -kv[1]))
    return f"{label}: {len(ops)} instructions: {listed}"


def sass_of(source: str, index32: bool) -> str:
    options = (INDEX32_OPTION,) if index32 else ()
    return disassemble(compile_cuda(source, options=options).cubin)


def gemm() -> list[str]:
    from regcopy_bench.bench_gemm import kernel_text, lowered

    source, _ = lowered("gemm", "f16", False, text=kernel_text("gemm", "f16"))
    lines = []
    for index32 in (False, True):
        loop = main_loop(sass_ops(sass_of(source, index32)))
        lines.append(row(f"gemm main loop (one 64-wide K tile), {32 if index32 else 64}-bit",
                         loop))
    return lines


def ragged() -> list[str]:
    from regcopy_bench.bench_ragged import FITTED, NARROW, lowered

    lines = []
    for tile in (*FITTED, NARROW):
        source, _ = lowered(tile, False)
        for index32 in (False, True):
            ops = [o for _, o, _ in sass_ops(sass_of(source, index32)) if o != ":"]
            lines.append(row(f"ragged {tile.rows}x{tile.cols} {tile.dtype} versioned kernel, "
                             f"{32 if index32 else 64}-bit", ops))
    return lines


if __name__ == "__main__":
    for line in gemm() + ragged():
        print(line)
