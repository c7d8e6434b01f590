"""Triton's ``convert_layout`` lowering tests ported to regcopy layouts, and the table that
compares both lowerings (``python -m regcopy_bench.triton_convert_cases``).

Each case is a ``ttg.convert_layout`` of Triton's ``test/Conversion/tritongpu_to_llvm.mlir``
(blocked, mma, dot-operand, slice and linear layouts), written as the two register layouts
it is in regcopy's notation (each Triton register, lane and warp basis becomes an iter on
the register slot, ``laneid`` or ``warpid``; a zero basis, a replica). ``triton`` is what
Triton's CHECK lines require of its lowering, per thread: shuffles (``nvvm.shfl.sync``),
selects, shared stores + loads (``llvm.store``/``llvm.load``/``ldmatrix`` on shared), barriers
(``nvvm.barrier``/``bar.warp.sync``); ``None`` where the CHECK lines do not pin a number.

``measure`` lowers our side and counts, per thread: ``gpu.shuffle`` and ``arith.select`` of
the conversion, the shared transfers of the round trip (vector stores/loads or ld/stmatrix
instructions), ``gpu.barrier``, and the wavefronts the bank model gives the round trip's two
copies against their ideal.
"""

from __future__ import annotations

import io
import re
import sys
from contextlib import redirect_stderr
from dataclasses import dataclass

from regcopy_passes import LowerRegCopyPass
from xdsl.dialects import arith, gpu, scf, vector
from xdsl.parser import Parser

from regcopy_dialect import regcopy_context
from regcopy_dialect.gpu_shuffle import ShuffleOp
from regcopy_dialect.matrix_ops import LdMatrixOp, StMatrixOp


@dataclass(frozen=True)
class Counts:
    """Per-thread instruction counts of one lowering (``None``: not pinned)."""

    shuffles: int | None = None
    selects: int | None = None
    shared: int | None = None
    barriers: int | None = None
    wavefronts: str = ""


@dataclass(frozen=True)
class TritonCase:
    name: str
    shape: tuple[int, ...]
    dtype: str
    a: str
    b: str
    scope: str
    block: int
    triton: Counts
    note: str = ""


CASES = (
    TritonCase("blocked_blocked_shuffle_swap", (32, 32), "i32", "(32,32):(1,1@laneid)",
               "(2,16,16,2):(16@laneid,2,1@laneid,1)", "warp", 32,
               Counts(32, 64, 0, 0), "32x32 i32: lane column -> 16x2 blocks"),
    TritonCase("blocked_blocked_shuffle_ship", (32, 32), "i32", "(32,32):(1,1@laneid)",
               "(2,16,16,2):(1@laneid,1,2@laneid,16)", "warp", 32,
               Counts(16, None, 0, 0), "same, column-major blocks"),
    TritonCase("blocked_blocked", (32, 32), "f32",
               "(2,2,8,2,4,4):(4,2@warpid,4@laneid,1@warpid,1@laneid,1)",
               "(2,4,4,2,2,8):(1@warpid,1@laneid,1,4,2@warpid,4@laneid)", "cta", 128,
               Counts(0, None, 16, 1), "4 warps, rows of 4 -> columns of 4"),
    TritonCase("blocked_blocked_vec", (32, 32), "f32",
               "(2,2,8,2,4,4):(4,2@warpid,4@laneid,1@warpid,1@laneid,1)",
               "(2,16,2,2,2,4):(2@warpid,2@laneid,4,1@warpid,1@laneid,1)", "cta", 128,
               Counts(0, None, 4, 1), "4 warps, rows of 4 kept, threads re-dealt"),
    TritonCase("blocked_blocked_multi_rep", (32, 32), "f32", "(32,32):(1@laneid,1)",
               "(8,4,4,8):(4@laneid,8,1@laneid,1)", "warp", 32,
               Counts(0, None, 4, 3), "1 warp: rows -> 4x8 blocks (st.v4 + ldmatrix, x2)"),
    TritonCase("transpose_f8", (128, 128), "f8E5M2",
               "(8,4,4,8,16):(16,1@warpid,8@laneid,1@laneid,1)",
               "(8,16,8,4,4):(1@laneid,1,16,1@warpid,8@laneid)", "cta", 128,
               Counts(0, None, 160, 1), "rows of 16 fp8 -> columns of 16"),
    TritonCase("mmav2_blocked", (32, 16), "f32",
               "(2,2,8,2,4,2):(2@warpid,2,4@laneid,1@warpid,1@laneid,1)",
               "(32,4,4):(1@laneid,1@warpid,1)", "cta", 128,
               Counts(0, None, 3, 1), "mma m16n8 accumulator (2x2 warps) -> rows"),
    TritonCase("mmav2_dot_reg", (16, 16), "f16",
               "(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)",
               "(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)", "warp", 32,
               Counts(0, 0, 0, 0), "f16 accumulator -> A operand (same fragment)"),
    TritonCase("mmav3_mmav3", (64, 64), "f16",
               "(4,2,8,8,4,2):(1@warpid,2,4@laneid,4,1@laneid,1)",
               "(4,2,8,8,4,2):(1@warpid,2,4@laneid,4,1@laneid,1)", "cta", 128,
               Counts(0, 0, 0, 0), "wgmma accumulators of two instruction widths"),
    TritonCase("mmav3_transpose_f8", (128, 256), "f8E5M2",
               "(8,2,8,32,4,2):(1@warpid,2,4@laneid,4,1@laneid,1)",
               "(8,16,8,8,4):(1@laneid,1,16,1@warpid,8@laneid)", "cta", 256,
               Counts(0, None, None, 1), "fp8 wgmma accumulator -> columns (8 st.v4 + loads)"),
    TritonCase("blocked1d_to_slice0", (32,), "i32", "32:1@laneid",
               "(8,4):(1@laneid,1), replicate<4:8@laneid>", "warp", 32,
               Counts(0, None, 2, 1), "lane i -> 4 per lane, 4 replicas"),
    TritonCase("blocked1d_to_slice1", (32,), "i32", "32:1@laneid",
               "(8,4):(1,8@laneid), replicate<8:1@laneid>", "warp", 32,
               Counts(0, None, 3, 1), "lane i -> 8 per lane, 8 replicas"),
    TritonCase("linear_multiple_iterations", (8, 4), "bf16",
               "(8,4):(1@warpid,1), replicate<32:1@laneid>",
               "(4,2,2,2):(1@warpid,16@laneid,1,4@warpid), replicate<16:1@laneid>", "cta", 256,
               Counts(0, None, 2, 1), "linear layouts with broadcast lanes"),
)


def kernel_text(c: TritonCase) -> str:
    shape = "x".join(map(str, c.shape))
    ta = f"memref<{shape}x{c.dtype}, #regcopy.layout<{c.a}>, #regcopy.mem<local>>"
    tb = f"memref<{shape}x{c.dtype}, #regcopy.layout<{c.b}>, #regcopy.mem<local>>"
    return (f"func.func @{c.name}() attributes {{regcopy.launch = #regcopy.launch<block = "
            f"{c.block}, grid = [1]>}} {{\n  %a = memref.alloca() : {ta}\n"
            f"  %b = memref.alloca() : {tb}\n"
            f"  regcopy.copy {c.scope} %a -> %b : {ta} -> {tb}\n  func.return\n}}\n")


def measure(c: TritonCase, conversion: str = "auto") -> tuple[str, Counts]:
    """Our lowering of ``c`` (with the pass option ``conversion``): its kind and per-thread
    counts (module doc)."""
    ctx = regcopy_context()
    module = Parser(ctx, kernel_text(c), f"{c.name}.mlir").parse_module()
    err = io.StringIO()
    with redirect_stderr(err):
        LowerRegCopyPass(remarks=True, strict=True, conversion=conversion).apply(ctx, module)
    text = err.getvalue()
    kind = re.search(r"conversion by ([a-z ]+?)(?::| through)", text)
    shared = 0
    for op in module.walk():
        on_shared = isinstance(op, vector.LoadOp | vector.StoreOp) and \
            "shared" in str(op.base.type)
        if on_shared or isinstance(op, LdMatrixOp | StMatrixOp):
            shared += _trips(op)
    waves = re.findall(r"copy %\S+ -> %\S+ in @\S+: [^:]+: (?:no bank conflict|[\d.]+-way bank "
                       r"conflict): (\d+) wavefronts, ideal (\d+)", text)
    wavefronts = " + ".join(f"{w}/{i}" for w, i in waves)
    counts = Counts(sum(isinstance(op, ShuffleOp) for op in module.walk()),
                    sum(isinstance(op, arith.SelectOp) for op in module.walk()), shared,
                    sum(isinstance(op, gpu.BarrierOp) for op in module.walk()), wavefronts)
    return (kind.group(1) if kind else "?"), counts


def _trips(op: object) -> int:
    """How many times ``op`` runs: the product of the constant trip counts of its loops."""
    n = 1
    parent = getattr(op, "parent_op", lambda: None)()
    while parent is not None:
        if isinstance(parent, scf.ForOp):
            lb, ub, step = (getattr(v.owner, "value", None) for v in
                            (parent.lb, parent.ub, parent.step))
            if lb is not None and ub is not None and step is not None:
                n *= -(-(ub.value.data - lb.value.data) // step.value.data)
        parent = parent.parent_op()
    return n


def _cell(v: int | None) -> str:
    return "-" if v is None else str(v)


def table() -> list[str]:
    rows = [("| Triton test (`convert_layout_*`) | case | ours: kind | shfl | sel | shared "
             "ld/st | barriers | wavefronts (got/ideal) | ours, `conversion=shuffle`: shfl / "
             "sel | Triton: shfl | sel | shared ld/st | barriers |"),
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in CASES:
        kind, n = measure(c)
        forced_kind, f = measure(c, "shuffle")
        forced = f"{f.shuffles} / {f.selects}" if forced_kind == "warp shuffles" else \
            ("(renaming)" if forced_kind == "renaming" else "(between warps)")
        t = c.triton
        rows.append(f"| {c.name} | {c.note} | {kind} | {n.shuffles} | {n.selects} | {n.shared} "
                    f"| {n.barriers} | {n.wavefronts or '-'} | {forced} | {_cell(t.shuffles)} | "
                    f"{_cell(t.selects)} | {_cell(t.shared)} | {_cell(t.barriers)} |")
    return rows


if __name__ == "__main__":
    print("\n".join(table()))
    sys.exit(0)
