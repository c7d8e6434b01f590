"""Write examples/gemm.mlir, examples/gemm_any_k.mlir and examples/pad_rows.mlir: their header comments (kept here)
and the kernels of ``regcopy_bench.gemm_kernels`` (test_gemm_example checks they agree).

    python3 lab/gen_gemm_examples.py
"""

from pathlib import Path

from regcopy_bench.gemm_kernels import kernel_text
from regcopy_bench.gemm_side import pad_kernel_text

REPO = Path(__file__).resolve().parents[1]
GEMM_HEADER = '// A whole GEMM on the tensor cores: D[M,N] = A[M,K] * B[N,K]^T ("TN": A row-major M x K, B\n// row-major N x K, both K-major: mma.sync\'s .row.col operand form), f32 accumulation, D\n// rounded to the input type. Two kernels, identical but for the element type: @gemm (f16) and\n// @gemm_bf16 (bf16). M, N and K are runtime extents (one compiled kernel for every size),\n// ragged in all three: K is promised a multiple of 8 (16-byte rows, so every cp.async moves\n// 16 bytes), M and N nothing. Launch with ceil(N / 256) x ceil(M / 128) CTAs (--grid). K of any length (odd: rows not 16-byte aligned): examples/gemm_any_k.mlir.\n//   regcopy-run --check examples/gemm.mlir --arg A=40x24 --arg B=72x24 --arg D=40x72 --grid 1,1\n//\n// One CTA (256 threads = 8 warps as 2 (M) x 4 (N)) computes a 128 x 256 tile of D (the CTAs\n// walk the tiles in groups of 8 M tiles, for L2 reuse); each warp\n// a 64 x 64 tile, in registers: %C, 4 x 8 m16n8 accumulator fragments (128 f32 a lane). K\n// is walked in 64-wide tiles through a 3-stage ring of A (128 x 64) and B (256 x 64) tiles in\n// dynamic shared memory whose layouts the compiler chooses (#regcopy.layout<auto>: swizzled,\n// so the cp.async writes and the ldmatrix reads are free of bank conflicts). The prologue\n// starts stages 0, 1; the slot of stage k, k / 64 mod 3, is carried from one iteration to the\n// next (%stage: no division in the loop); iteration k\n//   1. waits for its own copies of stage k (pending = 1: stage k+1 may still fly) and meets\n//      the other threads at a barrier (stage k has landed everywhere; every warp is done\n//      reading stage k-1);\n//   2. four times (k16 = 0, 16, 32, 48): copies its 64 x 16 A slice and 64 x 16 B slice from\n//      stage k into the m16n8k16 fragments %FA, %FB (ldmatrix.x4, 4 each) and runs\n//      regcopy.mma: 32 mma.sync.m16n8k16 a warp (HMMA.16816.F32), so 128 HMMA, 32 LDSM and\n//      12 LDGSTS a thread per 64-wide K tile;\n//   3. after the first k16 step, starts stage k+2 into stage k-1\'s slot, with no branch: past\n//      the end of K its chunks read nothing and zero-fill a slot no step reads, so ptxas\n//      interleaves their address math and bounds checks with the HMMAs.\n// After the loop every copy has landed (async_wait, pending = 0) before the epilogue.\n// A chunk past M, N or K reads nothing and lands as zeros (cp.async zero-fill), so the edge\n// tiles multiply zeros there. The epilogue rounds %C to the input type (cvt.rn, two a word)\n// into %CO (the same fragment layout), writes it to shared memory with stmatrix, and the\n// CTA copies the 128 x 256 tile out through registers in 128-bit rows: bounds-checked\n// against M and N, and where N is not a multiple of 8 (rows not 16-byte aligned), each\n// 16-byte vector is stored realigned as its aligned pieces (one branch per misalignment).\n//\n// Fragment layouts (PTX ISA, g = lane / 4, c = lane % 4; see docs/mma.md):\n//   %FA 64 x 16: 4 m16 tiles of the A fragment (2,8,2,4,2):(2,4@laneid,4,1@laneid,1), register\n//       8 * mi + i;  %FB 64 x 16 (N x K): 8 n8 tiles of the B fragment\n//       (8,2,4,2):(4@laneid,2,1@laneid,1), register 4 * ni + i;  %C 64 x 64: 4 x 8 tiles of\n//       the C fragment (2,8,4,2):(2,4@laneid,1@laneid,1), register 32 * mi + 4 * ni + i.\n'
ANY_K_HEADER = "// The GEMM of examples/gemm.mlir for K of any length: @gemm_any_k (f16) and @gemm_any_k_bf16.\n// With K odd no operand row starts 16-byte aligned, and cp.async has no width for such rows,\n// so each 32-wide K tile goes global -> registers -> shared (two slots), its global loads\n// issued one tile ahead so that they fly while the warps compute on the previous tile. The\n// register tiles put a warp along a row (32 consecutive elements an instruction): 16-bit\n// loads, the widest that rows of odd length allow, each warp instruction reading 64\n// contiguous bytes, and 16-bit shared stores. Everything else (ldmatrix.x4\n// fragments, regcopy.mma on 64 x 64 warp tiles, the stmatrix + 128-bit epilogue) is\n// examples/gemm.mlir's. The other route for odd K pads the rows of A and B first\n// (examples/pad_rows.mlir) and runs examples/gemm.mlir. Launch with ceil(N / 256) x\n// ceil(M / 128) CTAs:\n//   regcopy-run --check examples/gemm_any_k.mlir --arg A=40x37 --arg B=72x37 --arg D=40x72 --grid 1,1\n"

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
        GEMM_HEADER + kernel_text("gemm", "f16") + "\n" + kernel_text("gemm_bf16", "bf16"))
    (REPO / "examples" / "gemm_any_k.mlir").write_text(
        ANY_K_HEADER + kernel_text("gemm_any_k", "f16", True, "columns") + "\n"
        + kernel_text("gemm_any_k_bf16", "bf16", True, "columns"))
    (REPO / "examples" / "pad_rows.mlir").write_text(
        PAD_HEADER + pad_kernel_text("pad_rows", "f16") + "\n"
        + pad_kernel_text("pad_rows_bf16", "bf16"))


if __name__ == "__main__":
    main()
