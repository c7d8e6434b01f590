// The GEMM main loop of examples/gemm_tiles.mlir with an asynchronous 3-stage pipeline:
// C[M,N] = A[M,K] * B[N,K]^T ("TN", both K-major), f16, 256 threads = 8 warps as 2 (M) x 4 (N)
// computing a 128 x 128 tile of C per CTA, K walked in 64-wide tiles through a 3-stage ring of
// swizzled tiles in dynamic shared memory (96 KiB).
// M, N and K are runtime extents (one compiled kernel for every size): K is promised a multiple
// of 8 (16-byte rows, so every cp.async moves 16 bytes, and no 8-element chunk straddles K),
// M and N nothing. The last tiles are ragged in all three: a chunk past M, N or K reads
// nothing (source size 0, its address clamped to the buffer's base) and lands as zeros, so
// the edge tiles' fragments carry zeros there.
// Launch with ceil(N / 128) x ceil(M / 128) CTAs (--grid), fragA/fragB of ceil(K / 64) K tiles.
//
// The tiles go global -> shared with regcopy.copy_async (cp.async, 16 bytes a thread: no
// registers, no register -> shared stores). The prologue starts stages 0 and 1; iteration k
//   1. waits for its own copies of stage k (regcopy.async_wait on stage k's group with
//      pending = 1: stage k+1's group, closed after it, may stay in flight);
//   2. meets the other threads at a barrier: every thread's part of stage k has landed, and
//      every warp is done reading stage k-1;
//   3. starts stage k+2 into the slot of stage k-1 ((k+2) % 3), or closes an empty group in
//      the last two iterations (so that pending = 1 stays right);
//   4. copies shared -> registers, per warp, the m16n8k16 fragments of its 64 x 64 slice of A
//      and its 32 x 64 slice of B, from stage k, while stages k+1 and k+2 are in flight;
//   5. writes each thread's fragment registers to %fragA / %fragB, as gemm_tiles.mlir does
//      (a test compares them with the register-staged example's and the PTX ISA's tables).
// The groups of stages k and k+1 are carried by the loop (iter_args of type !regcopy.token);
// the lowering turns them into cp.async.commit_group / cp.async.wait_group 1 and drops them.
func.func @gemm_async(%A: memref<?x?xf16, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>},
                      %B: memref<?x?xf16, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>},
                      %fragA: memref<?x?x?x256x128xf16, #regcopy.mem<global>>,
                      %fragB: memref<?x?x?x256x64xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [2, 2]>} {
  %SA = memref.alloca() : memref<3x128x64xf16, #regcopy.layout<(3,128,64):(8192,64,1), swizzle<3,3,3>>, #regcopy.mem<shared.dyn>>
  %SB = memref.alloca() : memref<3x128x64xf16, #regcopy.layout<(3,128,64):(8192,64,1), swizzle<3,3,3>>, #regcopy.mem<shared.dyn>>
  %FA = memref.alloca() : memref<64x64xf16, #regcopy.layout<(4,2,8,4,2,4,2):(32,2,4@laneid,8,4,1@laneid,1)>, #regcopy.mem<local>>
  %FB = memref.alloca() : memref<32x64xf16, #regcopy.layout<(4,8,4,2,4,2):(16,4@laneid,4,2,1@laneid,1)>, #regcopy.mem<local>>
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cK = memref.dim %A, %c1 : memref<?x?xf16, #regcopy.mem<global>>
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
  // the CTA's first rows of A and B; the warp's first rows inside the A and B tiles
  %m0 = arith.muli %by, %c128 : index
  %n0 = arith.muli %bx, %c128 : index
  %wm = arith.divui %tid, %c128 : index
  %warp = arith.divui %tid, %c32 : index
  %wn = arith.remui %warp, %c4 : index
  %am = arith.muli %wm, %c64 : index
  %bn = arith.muli %wn, %c32 : index
  // the fragment registers of this thread, as flat 1-D arrays
  %fa = regcopy.storage %FA : memref<64x64xf16, #regcopy.layout<(4,2,8,4,2,4,2):(32,2,4@laneid,8,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<128xf16, #regcopy.mem<local>>
  %fb = regcopy.storage %FB : memref<32x64xf16, #regcopy.layout<(4,8,4,2,4,2):(16,4@laneid,4,2,1@laneid,1)>, #regcopy.mem<local>> -> memref<64xf16, #regcopy.mem<local>>
  // prologue: stages 0 and 1 in flight
  %ta0 = regcopy.copy_async cta %A[%m0, 0] [128, 64] -> %SA[0, 0, 0] [1, 128, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<3x128x64xf16, #regcopy.layout<(3,128,64):(8192,64,1), swizzle<3,3,3>>, #regcopy.mem<shared.dyn>>
  %tb0 = regcopy.copy_async cta %B[%n0, 0] [128, 64] -> %SB[0, 0, 0] [1, 128, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<3x128x64xf16, #regcopy.layout<(3,128,64):(8192,64,1), swizzle<3,3,3>>, #regcopy.mem<shared.dyn>>
  %g0 = regcopy.async_group %ta0, %tb0
  %ta1 = regcopy.copy_async cta %A[%m0, 64] [128, 64] -> %SA[1, 0, 0] [1, 128, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<3x128x64xf16, #regcopy.layout<(3,128,64):(8192,64,1), swizzle<3,3,3>>, #regcopy.mem<shared.dyn>>
  %tb1 = regcopy.copy_async cta %B[%n0, 64] [128, 64] -> %SB[1, 0, 0] [1, 128, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<3x128x64xf16, #regcopy.layout<(3,128,64):(8192,64,1), swizzle<3,3,3>>, #regcopy.mem<shared.dyn>>
  %g1 = regcopy.async_group %ta1, %tb1
  %done:2 = scf.for %k = %c0 to %cK step %c64 iter_args(%gk = %g0, %gk1 = %g1) -> (!regcopy.token, !regcopy.token) {
    %kt = arith.divui %k, %c64 : index
    %stage = arith.remui %kt, %c3 : index
    // 1. this thread's copies of stage k have landed (stage k+1's may still fly)
    regcopy.async_wait %gk {pending = 1 : i64}
    // 2. every thread's copies of stage k have landed; every warp is done with stage k-1
    "gpu.barrier"() : () -> ()
    // 3. start stage k+2 into stage k-1's slot (an empty group past the end)
    %k2 = arith.addi %k, %c128 : index
    %more = arith.cmpi ult, %k2, %cK : index
    %gn = scf.if %more -> (!regcopy.token) {
      %kt2 = arith.addi %kt, %c2 : index
      %s2 = arith.remui %kt2, %c3 : index
      %ta = regcopy.copy_async cta %A[%m0, %k2] [128, 64] -> %SA[%s2, 0, 0] [1, 128, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<3x128x64xf16, #regcopy.layout<(3,128,64):(8192,64,1), swizzle<3,3,3>>, #regcopy.mem<shared.dyn>>
      %tb = regcopy.copy_async cta %B[%n0, %k2] [128, 64] -> %SB[%s2, 0, 0] [1, 128, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<3x128x64xf16, #regcopy.layout<(3,128,64):(8192,64,1), swizzle<3,3,3>>, #regcopy.mem<shared.dyn>>
      %g = regcopy.async_group %ta, %tb
      scf.yield %g : !regcopy.token
    } else {
      %g = regcopy.async_group
      scf.yield %g : !regcopy.token
    }
    // 4. shared -> the warp's mma fragments, from stage k
    regcopy.copy warp %SA[%stage, %am, 0] [1, 64, 64] -> %FA : memref<3x128x64xf16, #regcopy.layout<(3,128,64):(8192,64,1), swizzle<3,3,3>>, #regcopy.mem<shared.dyn>> -> memref<64x64xf16, #regcopy.layout<(4,2,8,4,2,4,2):(32,2,4@laneid,8,4,1@laneid,1)>, #regcopy.mem<local>>
    regcopy.copy warp %SB[%stage, %bn, 0] [1, 32, 64] -> %FB : memref<3x128x64xf16, #regcopy.layout<(3,128,64):(8192,64,1), swizzle<3,3,3>>, #regcopy.mem<shared.dyn>> -> memref<32x64xf16, #regcopy.layout<(4,8,4,2,4,2):(16,4@laneid,4,2,1@laneid,1)>, #regcopy.mem<local>>
    // 5. write the fragment registers out, 8 per 128-bit store
    scf.for %i = %c0 to %c128 step %c8 {
      %v = vector.load %fa[%i] : memref<128xf16, #regcopy.mem<local>>, vector<8xf16>
      vector.store %v, %fragA[%by, %bx, %kt, %tid, %i] : memref<?x?x?x256x128xf16, #regcopy.mem<global>>, vector<8xf16>
    }
    scf.for %i = %c0 to %c64 step %c8 {
      %v = vector.load %fb[%i] : memref<64xf16, #regcopy.mem<local>>, vector<8xf16>
      vector.store %v, %fragB[%by, %bx, %kt, %tid, %i] : memref<?x?x?x256x64xf16, #regcopy.mem<global>>, vector<8xf16>
    }
    scf.yield %gk1, %gn : !regcopy.token, !regcopy.token
  }
  func.return
}
