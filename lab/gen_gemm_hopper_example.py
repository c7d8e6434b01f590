"""Write examples/gemm_hopper.mlir: its header comment (kept here), the GEMM kernels of
``regcopy_bench.gemm_hopper`` and the row-padding kernels of ``regcopy_bench.gemm_kernels``
(test_gemm_hopper checks they agree).

    python3 lab/gen_gemm_hopper_example.py
"""

from pathlib import Path

from regcopy_bench.gemm_hopper import BK, EPILOGUE, STAGES, TILE, TILES, kernel_text
from regcopy_bench.gemm_kernels import pad_kernel_text

REPO = Path(__file__).resolve().parents[1]
CTA_M, CTA_N = TILES[TILE]
WGR = CTA_M // 2
HOW = {"frag": "32-bit stores straight from\n// the fragment (two adjacent elements a thread)",
       "rows": ("converted first\n// (regcopy.copy between two local tiles: warp shuffles "
                "within each quad of lanes) into rows of\n// 8 elements a thread, then 128-bit "
                "stores (realigned pieces where N is odd)")}[EPILOGUE]
HEADER = f"""\
// A Hopper GEMM: D[M,N] = A[M,K] * B[N,K]^T (both K-major), f32 accumulation, D rounded to the
// input type; @gemm_hopper (f16) and @gemm_hopper_bf16 (bf16). M, N, K are runtime extents,
// ragged in all three; K is promised a multiple of 8 (TMA needs 16-byte row strides): for any
// other K, first copy A and B into K8-wide buffers (K8 = K rounded up to 8) with @pad_rows
// (@pad_rows_bf16), which realigns the rows and fills the pad with zeros, then run the GEMM
// on the copies. Lower with transfer=tma; launch the GEMM on ceil(N / {CTA_N}) x ceil(M / {CTA_M})
// CTAs, @pad_rows on ceil(K8 / 256) x ceil(R / 32) for an R-row operand:
//   regcopy-run -p 'lower-reg-copy{{transfer=tma}}' --kernel gemm_hopper --check \\
//     examples/gemm_hopper.mlir --arg A=70x72 --arg B=100x72 --arg D=70x100 --grid 1,1
//   regcopy-run --kernel pad_rows --check examples/gemm_hopper.mlir \\
//     --arg X=70x69 --arg Y=70x72 --grid 1,3
//
// One CTA (256 threads: two consumer warpgroups) computes a {CTA_M} x {CTA_N} tile; warpgroup wg
// the rows {WGR} wg .., in 64 x {CTA_N} f32 accumulators in the m64n{CTA_N}k16 fragment layout
// (128 registers a thread). K goes {BK} at a time through a {STAGES}-slot ring in dynamic shared
// memory: per slot two {WGR} x {BK} A tiles and one {CTA_N} x {BK} B tile, each one TMA load
// (cp.async.bulk.tensor from one elected thread, completion on the slot's mbarrier). The shared
// tiles are #regcopy.layout<auto>: a wgmma reads them, so the compiler gives them the 128-byte
// swizzle, TMA's 128B mode and wgmma's K-major canonical layout (SBO 1024, LBO unused).
// Iteration k
//   1. waits for K tile k (every thread on the slot's mbarrier) and meets the other warpgroup
//      at a barrier (both are past their wait for K tile k-2's wgmmas: its slot is free);
//   2. refills that slot with K tile k+{STAGES - 2} (an empty group past the end);
//   3. issues the wgmmas of K tile k (m64n{CTA_N}k16, four k16 steps an accumulator), {{async}};
//   4. waits until K tile k-1's wgmmas are done (k's may still run).
// TMA fills zeros past M, N and K. The epilogue waits for the last wgmmas, rounds to the input
// type and stores each warpgroup's rows, bounds-checked: {HOW}.
"""


def main() -> None:
    kernels = [kernel_text("gemm_hopper", "f16"), kernel_text("gemm_hopper_bf16", "bf16"),
               pad_kernel_text("pad_rows", "f16"), pad_kernel_text("pad_rows_bf16", "bf16")]
    (REPO / "examples" / "gemm_hopper.mlir").write_text(HEADER + "\n".join(kernels))


if __name__ == "__main__":
    main()
