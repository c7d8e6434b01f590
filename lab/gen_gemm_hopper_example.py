"""Write examples/gemm_hopper.mlir: its header comment (kept here), the GEMM kernels of
``regcopy_bench.gemm_hopper`` (both CTA tiles, f16 and bf16) and its row-padding kernels
(test_gemm_hopper checks they agree).

    python3 lab/gen_gemm_hopper_example.py
"""

from pathlib import Path

from regcopy_bench.gemm_hopper import (
    BK,
    EDGES,
    EXAMPLE,
    PAD,
    PADS,
    STAGES,
    TILE,
    example_kernels,
    example_passes,
)

REPO = Path(__file__).resolve().parents[1]
OTHER = "256x128"
PASSES = example_passes()
HEADER = f"""\
// A Hopper GEMM: D[M,N] = A[M,K] * B[N,K]^T (both K-major), f32 accumulation, D rounded to the
// input type. M, N, K are runtime extents, ragged in all three. Kernels:
//   @gemm_hopper, @gemm_hopper_bf16: CTA tile 128 x 256 (f16, bf16), grid ceil(N/256) x ceil(M/128);
//   @gemm_hopper_256x128, @gemm_hopper_256x128_bf16: CTA tile 256 x 128, grid ceil(N/128) x ceil(M/256);
//   @pad_pair, @pad_pair_bf16: the row padding for a K that is not a multiple of 8.
// A CTA fills an SM (192 KiB of shared ring), so its grid runs in waves of one CTA an SM: launch
// the tile whose grid makes fewer waves (128 x 256 on a tie). At 4095 x 4097 that is 256 x 128
// (528 CTAs: 4 waves of 132 SMs, where 128 x 256 makes 544: 5 waves). The 256 x 128 kernels run
// a CTA with at most {EDGES[OTHER]} columns of D left (N % 128 in 1..{EDGES[OTHER]}, as 4097) as a
// 256 x {EDGES[OTHER]} tile: the same ring with {EDGES[OTHER]} rows of B a slot and m64n{EDGES[OTHER]}k16 wgmmas.
// The GEMMs promise K a multiple of 8 (TMA needs 16-byte row strides). For any other K, first
// launch @pad_pair(A, A8, B, B8) on ceil(K8 / {PADS[PAD][1]}) x ceil(max(M, N) / {PADS[PAD][0]}) x 2 CTAs (K8 = K
// rounded up to 8): it copies both operands into K8-wide rows (realigned loads, 128-bit
// stores, zeros after column K); then run the GEMM on A8, B8. Lower with {PASSES}:
//   regcopy-run -p '{PASSES}' --kernel gemm_hopper --check \\
//     examples/gemm_hopper.mlir --arg A=70x72 --arg B=40x72 --arg D=70x40 --grid 1,1
//   regcopy-run -p '{PASSES}' --kernel pad_pair --check examples/gemm_hopper.mlir --arg X1=70x69 \\
//     --arg Y1=70x72 --arg X2=40x69 --arg Y2=40x72 --grid 1,{-(-70 // PADS[PAD][0])},2
//
// One CTA (256 threads: two consumer warpgroups) computes its tile; warpgroup wg the rows
// CTA_M / 2 x wg .., in 64-row f32 accumulators in the m64nNk16 fragment layout (128 registers
// a thread). K goes {BK} at a time through a {STAGES}-slot ring in dynamic shared memory: per slot two
// CTA_M / 2 x {BK} A tiles and one CTA_N x {BK} B tile, each one TMA load (cp.async.bulk.tensor
// from one elected thread, completion on the slot's mbarrier). The shared tiles are
// #regcopy.layout<auto>: a wgmma reads them, so the compiler gives them the 128-byte swizzle,
// TMA's 128B mode and wgmma's K-major canonical layout (SBO 1024, LBO unused). Iteration k
//   1. waits for K tile k (every thread on the slot's mbarrier) and meets the other warpgroup
//      at a barrier (both are past their wait for K tile k-2's wgmmas: its slot is free);
//   2. refills that slot with K tile k+{STAGES - 2} (an empty group past the end);
//   3. issues the wgmmas of K tile k (four k16 steps an accumulator), {{async}};
//   4. waits until K tile k-1's wgmmas are done (k's may still run).
// TMA fills zeros past M, N and K. The epilogue waits for the last wgmmas, rounds to the input
// type, converts each accumulator into rows of 8 elements a thread (regcopy.copy between two
// local tiles: warp shuffles within each quad of lanes) and stores them with 128-bit stores,
// bounds-checked (realigned pieces where N is odd). The 256 x 128 kernels convert so that a
// warp runs along a row (16 lanes a row, one misalignment a store instruction at odd N), 128
// columns at a time; the cost model alone would take a shared round trip for that conversion,
// after which ptxas serializes the K loop's wgmmas, so the copy carries {{conversion = "shuffle"}}.
"""


def main() -> None:
    assert TILE != OTHER and not EDGES[TILE] and list(EXAMPLE) == [TILE, OTHER]
    (REPO / "examples" / "gemm_hopper.mlir").write_text(HEADER + "\n".join(example_kernels()))


if __name__ == "__main__":
    main()
