"""Write examples/gemm_hopper.mlir: its header comment (kept here) and the kernels of
``regcopy_bench.gemm_hopper`` (test_gemm_hopper checks they agree).

    python3 lab/gen_gemm_hopper_example.py
"""

from pathlib import Path

from regcopy_bench.gemm_hopper import kernel_text

REPO = Path(__file__).resolve().parents[1]
HEADER = """\
// A Hopper GEMM: D[M,N] = A[M,K] * B[N,K]^T (both K-major), f32 accumulation, D rounded to the
// input type; @gemm_hopper (f16) and @gemm_hopper_bf16 (bf16). M, N, K are runtime extents,
// ragged in all three (K promised a multiple of 8: TMA needs 16-byte row strides). Lower with
// transfer=tma; launch ceil(N / 256) x ceil(M / 128) CTAs:
//   regcopy-run -p 'lower-reg-copy{transfer=tma}' --check examples/gemm_hopper.mlir \\
//     --arg A=70x72 --arg B=100x72 --arg D=70x100 --grid 1,1
//
// One CTA (256 threads: two consumer warpgroups) computes a 128 x 256 tile; warpgroup wg the
// rows 64 wg .., in %C: a 64 x 256 f32 accumulator in the m64n256k16 fragment layout (128
// registers a thread). K goes 64 at a time through a 4-slot ring in dynamic shared memory:
// per slot two 64 x 64 A tiles and one 256 x 64 B tile, each one TMA load (cp.async.bulk.tensor
// from one elected thread, completion on the slot's mbarrier). The shared tiles are
// #regcopy.layout<auto>: a wgmma reads them, so the compiler gives them the 128-byte swizzle,
// TMA's 128B mode and wgmma's K-major canonical layout (SBO 1024, LBO unused). Iteration k
//   1. waits for slot k (every thread on the mbarrier; pending = 2: k+1, k+2 may still fly);
//   2. issues four wgmma.mma_async.m64n256k16 on slot k, {async};
//   3. waits until at most one wgmma group is pending (K tile k-1's are done here), and
//   4. meets the other warpgroup at a barrier (slot k-1 is free);
//   5. refills slot k-1 with K tile k+3 (an empty group past the end).
// TMA fills zeros past M, N and K. The epilogue waits for the last wgmmas, rounds %C to the
// input type (%CO, the same layout) and stores each warpgroup's 64 x 256 rows, bounds-checked
// (32-bit stores: two adjacent elements a thread).
"""


def main() -> None:
    (REPO / "examples" / "gemm_hopper.mlir").write_text(
        HEADER + kernel_text("gemm_hopper", "f16") + "\n" + kernel_text("gemm_hopper_bf16", "bf16"))


if __name__ == "__main__":
    main()
