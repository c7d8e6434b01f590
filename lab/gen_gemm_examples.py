"""Write examples/gemm.mlir, examples/gemm_any_k.mlir and examples/pad_rows.mlir: their header comments (kept here)
and the kernels of ``regcopy_bench.gemm_kernels`` (test_gemm_example checks they agree).

    python3 lab/gen_gemm_examples.py
"""

import textwrap
from pathlib import Path

from regcopy_bench import gemm_kernels as gk
from regcopy_bench.gemm_kernels import kernel_text
from regcopy_bench.gemm_side import pad_kernel_text

REPO = Path(__file__).resolve().parents[1]
EPILOGUE_WORDS = {"shared": "stmatrix + 128-bit epilogue",
                  "convert": "epilogue converting the accumulators to 128-bit rows"}
"""How the any-K example's header names the epilogue it shares with examples/gemm.mlir."""


def gemm_header() -> str:
    """The header comment of examples/gemm.mlir, for the example's shape (``gemm_kernels``'
    defaults: CTA tile, ring, where the copies issue, prefetching, epilogue)."""
    cm, bk, stages = gk.CTA_M, gk.BK, gk.STAGES
    cn = gk.cta_n(gk.WARP_N, cm)
    wm, wn = cm // 64, gk.WARPS // (cm // 64)
    steps, ahead = bk // 16, stages - 1
    k16 = ", ".join(str(16 * i) for i in range(steps))
    first = ", ".join(str(i) for i in range(ahead))
    if gk.BRANCHLESS:
        issue = (f"starts stage k+{ahead} into stage k-1's slot, with no branch: past the end "
                 "of K its chunks read nothing and zero-fill a slot no step reads, so ptxas "
                 "interleaves their address math and bounds checks with the HMMAs")
    else:
        issue = (f"starts stage k+{ahead} into stage k-1's slot in a branch taken while "
                 "stages remain")
    where = {0: "before any k16 step", 1: "after the first k16 step"}.get(
        gk.ISSUE_AT, f"after the first {gk.ISSUE_AT} k16 steps")
    hmma = (f"{32 * steps} HMMA, {8 * steps} LDSM and 12 LDGSTS a thread per {bk}-wide K "
            "tile")
    prologue = f"The prologue starts stages {first}"
    if gk.PREFETCH and gk.EDGE:
        items = [f"{where}, {issue};",
                 f"{steps} k16 steps (k16 = {k16}): each copies its 64 x 16 A and B slices from "
                 "stage k into the m16n8k16 fragments %FA, %FB (ldmatrix.x4, 4 each) and runs "
                 "regcopy.mma (32 mma.sync.m16n8k16 a warp, HMMA.16816.F32), except the first, "
                 "whose fragments %FA1, %FB1 the previous iteration loaded; the last step, "
                 "after its ldmatrix, waits for its own copies of stage k+1 (pending = "
                 f"{ahead - 1}), meets the CTA at the barrier (stage k+1 has landed everywhere; "
                 "every warp is done reading stage k) and loads stage k+1's first fragments "
                 "into %FA1, %FB1 before its mma, which then covers the barrier and that "
                 f"ldmatrix: {hmma}."]
        prologue += ", waits for stage 0 and loads its first fragments"
    elif gk.PREFETCH:
        items = [f"{where}, {issue};",
                 f"{steps} k16 steps (k16 = {k16}), fragments double-buffered (%FA/%FB, "
                 "%FA1/%FB1): each step loads the next step's fragments (ldmatrix.x4, 4 each) "
                 "before its own regcopy.mma (32 mma.sync.m16n8k16 a warp); the last one first "
                 f"waits for stage k+1 (pending = {ahead - 1}), meets the CTA at the barrier and "
                 f"loads stage k+1's first fragments: {hmma}."]
        prologue += ", waits for stage 0 and loads its first fragments"
    else:
        items = [f"waits for its own copies of stage k (pending = {ahead - 1}) and meets the "
                 "other threads at a barrier (stage k has landed everywhere; every warp is done "
                 "reading stage k-1);",
                 f"{steps} times (k16 = {k16}): copies its 64 x 16 A slice and 64 x 16 B slice "
                 "from stage k into the m16n8k16 fragments %FA, %FB (ldmatrix.x4, 4 each) and "
                 "runs regcopy.mma: 32 mma.sync.m16n8k16 a warp (HMMA.16816.F32), so "
                 f"{hmma};",
                 f"{where}, {issue}."]
    loop = "\n".join(textwrap.fill(item, 95, initial_indent=f"//   {i}. ",
                                    subsequent_indent="//      ")
                      for i, item in enumerate(items, 1))
    loop += "\n" + textwrap.fill(prologue + ".", 95, initial_indent="// ",
                                  subsequent_indent="// ")
    if gk.EPILOGUE == "convert":
        epilogue = """// into %CO (the same fragment layout), and each warp converts its 64 x 64 tile into rows
// of 128-bit chunks (%RW, regcopy.copy between two register tiles: lane 4g + q gets the
// whole n8 tile 4j + q of its row, words moving only within quads of lanes by warp
// shuffles, no shared memory) and stores them with 128-bit stores: bounds-checked against M
// and N, and where N is not a multiple of 8 (rows not 16-byte aligned), each 16-byte vector
// is stored realigned as its aligned pieces (one branch per misalignment)."""
    else:
        epilogue = f"""// into %CO (the same fragment layout), writes it to shared memory with stmatrix, and the
// CTA copies the {cm} x {cn} tile out through registers in 128-bit rows: bounds-checked
// against M and N, and where N is not a multiple of 8 (rows not 16-byte aligned), each
// 16-byte vector is stored realigned as its aligned pieces (one branch per misalignment)."""
    return f"""// A whole GEMM on the tensor cores: D[M,N] = A[M,K] * B[N,K]^T ("TN": A row-major M x K, B
// row-major N x K, both K-major: mma.sync's .row.col operand form), f32 accumulation, D
// rounded to the input type. Two kernels, identical but for the element type: @gemm (f16) and
// @gemm_bf16 (bf16). M, N and K are runtime extents (one compiled kernel for every size),
// ragged in all three: K is promised a multiple of 8 (16-byte rows, so every cp.async moves
// 16 bytes), M and N nothing. Launch with ceil(N / {cn}) x ceil(M / {cm}) CTAs (--grid). K of
// any length (odd: rows not 16-byte aligned): examples/pad_rows.mlir, then this kernel, or
// examples/gemm_any_k.mlir.
//   regcopy-run --check examples/gemm.mlir --arg A=40x24 --arg B=72x24 --arg D=40x72 --grid 1,1
//
// One CTA ({32 * gk.WARPS} threads = {gk.WARPS} warps as {wm} (M) x {wn} (N)) computes a {cm} x {cn} tile of D
// (the CTAs walk the tiles in groups of 8 M tiles, for L2 reuse); each warp a 64 x 64 tile,
// in registers: %C, 4 x 8 m16n8 accumulator fragments (128 f32 a lane). K is walked in
// {bk}-wide tiles through a {stages}-stage ring of A ({cm} x {bk}) and B ({cn} x {bk}) tiles in dynamic
// shared memory whose layouts the compiler chooses (#regcopy.layout<auto>: swizzled, so the
// cp.async writes and the ldmatrix reads are free of bank conflicts). The slot of stage k,
// k / {bk} mod {stages}, is carried from one iteration to the next (%stage: no division in the
// loop); iteration k
{loop}
// After the loop every copy has landed (async_wait, pending = 0) before the epilogue.
// A CTA with at most {gk.EDGE_COLS} columns of D left (the last column of CTAs where N is 1..{gk.EDGE_COLS} past
// a multiple of {cn}) runs the same ring with {gk.EDGE_COLS} rows of B a slot and 64 x {gk.EDGE_COLS} warp tiles
// (%FBE, %CE): the column costs its A loads, not a whole tile of mma.sync.
// A chunk past M, N or K reads nothing and lands as zeros (cp.async zero-fill), so the edge
// tiles multiply zeros there. The epilogue rounds %C to the input type (cvt.rn, two a word)
{epilogue}
//
// Fragment layouts (PTX ISA, g = lane / 4, c = lane % 4; see docs/mma.md):
//   %FA 64 x 16: 4 m16 tiles of the A fragment (2,8,2,4,2):(2,4@laneid,4,1@laneid,1), register
//       8 * mi + i;  %FB 64 x 16 (N x K): 8 n8 tiles of the B fragment
//       (8,2,4,2):(4@laneid,2,1@laneid,1), register 4 * ni + i;  %C 64 x 64: 4 x 8 tiles of
//       the C fragment (2,8,4,2):(2,4@laneid,1@laneid,1), register 32 * mi + 4 * ni + i.
"""


ANY_K_HEADER_FORMAT = "// The GEMM of examples/gemm.mlir for K of any length: @gemm_any_k (f16) and @gemm_any_k_bf16.\n// With K odd no operand row starts 16-byte aligned, and cp.async has no width for such rows,\n// so each 32-wide K tile goes global -> registers -> shared (two slots), its global loads\n// issued one tile ahead so that they fly while the warps compute on the previous tile. The\n// register tiles put a warp along a row (32 consecutive elements an instruction): 16-bit\n// loads, the widest that rows of odd length allow, each warp instruction reading 64\n// contiguous bytes, and 16-bit shared stores. Everything else (ldmatrix.x4\n// fragments, regcopy.mma on 64 x 64 warp tiles, the {EPILOGUE_WORDS[gk.EPILOGUE]}) is\n// examples/gemm.mlir's. The other route for odd K pads the rows of A and B first\n// (examples/pad_rows.mlir) and runs examples/gemm.mlir. Launch with ceil(N / 256) x\n// ceil(M / 128) CTAs:\n//   regcopy-run --check examples/gemm_any_k.mlir --arg A=40x37 --arg B=72x37 --arg D=40x72 --grid 1,1\n"

PAD_HEADER = """// Row padding for a GEMM of any K: Y[r, c] = X[r, c] for c < K, 0 for K <= c < K8, where K8
// is K rounded up to a multiple of 8 (promised on Y). With K odd no row of X starts 16-byte
// aligned and cp.async cannot read it; after this copy every row of Y does, and the GEMM of
// examples/gemm.mlir runs on the padded A and B (the zero columns add nothing). regcopy
// lowers the copy with its ragged-edge machinery: the read is bounds-checked against K
// (zeros past it) and versioned on K % 8 (128-bit loads when the rows are aligned, 16-bit
// ones otherwise, which the L1 merges per line), the write is 128-bit. @pad_rows (f16) and
// @pad_rows_bf16; launch with ceil(K8 / 256) x ceil(R / 32) CTAs:
//   regcopy-run --check examples/pad_rows.mlir --arg X=40x37 --arg Y=40x40 --grid 1,2
"""


def main() -> None:
    (REPO / "examples" / "gemm.mlir").write_text(
        gemm_header() + kernel_text("gemm", "f16") + "\n" + kernel_text("gemm_bf16", "bf16"))
    (REPO / "examples" / "gemm_any_k.mlir").write_text(
        ANY_K_HEADER_FORMAT.replace("{EPILOGUE_WORDS[gk.EPILOGUE]}",
                                    EPILOGUE_WORDS[gk.EPILOGUE]) + kernel_text("gemm_any_k", "f16", True, "columns") + "\n"
        + kernel_text("gemm_any_k_bf16", "bf16", True, "columns"))
    (REPO / "examples" / "pad_rows.mlir").write_text(
        PAD_HEADER + pad_kernel_text("pad_rows", "f16") + "\n"
        + pad_kernel_text("pad_rows_bf16", "bf16"))


if __name__ == "__main__":
    main()
