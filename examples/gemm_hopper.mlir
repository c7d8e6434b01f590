// A Hopper GEMM: D[M,N] = A[M,K] * B[N,K]^T (both K-major), f32 accumulation, D rounded to the
// input type. M, N, K are runtime extents, ragged in all three. Kernels:
//   @gemm_hopper, @gemm_hopper_bf16: CTA tile 128 x 256 (f16, bf16), grid ceil(N/256) x ceil(M/128);
//   @gemm_hopper_256x128, @gemm_hopper_256x128_bf16: CTA tile 256 x 128, grid ceil(N/128) x ceil(M/256);
//   @pad_pair, @pad_pair_bf16: the row padding for a K that is not a multiple of 8.
// A CTA fills an SM (192 KiB of shared ring), so its grid runs in waves of one CTA an SM: launch
// the tile whose grid makes fewer waves (128 x 256 on a tie). At 4095 x 4097 that is 256 x 128
// (528 CTAs: 4 waves of 132 SMs, where 128 x 256 makes 544: 5 waves). The 256 x 128 kernels run
// a CTA with at most 8 columns of D left (N % 128 in 1..8, as 4097) as a
// 256 x 8 tile: the same ring with 8 rows of B a slot and m64n8k16 wgmmas.
// The GEMMs promise K a multiple of 8 (TMA needs 16-byte row strides). For any other K, first
// launch @pad_pair(A, A8, B, B8) on ceil(K8 / 1024) x ceil(max(M, N) / 4) x 2 CTAs (K8 = K
// rounded up to 8): it copies both operands into K8-wide rows (realigned loads, 128-bit
// stores, zeros after column K); then run the GEMM on A8, B8. Lower with lower-reg-copy{transfer=tma}:
//   regcopy-run -p 'lower-reg-copy{transfer=tma}' --kernel gemm_hopper --check \
//     examples/gemm_hopper.mlir --arg A=70x72 --arg B=40x72 --arg D=70x40 --grid 1,1
//   regcopy-run -p 'lower-reg-copy{transfer=tma}' --kernel pad_pair --check examples/gemm_hopper.mlir --arg X1=70x69 \
//     --arg Y1=70x72 --arg X2=40x69 --arg Y2=40x72 --grid 1,18,2
//
// One CTA (256 threads: two consumer warpgroups) computes its tile; warpgroup wg the rows
// CTA_M / 2 x wg .., in 64-row f32 accumulators in the m64nNk16 fragment layout (128 registers
// a thread). K goes 64 at a time through a 4-slot ring in dynamic shared memory: per slot two
// CTA_M / 2 x 64 A tiles and one CTA_N x 64 B tile, each one TMA load (cp.async.bulk.tensor
// from one elected thread, completion on the slot's mbarrier). The shared tiles are
// #regcopy.layout<auto>: a wgmma reads them, so the compiler gives them the 128-byte swizzle,
// TMA's 128B mode and wgmma's K-major canonical layout (SBO 1024, LBO unused). Iteration k
//   1. waits for K tile k (every thread on the slot's mbarrier) and meets the other warpgroup
//      at a barrier (both are past their wait for K tile k-2's wgmmas: its slot is free);
//   2. refills that slot with K tile k+2 (an empty group past the end);
//   3. issues the wgmmas of K tile k (four k16 steps an accumulator), {async};
//   4. waits until K tile k-1's wgmmas are done (k's may still run).
// TMA fills zeros past M, N and K. The epilogue waits for the last wgmmas, rounds to the input
// type, converts each accumulator into rows of 8 elements a thread (regcopy.copy between two
// local tiles: warp shuffles within each quad of lanes) and stores them with 128-bit stores,
// bounds-checked (realigned pieces where N is odd). The 256 x 128 kernels convert so that a
// warp runs along a row (16 lanes a row, one misalignment a store instruction at odd N), 128
// columns at a time; the cost model alone would take a shared round trip for that conversion,
// after which ptxas serializes the K loop's wgmmas, so the copy carries {conversion = "shuffle"}.
func.func @gemm_hopper(%A: memref<?x?xf16, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>},
    %B: memref<?x?xf16, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>},
    %D: memref<?x?xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [1, 1]>} {
  %SA = memref.alloca() : memref<4x2x64x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %SB = memref.alloca() : memref<4x256x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %C = memref.alloca() : memref<64x256xf32, #regcopy.layout<(4,2,8,32,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %CO = memref.alloca() : memref<64x256xf16, #regcopy.layout<(4,2,8,32,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %RO = memref.alloca() : memref<64x256xf16, #regcopy.layout<(4,2,8,8,4,8):(1@wid_in_wg,64,4@laneid,8,1@laneid,1)>, #regcopy.mem<local>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c192 = arith.constant 192 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  %K = memref.dim %A, %c1 : memref<?x?xf16, #regcopy.mem<global>>
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  // this thread's warpgroup: rows 64 wg .. of the CTA's tile
  %wg = arith.divui %tid, %c128 : index
  %wm = arith.muli %wg, %c64 : index
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
  // the CTA's tile (pm, pn), in groups of 8 M tiles that walk N together (L2 reuse)
  %gx = "gpu.grid_dim"() <{dimension = #gpu<dim x>}> : () -> index
  %gy = "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
  %byx = arith.muli %by, %gx : index
  %pid = arith.addi %byx, %bx : index
  %width = arith.muli %gx, %c8 : index
  %group = arith.divui %pid, %width : index
  %first = arith.muli %group, %c8 : index
  %left = arith.subi %gy, %first : index
  %size = arith.minui %left, %c8 : index
  %inside = arith.remui %pid, %width : index
  %pmo = arith.remui %inside, %size : index
  %pm = arith.addi %first, %pmo : index
  %pn = arith.divui %inside, %size : index
  %m0 = arith.muli %pm, %c128 : index
  %m1 = arith.addi %m0, %c64 : index
  %n0 = arith.muli %pn, %c256 : index
  // the accumulators start at zero
  %acc0 = regcopy.storage %C : memref<64x256xf32, #regcopy.layout<(4,2,8,32,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<128xf32, #regcopy.mem<local>>
  scf.for %i = %c0 to %c128 step %c4 {
    vector.store %zero, %acc0[%i] : memref<128xf32, #regcopy.mem<local>>, vector<4xf32>
  }
  // prologue: K tiles 0 .. 1 in flight
  %g0a0 = regcopy.copy_async cta %A[%m0, %c0] [64, 64] -> %SA[%c0, 0, 0, 0] [1, 1, 64, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x2x64x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %g0a1 = regcopy.copy_async cta %A[%m1, %c0] [64, 64] -> %SA[%c0, 1, 0, 0] [1, 1, 64, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x2x64x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %g0b = regcopy.copy_async cta %B[%n0, %c0] [256, 64] -> %SB[%c0, 0, 0] [1, 256, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x256x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %g0 = regcopy.async_group %g0a0, %g0a1, %g0b
  %g1a0 = regcopy.copy_async cta %A[%m0, %c64] [64, 64] -> %SA[%c1, 0, 0, 0] [1, 1, 64, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x2x64x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %g1a1 = regcopy.copy_async cta %A[%m1, %c64] [64, 64] -> %SA[%c1, 1, 0, 0] [1, 1, 64, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x2x64x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %g1b = regcopy.copy_async cta %B[%n0, %c64] [256, 64] -> %SB[%c1, 0, 0] [1, 256, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x256x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %g1 = regcopy.async_group %g1a0, %g1a1, %g1b
  %done:2 = scf.for %k = %c0 to %K step %c64 iter_args(%gk0 = %g0, %gk1 = %g1) -> (!regcopy.token, !regcopy.token) {
    %kt = arith.divui %k, %c64 : index
    %stage = arith.remui %kt, %c4 : index
    // 1. K tile k has landed, for every thread (its own copies, then everyone's), and both
    //    warpgroups are done with K tile k-2 (their wgmma_wait of iteration k-1)
    regcopy.async_wait %gk0 {pending = 1 : i64}
    "gpu.barrier"() : () -> ()
    // 2. refill slot k-2 with K tile k+2 (an empty group past the end)
    %kn = arith.addi %k, %c128 : index
    %more = arith.cmpi ult, %kn, %K : index
    %gn = scf.if %more -> (!regcopy.token) {
      %ktn = arith.addi %kt, %c2 : index
      %sn = arith.remui %ktn, %c4 : index
      %ga0 = regcopy.copy_async cta %A[%m0, %kn] [64, 64] -> %SA[%sn, 0, 0, 0] [1, 1, 64, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x2x64x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
      %ga1 = regcopy.copy_async cta %A[%m1, %kn] [64, 64] -> %SA[%sn, 1, 0, 0] [1, 1, 64, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x2x64x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
      %gb = regcopy.copy_async cta %B[%n0, %kn] [256, 64] -> %SB[%sn, 0, 0] [1, 256, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x256x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
      %g = regcopy.async_group %ga0, %ga1, %gb
      scf.yield %g : !regcopy.token
    } else {
      %g = regcopy.async_group
      scf.yield %g : !regcopy.token
    }
    // 3. the wgmmas of slot k (four k16 steps an accumulator), not waited for
    regcopy.wgmma warpgroup %SA[%stage, %wg, 0, 0] [1, 1, 64, 64], %SB[%stage, 0, 0] [1, 256, 64], %C {transpose_b, async} : memref<4x2x64x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>, memref<4x256x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>, memref<64x256xf32, #regcopy.layout<(4,2,8,32,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
    // 4. K tile k-1's wgmmas are done (k's may still run)
    regcopy.wgmma_wait {pending = 1 : i64}
    scf.yield %gk1, %gn : !regcopy.token, !regcopy.token
  }
  regcopy.wgmma_wait {pending = 0 : i64}
  // epilogue: round to f16 in the fragment layout; convert to rows of 8 a thread, 128-bit stores (bounds-checked)
  %mw = arith.addi %m0, %wm : index
  %out = regcopy.storage %CO : memref<64x256xf16, #regcopy.layout<(4,2,8,32,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<128xf16, #regcopy.mem<local>>
  scf.for %i = %c0 to %c128 step %c4 {
    %v = vector.load %acc0[%i] : memref<128xf32, #regcopy.mem<local>>, vector<4xf32>
    %h = arith.truncf %v : vector<4xf32> to vector<4xf16>
    vector.store %h, %out[%i] : memref<128xf16, #regcopy.mem<local>>, vector<4xf16>
  }
  regcopy.copy warpgroup %CO -> %RO : memref<64x256xf16, #regcopy.layout<(4,2,8,32,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<64x256xf16, #regcopy.layout<(4,2,8,8,4,8):(1@wid_in_wg,64,4@laneid,8,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warpgroup %RO -> %D[%mw, %n0] [64, 256] {misaligned_stores = "realigned"} : memref<64x256xf16, #regcopy.layout<(4,2,8,8,4,8):(1@wid_in_wg,64,4@laneid,8,1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xf16, #regcopy.mem<global>>
  func.return
}

func.func @gemm_hopper_bf16(%A: memref<?x?xbf16, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>},
    %B: memref<?x?xbf16, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>},
    %D: memref<?x?xbf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [1, 1]>} {
  %SA = memref.alloca() : memref<4x2x64x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %SB = memref.alloca() : memref<4x256x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %C = memref.alloca() : memref<64x256xf32, #regcopy.layout<(4,2,8,32,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %CO = memref.alloca() : memref<64x256xbf16, #regcopy.layout<(4,2,8,32,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %RO = memref.alloca() : memref<64x256xbf16, #regcopy.layout<(4,2,8,8,4,8):(1@wid_in_wg,64,4@laneid,8,1@laneid,1)>, #regcopy.mem<local>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c192 = arith.constant 192 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  %K = memref.dim %A, %c1 : memref<?x?xbf16, #regcopy.mem<global>>
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  // this thread's warpgroup: rows 64 wg .. of the CTA's tile
  %wg = arith.divui %tid, %c128 : index
  %wm = arith.muli %wg, %c64 : index
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
  // the CTA's tile (pm, pn), in groups of 8 M tiles that walk N together (L2 reuse)
  %gx = "gpu.grid_dim"() <{dimension = #gpu<dim x>}> : () -> index
  %gy = "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
  %byx = arith.muli %by, %gx : index
  %pid = arith.addi %byx, %bx : index
  %width = arith.muli %gx, %c8 : index
  %group = arith.divui %pid, %width : index
  %first = arith.muli %group, %c8 : index
  %left = arith.subi %gy, %first : index
  %size = arith.minui %left, %c8 : index
  %inside = arith.remui %pid, %width : index
  %pmo = arith.remui %inside, %size : index
  %pm = arith.addi %first, %pmo : index
  %pn = arith.divui %inside, %size : index
  %m0 = arith.muli %pm, %c128 : index
  %m1 = arith.addi %m0, %c64 : index
  %n0 = arith.muli %pn, %c256 : index
  // the accumulators start at zero
  %acc0 = regcopy.storage %C : memref<64x256xf32, #regcopy.layout<(4,2,8,32,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<128xf32, #regcopy.mem<local>>
  scf.for %i = %c0 to %c128 step %c4 {
    vector.store %zero, %acc0[%i] : memref<128xf32, #regcopy.mem<local>>, vector<4xf32>
  }
  // prologue: K tiles 0 .. 1 in flight
  %g0a0 = regcopy.copy_async cta %A[%m0, %c0] [64, 64] -> %SA[%c0, 0, 0, 0] [1, 1, 64, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x2x64x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %g0a1 = regcopy.copy_async cta %A[%m1, %c0] [64, 64] -> %SA[%c0, 1, 0, 0] [1, 1, 64, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x2x64x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %g0b = regcopy.copy_async cta %B[%n0, %c0] [256, 64] -> %SB[%c0, 0, 0] [1, 256, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x256x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %g0 = regcopy.async_group %g0a0, %g0a1, %g0b
  %g1a0 = regcopy.copy_async cta %A[%m0, %c64] [64, 64] -> %SA[%c1, 0, 0, 0] [1, 1, 64, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x2x64x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %g1a1 = regcopy.copy_async cta %A[%m1, %c64] [64, 64] -> %SA[%c1, 1, 0, 0] [1, 1, 64, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x2x64x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %g1b = regcopy.copy_async cta %B[%n0, %c64] [256, 64] -> %SB[%c1, 0, 0] [1, 256, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x256x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %g1 = regcopy.async_group %g1a0, %g1a1, %g1b
  %done:2 = scf.for %k = %c0 to %K step %c64 iter_args(%gk0 = %g0, %gk1 = %g1) -> (!regcopy.token, !regcopy.token) {
    %kt = arith.divui %k, %c64 : index
    %stage = arith.remui %kt, %c4 : index
    // 1. K tile k has landed, for every thread (its own copies, then everyone's), and both
    //    warpgroups are done with K tile k-2 (their wgmma_wait of iteration k-1)
    regcopy.async_wait %gk0 {pending = 1 : i64}
    "gpu.barrier"() : () -> ()
    // 2. refill slot k-2 with K tile k+2 (an empty group past the end)
    %kn = arith.addi %k, %c128 : index
    %more = arith.cmpi ult, %kn, %K : index
    %gn = scf.if %more -> (!regcopy.token) {
      %ktn = arith.addi %kt, %c2 : index
      %sn = arith.remui %ktn, %c4 : index
      %ga0 = regcopy.copy_async cta %A[%m0, %kn] [64, 64] -> %SA[%sn, 0, 0, 0] [1, 1, 64, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x2x64x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
      %ga1 = regcopy.copy_async cta %A[%m1, %kn] [64, 64] -> %SA[%sn, 1, 0, 0] [1, 1, 64, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x2x64x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
      %gb = regcopy.copy_async cta %B[%n0, %kn] [256, 64] -> %SB[%sn, 0, 0] [1, 256, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x256x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
      %g = regcopy.async_group %ga0, %ga1, %gb
      scf.yield %g : !regcopy.token
    } else {
      %g = regcopy.async_group
      scf.yield %g : !regcopy.token
    }
    // 3. the wgmmas of slot k (four k16 steps an accumulator), not waited for
    regcopy.wgmma warpgroup %SA[%stage, %wg, 0, 0] [1, 1, 64, 64], %SB[%stage, 0, 0] [1, 256, 64], %C {transpose_b, async} : memref<4x2x64x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>, memref<4x256x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>, memref<64x256xf32, #regcopy.layout<(4,2,8,32,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
    // 4. K tile k-1's wgmmas are done (k's may still run)
    regcopy.wgmma_wait {pending = 1 : i64}
    scf.yield %gk1, %gn : !regcopy.token, !regcopy.token
  }
  regcopy.wgmma_wait {pending = 0 : i64}
  // epilogue: round to bf16 in the fragment layout; convert to rows of 8 a thread, 128-bit stores (bounds-checked)
  %mw = arith.addi %m0, %wm : index
  %out = regcopy.storage %CO : memref<64x256xbf16, #regcopy.layout<(4,2,8,32,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<128xbf16, #regcopy.mem<local>>
  scf.for %i = %c0 to %c128 step %c4 {
    %v = vector.load %acc0[%i] : memref<128xf32, #regcopy.mem<local>>, vector<4xf32>
    %h = arith.truncf %v : vector<4xf32> to vector<4xbf16>
    vector.store %h, %out[%i] : memref<128xbf16, #regcopy.mem<local>>, vector<4xbf16>
  }
  regcopy.copy warpgroup %CO -> %RO : memref<64x256xbf16, #regcopy.layout<(4,2,8,32,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<64x256xbf16, #regcopy.layout<(4,2,8,8,4,8):(1@wid_in_wg,64,4@laneid,8,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warpgroup %RO -> %D[%mw, %n0] [64, 256] {misaligned_stores = "realigned"} : memref<64x256xbf16, #regcopy.layout<(4,2,8,8,4,8):(1@wid_in_wg,64,4@laneid,8,1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xbf16, #regcopy.mem<global>>
  func.return
}

func.func @gemm_hopper_256x128(%A: memref<?x?xf16, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>},
    %B: memref<?x?xf16, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>},
    %D: memref<?x?xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [1, 1]>} {
  %SA = memref.alloca() : memref<4x2x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %SB = memref.alloca() : memref<4x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %C0 = memref.alloca() : memref<64x128xf32, #regcopy.layout<(4,2,8,16,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %C1 = memref.alloca() : memref<64x128xf32, #regcopy.layout<(4,2,8,16,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %CO = memref.alloca() : memref<64x128xf16, #regcopy.layout<(4,2,8,16,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %RO = memref.alloca() : memref<64x128xf16, #regcopy.layout<(4,8,2,16,8):(1@wid_in_wg,8,16@laneid,1@laneid,1)>, #regcopy.mem<local>>
  %CE0 = memref.alloca() : memref<64x8xf32, #regcopy.layout<(4,2,8,1,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %CE1 = memref.alloca() : memref<64x8xf32, #regcopy.layout<(4,2,8,1,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %COE = memref.alloca() : memref<64x8xf16, #regcopy.layout<(4,2,8,1,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c192 = arith.constant 192 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  %K = memref.dim %A, %c1 : memref<?x?xf16, #regcopy.mem<global>>
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  // this thread's warpgroup: rows 128 wg .. of the CTA's tile
  %wg = arith.divui %tid, %c128 : index
  %wm = arith.muli %wg, %c128 : index
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
  // the CTA's tile (pm, pn), in groups of 8 M tiles that walk N together (L2 reuse)
  %gx = "gpu.grid_dim"() <{dimension = #gpu<dim x>}> : () -> index
  %gy = "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
  %byx = arith.muli %by, %gx : index
  %pid = arith.addi %byx, %bx : index
  %width = arith.muli %gx, %c8 : index
  %group = arith.divui %pid, %width : index
  %first = arith.muli %group, %c8 : index
  %left = arith.subi %gy, %first : index
  %size = arith.minui %left, %c8 : index
  %inside = arith.remui %pid, %width : index
  %pmo = arith.remui %inside, %size : index
  %pm = arith.addi %first, %pmo : index
  %pn = arith.divui %inside, %size : index
  %m0 = arith.muli %pm, %c256 : index
  %m1 = arith.addi %m0, %c128 : index
  %n0 = arith.muli %pn, %c128 : index
  // the last column of CTAs with at most 8 columns left: a 256 x 8 tile
  %N = memref.dim %B, %c0 : memref<?x?xf16, #regcopy.mem<global>>
  %rest = arith.subi %N, %n0 : index
  %narrow = arith.cmpi ule, %rest, %c8 : index
  scf.if %narrow {
    // the accumulators start at zero
    %acc0 = regcopy.storage %CE0 : memref<64x8xf32, #regcopy.layout<(4,2,8,1,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<4xf32, #regcopy.mem<local>>
    %acc1 = regcopy.storage %CE1 : memref<64x8xf32, #regcopy.layout<(4,2,8,1,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<4xf32, #regcopy.mem<local>>
    scf.for %i = %c0 to %c4 step %c4 {
      vector.store %zero, %acc0[%i] : memref<4xf32, #regcopy.mem<local>>, vector<4xf32>
    }
    scf.for %i = %c0 to %c4 step %c4 {
      vector.store %zero, %acc1[%i] : memref<4xf32, #regcopy.mem<local>>, vector<4xf32>
    }
    // prologue: K tiles 0 .. 1 in flight
    %g0a0 = regcopy.copy_async cta %A[%m0, %c0] [128, 64] -> %SA[%c0, 0, 0, 0] [1, 1, 128, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x2x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    %g0a1 = regcopy.copy_async cta %A[%m1, %c0] [128, 64] -> %SA[%c0, 1, 0, 0] [1, 1, 128, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x2x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    %g0b = regcopy.copy_async cta %B[%n0, %c0] [8, 64] -> %SB[%c0, 0, 0] [1, 8, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    %g0 = regcopy.async_group %g0a0, %g0a1, %g0b
    %g1a0 = regcopy.copy_async cta %A[%m0, %c64] [128, 64] -> %SA[%c1, 0, 0, 0] [1, 1, 128, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x2x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    %g1a1 = regcopy.copy_async cta %A[%m1, %c64] [128, 64] -> %SA[%c1, 1, 0, 0] [1, 1, 128, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x2x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    %g1b = regcopy.copy_async cta %B[%n0, %c64] [8, 64] -> %SB[%c1, 0, 0] [1, 8, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    %g1 = regcopy.async_group %g1a0, %g1a1, %g1b
    %done:2 = scf.for %k = %c0 to %K step %c64 iter_args(%gk0 = %g0, %gk1 = %g1) -> (!regcopy.token, !regcopy.token) {
      %kt = arith.divui %k, %c64 : index
      %stage = arith.remui %kt, %c4 : index
      // 1. K tile k has landed, for every thread (its own copies, then everyone's), and both
      //    warpgroups are done with K tile k-2 (their wgmma_wait of iteration k-1)
      regcopy.async_wait %gk0 {pending = 1 : i64}
      "gpu.barrier"() : () -> ()
      // 2. refill slot k-2 with K tile k+2 (an empty group past the end)
      %kn = arith.addi %k, %c128 : index
      %more = arith.cmpi ult, %kn, %K : index
      %gn = scf.if %more -> (!regcopy.token) {
        %ktn = arith.addi %kt, %c2 : index
        %sn = arith.remui %ktn, %c4 : index
        %ga0 = regcopy.copy_async cta %A[%m0, %kn] [128, 64] -> %SA[%sn, 0, 0, 0] [1, 1, 128, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x2x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
        %ga1 = regcopy.copy_async cta %A[%m1, %kn] [128, 64] -> %SA[%sn, 1, 0, 0] [1, 1, 128, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x2x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
        %gb = regcopy.copy_async cta %B[%n0, %kn] [8, 64] -> %SB[%sn, 0, 0] [1, 8, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
        %g = regcopy.async_group %ga0, %ga1, %gb
        scf.yield %g : !regcopy.token
      } else {
        %g = regcopy.async_group
        scf.yield %g : !regcopy.token
      }
      // 3. the wgmmas of slot k (four k16 steps an accumulator), not waited for
      regcopy.wgmma warpgroup %SA[%stage, %wg, 0, 0] [1, 1, 64, 64], %SB[%stage, 0, 0] [1, 8, 64], %CE0 {transpose_b, async} : memref<4x2x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>, memref<4x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>, memref<64x8xf32, #regcopy.layout<(4,2,8,1,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
      regcopy.wgmma warpgroup %SA[%stage, %wg, 64, 0] [1, 1, 64, 64], %SB[%stage, 0, 0] [1, 8, 64], %CE1 {transpose_b, async} : memref<4x2x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>, memref<4x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>, memref<64x8xf32, #regcopy.layout<(4,2,8,1,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
      // 4. K tile k-1's wgmmas are done (k's may still run)
      regcopy.wgmma_wait {pending = 2 : i64}
      scf.yield %gk1, %gn : !regcopy.token, !regcopy.token
    }
    regcopy.wgmma_wait {pending = 0 : i64}
    // epilogue: round to f16 in the fragment layout; 32-bit stores from the fragment (bounds-checked)
    %mw = arith.addi %m0, %wm : index
    %mw1 = arith.addi %mw, %c64 : index
    %out = regcopy.storage %COE : memref<64x8xf16, #regcopy.layout<(4,2,8,1,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<4xf16, #regcopy.mem<local>>
    scf.for %i = %c0 to %c4 step %c4 {
      %v = vector.load %acc0[%i] : memref<4xf32, #regcopy.mem<local>>, vector<4xf32>
      %h = arith.truncf %v : vector<4xf32> to vector<4xf16>
      vector.store %h, %out[%i] : memref<4xf16, #regcopy.mem<local>>, vector<4xf16>
    }
    regcopy.copy warpgroup %COE -> %D[%mw, %n0] [64, 8] : memref<64x8xf16, #regcopy.layout<(4,2,8,1,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xf16, #regcopy.mem<global>>
    scf.for %i = %c0 to %c4 step %c4 {
      %v = vector.load %acc1[%i] : memref<4xf32, #regcopy.mem<local>>, vector<4xf32>
      %h = arith.truncf %v : vector<4xf32> to vector<4xf16>
      vector.store %h, %out[%i] : memref<4xf16, #regcopy.mem<local>>, vector<4xf16>
    }
    regcopy.copy warpgroup %COE -> %D[%mw1, %n0] [64, 8] : memref<64x8xf16, #regcopy.layout<(4,2,8,1,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xf16, #regcopy.mem<global>>
  } else {
    // the accumulators start at zero
    %acc0 = regcopy.storage %C0 : memref<64x128xf32, #regcopy.layout<(4,2,8,16,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<64xf32, #regcopy.mem<local>>
    %acc1 = regcopy.storage %C1 : memref<64x128xf32, #regcopy.layout<(4,2,8,16,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<64xf32, #regcopy.mem<local>>
    scf.for %i = %c0 to %c64 step %c4 {
      vector.store %zero, %acc0[%i] : memref<64xf32, #regcopy.mem<local>>, vector<4xf32>
    }
    scf.for %i = %c0 to %c64 step %c4 {
      vector.store %zero, %acc1[%i] : memref<64xf32, #regcopy.mem<local>>, vector<4xf32>
    }
    // prologue: K tiles 0 .. 1 in flight
    %g0a0 = regcopy.copy_async cta %A[%m0, %c0] [128, 64] -> %SA[%c0, 0, 0, 0] [1, 1, 128, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x2x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    %g0a1 = regcopy.copy_async cta %A[%m1, %c0] [128, 64] -> %SA[%c0, 1, 0, 0] [1, 1, 128, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x2x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    %g0b = regcopy.copy_async cta %B[%n0, %c0] [128, 64] -> %SB[%c0, 0, 0] [1, 128, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    %g0 = regcopy.async_group %g0a0, %g0a1, %g0b
    %g1a0 = regcopy.copy_async cta %A[%m0, %c64] [128, 64] -> %SA[%c1, 0, 0, 0] [1, 1, 128, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x2x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    %g1a1 = regcopy.copy_async cta %A[%m1, %c64] [128, 64] -> %SA[%c1, 1, 0, 0] [1, 1, 128, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x2x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    %g1b = regcopy.copy_async cta %B[%n0, %c64] [128, 64] -> %SB[%c1, 0, 0] [1, 128, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    %g1 = regcopy.async_group %g1a0, %g1a1, %g1b
    %done:2 = scf.for %k = %c0 to %K step %c64 iter_args(%gk0 = %g0, %gk1 = %g1) -> (!regcopy.token, !regcopy.token) {
      %kt = arith.divui %k, %c64 : index
      %stage = arith.remui %kt, %c4 : index
      // 1. K tile k has landed, for every thread (its own copies, then everyone's), and both
      //    warpgroups are done with K tile k-2 (their wgmma_wait of iteration k-1)
      regcopy.async_wait %gk0 {pending = 1 : i64}
      "gpu.barrier"() : () -> ()
      // 2. refill slot k-2 with K tile k+2 (an empty group past the end)
      %kn = arith.addi %k, %c128 : index
      %more = arith.cmpi ult, %kn, %K : index
      %gn = scf.if %more -> (!regcopy.token) {
        %ktn = arith.addi %kt, %c2 : index
        %sn = arith.remui %ktn, %c4 : index
        %ga0 = regcopy.copy_async cta %A[%m0, %kn] [128, 64] -> %SA[%sn, 0, 0, 0] [1, 1, 128, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x2x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
        %ga1 = regcopy.copy_async cta %A[%m1, %kn] [128, 64] -> %SA[%sn, 1, 0, 0] [1, 1, 128, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x2x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
        %gb = regcopy.copy_async cta %B[%n0, %kn] [128, 64] -> %SB[%sn, 0, 0] [1, 128, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
        %g = regcopy.async_group %ga0, %ga1, %gb
        scf.yield %g : !regcopy.token
      } else {
        %g = regcopy.async_group
        scf.yield %g : !regcopy.token
      }
      // 3. the wgmmas of slot k (four k16 steps an accumulator), not waited for
      regcopy.wgmma warpgroup %SA[%stage, %wg, 0, 0] [1, 1, 64, 64], %SB[%stage, 0, 0] [1, 128, 64], %C0 {transpose_b, async} : memref<4x2x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>, memref<4x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>, memref<64x128xf32, #regcopy.layout<(4,2,8,16,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
      regcopy.wgmma warpgroup %SA[%stage, %wg, 64, 0] [1, 1, 64, 64], %SB[%stage, 0, 0] [1, 128, 64], %C1 {transpose_b, async} : memref<4x2x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>, memref<4x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>, memref<64x128xf32, #regcopy.layout<(4,2,8,16,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
      // 4. K tile k-1's wgmmas are done (k's may still run)
      regcopy.wgmma_wait {pending = 2 : i64}
      scf.yield %gk1, %gn : !regcopy.token, !regcopy.token
    }
    regcopy.wgmma_wait {pending = 0 : i64}
    // epilogue: round to f16 in the fragment layout; convert to a warp along a row, 8 a lane, 128-bit stores (bounds-checked)
    %mw = arith.addi %m0, %wm : index
    %mw1 = arith.addi %mw, %c64 : index
    %out = regcopy.storage %CO : memref<64x128xf16, #regcopy.layout<(4,2,8,16,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<64xf16, #regcopy.mem<local>>
    scf.for %i = %c0 to %c64 step %c4 {
      %v = vector.load %acc0[%i] : memref<64xf32, #regcopy.mem<local>>, vector<4xf32>
      %h = arith.truncf %v : vector<4xf32> to vector<4xf16>
      vector.store %h, %out[%i] : memref<64xf16, #regcopy.mem<local>>, vector<4xf16>
    }
    regcopy.copy warpgroup %CO -> %RO {conversion = "shuffle"} : memref<64x128xf16, #regcopy.layout<(4,2,8,16,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<64x128xf16, #regcopy.layout<(4,8,2,16,8):(1@wid_in_wg,8,16@laneid,1@laneid,1)>, #regcopy.mem<local>>
    regcopy.copy warpgroup %RO -> %D[%mw, %n0] [64, 128] {misaligned_stores = "realigned"} : memref<64x128xf16, #regcopy.layout<(4,8,2,16,8):(1@wid_in_wg,8,16@laneid,1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xf16, #regcopy.mem<global>>
    scf.for %i = %c0 to %c64 step %c4 {
      %v = vector.load %acc1[%i] : memref<64xf32, #regcopy.mem<local>>, vector<4xf32>
      %h = arith.truncf %v : vector<4xf32> to vector<4xf16>
      vector.store %h, %out[%i] : memref<64xf16, #regcopy.mem<local>>, vector<4xf16>
    }
    regcopy.copy warpgroup %CO -> %RO {conversion = "shuffle"} : memref<64x128xf16, #regcopy.layout<(4,2,8,16,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<64x128xf16, #regcopy.layout<(4,8,2,16,8):(1@wid_in_wg,8,16@laneid,1@laneid,1)>, #regcopy.mem<local>>
    regcopy.copy warpgroup %RO -> %D[%mw1, %n0] [64, 128] {misaligned_stores = "realigned"} : memref<64x128xf16, #regcopy.layout<(4,8,2,16,8):(1@wid_in_wg,8,16@laneid,1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xf16, #regcopy.mem<global>>
  }
  func.return
}

func.func @gemm_hopper_256x128_bf16(%A: memref<?x?xbf16, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>},
    %B: memref<?x?xbf16, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>},
    %D: memref<?x?xbf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [1, 1]>} {
  %SA = memref.alloca() : memref<4x2x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %SB = memref.alloca() : memref<4x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %C0 = memref.alloca() : memref<64x128xf32, #regcopy.layout<(4,2,8,16,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %C1 = memref.alloca() : memref<64x128xf32, #regcopy.layout<(4,2,8,16,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %CO = memref.alloca() : memref<64x128xbf16, #regcopy.layout<(4,2,8,16,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %RO = memref.alloca() : memref<64x128xbf16, #regcopy.layout<(4,8,2,16,8):(1@wid_in_wg,8,16@laneid,1@laneid,1)>, #regcopy.mem<local>>
  %CE0 = memref.alloca() : memref<64x8xf32, #regcopy.layout<(4,2,8,1,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %CE1 = memref.alloca() : memref<64x8xf32, #regcopy.layout<(4,2,8,1,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %COE = memref.alloca() : memref<64x8xbf16, #regcopy.layout<(4,2,8,1,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c192 = arith.constant 192 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  %K = memref.dim %A, %c1 : memref<?x?xbf16, #regcopy.mem<global>>
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  // this thread's warpgroup: rows 128 wg .. of the CTA's tile
  %wg = arith.divui %tid, %c128 : index
  %wm = arith.muli %wg, %c128 : index
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
  // the CTA's tile (pm, pn), in groups of 8 M tiles that walk N together (L2 reuse)
  %gx = "gpu.grid_dim"() <{dimension = #gpu<dim x>}> : () -> index
  %gy = "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
  %byx = arith.muli %by, %gx : index
  %pid = arith.addi %byx, %bx : index
  %width = arith.muli %gx, %c8 : index
  %group = arith.divui %pid, %width : index
  %first = arith.muli %group, %c8 : index
  %left = arith.subi %gy, %first : index
  %size = arith.minui %left, %c8 : index
  %inside = arith.remui %pid, %width : index
  %pmo = arith.remui %inside, %size : index
  %pm = arith.addi %first, %pmo : index
  %pn = arith.divui %inside, %size : index
  %m0 = arith.muli %pm, %c256 : index
  %m1 = arith.addi %m0, %c128 : index
  %n0 = arith.muli %pn, %c128 : index
  // the last column of CTAs with at most 8 columns left: a 256 x 8 tile
  %N = memref.dim %B, %c0 : memref<?x?xbf16, #regcopy.mem<global>>
  %rest = arith.subi %N, %n0 : index
  %narrow = arith.cmpi ule, %rest, %c8 : index
  scf.if %narrow {
    // the accumulators start at zero
    %acc0 = regcopy.storage %CE0 : memref<64x8xf32, #regcopy.layout<(4,2,8,1,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<4xf32, #regcopy.mem<local>>
    %acc1 = regcopy.storage %CE1 : memref<64x8xf32, #regcopy.layout<(4,2,8,1,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<4xf32, #regcopy.mem<local>>
    scf.for %i = %c0 to %c4 step %c4 {
      vector.store %zero, %acc0[%i] : memref<4xf32, #regcopy.mem<local>>, vector<4xf32>
    }
    scf.for %i = %c0 to %c4 step %c4 {
      vector.store %zero, %acc1[%i] : memref<4xf32, #regcopy.mem<local>>, vector<4xf32>
    }
    // prologue: K tiles 0 .. 1 in flight
    %g0a0 = regcopy.copy_async cta %A[%m0, %c0] [128, 64] -> %SA[%c0, 0, 0, 0] [1, 1, 128, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x2x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    %g0a1 = regcopy.copy_async cta %A[%m1, %c0] [128, 64] -> %SA[%c0, 1, 0, 0] [1, 1, 128, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x2x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    %g0b = regcopy.copy_async cta %B[%n0, %c0] [8, 64] -> %SB[%c0, 0, 0] [1, 8, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    %g0 = regcopy.async_group %g0a0, %g0a1, %g0b
    %g1a0 = regcopy.copy_async cta %A[%m0, %c64] [128, 64] -> %SA[%c1, 0, 0, 0] [1, 1, 128, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x2x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    %g1a1 = regcopy.copy_async cta %A[%m1, %c64] [128, 64] -> %SA[%c1, 1, 0, 0] [1, 1, 128, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x2x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    %g1b = regcopy.copy_async cta %B[%n0, %c64] [8, 64] -> %SB[%c1, 0, 0] [1, 8, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    %g1 = regcopy.async_group %g1a0, %g1a1, %g1b
    %done:2 = scf.for %k = %c0 to %K step %c64 iter_args(%gk0 = %g0, %gk1 = %g1) -> (!regcopy.token, !regcopy.token) {
      %kt = arith.divui %k, %c64 : index
      %stage = arith.remui %kt, %c4 : index
      // 1. K tile k has landed, for every thread (its own copies, then everyone's), and both
      //    warpgroups are done with K tile k-2 (their wgmma_wait of iteration k-1)
      regcopy.async_wait %gk0 {pending = 1 : i64}
      "gpu.barrier"() : () -> ()
      // 2. refill slot k-2 with K tile k+2 (an empty group past the end)
      %kn = arith.addi %k, %c128 : index
      %more = arith.cmpi ult, %kn, %K : index
      %gn = scf.if %more -> (!regcopy.token) {
        %ktn = arith.addi %kt, %c2 : index
        %sn = arith.remui %ktn, %c4 : index
        %ga0 = regcopy.copy_async cta %A[%m0, %kn] [128, 64] -> %SA[%sn, 0, 0, 0] [1, 1, 128, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x2x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
        %ga1 = regcopy.copy_async cta %A[%m1, %kn] [128, 64] -> %SA[%sn, 1, 0, 0] [1, 1, 128, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x2x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
        %gb = regcopy.copy_async cta %B[%n0, %kn] [8, 64] -> %SB[%sn, 0, 0] [1, 8, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
        %g = regcopy.async_group %ga0, %ga1, %gb
        scf.yield %g : !regcopy.token
      } else {
        %g = regcopy.async_group
        scf.yield %g : !regcopy.token
      }
      // 3. the wgmmas of slot k (four k16 steps an accumulator), not waited for
      regcopy.wgmma warpgroup %SA[%stage, %wg, 0, 0] [1, 1, 64, 64], %SB[%stage, 0, 0] [1, 8, 64], %CE0 {transpose_b, async} : memref<4x2x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>, memref<4x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>, memref<64x8xf32, #regcopy.layout<(4,2,8,1,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
      regcopy.wgmma warpgroup %SA[%stage, %wg, 64, 0] [1, 1, 64, 64], %SB[%stage, 0, 0] [1, 8, 64], %CE1 {transpose_b, async} : memref<4x2x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>, memref<4x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>, memref<64x8xf32, #regcopy.layout<(4,2,8,1,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
      // 4. K tile k-1's wgmmas are done (k's may still run)
      regcopy.wgmma_wait {pending = 2 : i64}
      scf.yield %gk1, %gn : !regcopy.token, !regcopy.token
    }
    regcopy.wgmma_wait {pending = 0 : i64}
    // epilogue: round to bf16 in the fragment layout; 32-bit stores from the fragment (bounds-checked)
    %mw = arith.addi %m0, %wm : index
    %mw1 = arith.addi %mw, %c64 : index
    %out = regcopy.storage %COE : memref<64x8xbf16, #regcopy.layout<(4,2,8,1,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<4xbf16, #regcopy.mem<local>>
    scf.for %i = %c0 to %c4 step %c4 {
      %v = vector.load %acc0[%i] : memref<4xf32, #regcopy.mem<local>>, vector<4xf32>
      %h = arith.truncf %v : vector<4xf32> to vector<4xbf16>
      vector.store %h, %out[%i] : memref<4xbf16, #regcopy.mem<local>>, vector<4xbf16>
    }
    regcopy.copy warpgroup %COE -> %D[%mw, %n0] [64, 8] : memref<64x8xbf16, #regcopy.layout<(4,2,8,1,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xbf16, #regcopy.mem<global>>
    scf.for %i = %c0 to %c4 step %c4 {
      %v = vector.load %acc1[%i] : memref<4xf32, #regcopy.mem<local>>, vector<4xf32>
      %h = arith.truncf %v : vector<4xf32> to vector<4xbf16>
      vector.store %h, %out[%i] : memref<4xbf16, #regcopy.mem<local>>, vector<4xbf16>
    }
    regcopy.copy warpgroup %COE -> %D[%mw1, %n0] [64, 8] : memref<64x8xbf16, #regcopy.layout<(4,2,8,1,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xbf16, #regcopy.mem<global>>
  } else {
    // the accumulators start at zero
    %acc0 = regcopy.storage %C0 : memref<64x128xf32, #regcopy.layout<(4,2,8,16,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<64xf32, #regcopy.mem<local>>
    %acc1 = regcopy.storage %C1 : memref<64x128xf32, #regcopy.layout<(4,2,8,16,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<64xf32, #regcopy.mem<local>>
    scf.for %i = %c0 to %c64 step %c4 {
      vector.store %zero, %acc0[%i] : memref<64xf32, #regcopy.mem<local>>, vector<4xf32>
    }
    scf.for %i = %c0 to %c64 step %c4 {
      vector.store %zero, %acc1[%i] : memref<64xf32, #regcopy.mem<local>>, vector<4xf32>
    }
    // prologue: K tiles 0 .. 1 in flight
    %g0a0 = regcopy.copy_async cta %A[%m0, %c0] [128, 64] -> %SA[%c0, 0, 0, 0] [1, 1, 128, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x2x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    %g0a1 = regcopy.copy_async cta %A[%m1, %c0] [128, 64] -> %SA[%c0, 1, 0, 0] [1, 1, 128, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x2x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    %g0b = regcopy.copy_async cta %B[%n0, %c0] [128, 64] -> %SB[%c0, 0, 0] [1, 128, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    %g0 = regcopy.async_group %g0a0, %g0a1, %g0b
    %g1a0 = regcopy.copy_async cta %A[%m0, %c64] [128, 64] -> %SA[%c1, 0, 0, 0] [1, 1, 128, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x2x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    %g1a1 = regcopy.copy_async cta %A[%m1, %c64] [128, 64] -> %SA[%c1, 1, 0, 0] [1, 1, 128, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x2x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    %g1b = regcopy.copy_async cta %B[%n0, %c64] [128, 64] -> %SB[%c1, 0, 0] [1, 128, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    %g1 = regcopy.async_group %g1a0, %g1a1, %g1b
    %done:2 = scf.for %k = %c0 to %K step %c64 iter_args(%gk0 = %g0, %gk1 = %g1) -> (!regcopy.token, !regcopy.token) {
      %kt = arith.divui %k, %c64 : index
      %stage = arith.remui %kt, %c4 : index
      // 1. K tile k has landed, for every thread (its own copies, then everyone's), and both
      //    warpgroups are done with K tile k-2 (their wgmma_wait of iteration k-1)
      regcopy.async_wait %gk0 {pending = 1 : i64}
      "gpu.barrier"() : () -> ()
      // 2. refill slot k-2 with K tile k+2 (an empty group past the end)
      %kn = arith.addi %k, %c128 : index
      %more = arith.cmpi ult, %kn, %K : index
      %gn = scf.if %more -> (!regcopy.token) {
        %ktn = arith.addi %kt, %c2 : index
        %sn = arith.remui %ktn, %c4 : index
        %ga0 = regcopy.copy_async cta %A[%m0, %kn] [128, 64] -> %SA[%sn, 0, 0, 0] [1, 1, 128, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x2x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
        %ga1 = regcopy.copy_async cta %A[%m1, %kn] [128, 64] -> %SA[%sn, 1, 0, 0] [1, 1, 128, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x2x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
        %gb = regcopy.copy_async cta %B[%n0, %kn] [128, 64] -> %SB[%sn, 0, 0] [1, 128, 64] : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
        %g = regcopy.async_group %ga0, %ga1, %gb
        scf.yield %g : !regcopy.token
      } else {
        %g = regcopy.async_group
        scf.yield %g : !regcopy.token
      }
      // 3. the wgmmas of slot k (four k16 steps an accumulator), not waited for
      regcopy.wgmma warpgroup %SA[%stage, %wg, 0, 0] [1, 1, 64, 64], %SB[%stage, 0, 0] [1, 128, 64], %C0 {transpose_b, async} : memref<4x2x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>, memref<4x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>, memref<64x128xf32, #regcopy.layout<(4,2,8,16,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
      regcopy.wgmma warpgroup %SA[%stage, %wg, 64, 0] [1, 1, 64, 64], %SB[%stage, 0, 0] [1, 128, 64], %C1 {transpose_b, async} : memref<4x2x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>, memref<4x128x64xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>, memref<64x128xf32, #regcopy.layout<(4,2,8,16,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
      // 4. K tile k-1's wgmmas are done (k's may still run)
      regcopy.wgmma_wait {pending = 2 : i64}
      scf.yield %gk1, %gn : !regcopy.token, !regcopy.token
    }
    regcopy.wgmma_wait {pending = 0 : i64}
    // epilogue: round to bf16 in the fragment layout; convert to a warp along a row, 8 a lane, 128-bit stores (bounds-checked)
    %mw = arith.addi %m0, %wm : index
    %mw1 = arith.addi %mw, %c64 : index
    %out = regcopy.storage %CO : memref<64x128xbf16, #regcopy.layout<(4,2,8,16,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<64xbf16, #regcopy.mem<local>>
    scf.for %i = %c0 to %c64 step %c4 {
      %v = vector.load %acc0[%i] : memref<64xf32, #regcopy.mem<local>>, vector<4xf32>
      %h = arith.truncf %v : vector<4xf32> to vector<4xbf16>
      vector.store %h, %out[%i] : memref<64xbf16, #regcopy.mem<local>>, vector<4xbf16>
    }
    regcopy.copy warpgroup %CO -> %RO {conversion = "shuffle"} : memref<64x128xbf16, #regcopy.layout<(4,2,8,16,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<64x128xbf16, #regcopy.layout<(4,8,2,16,8):(1@wid_in_wg,8,16@laneid,1@laneid,1)>, #regcopy.mem<local>>
    regcopy.copy warpgroup %RO -> %D[%mw, %n0] [64, 128] {misaligned_stores = "realigned"} : memref<64x128xbf16, #regcopy.layout<(4,8,2,16,8):(1@wid_in_wg,8,16@laneid,1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xbf16, #regcopy.mem<global>>
    scf.for %i = %c0 to %c64 step %c4 {
      %v = vector.load %acc1[%i] : memref<64xf32, #regcopy.mem<local>>, vector<4xf32>
      %h = arith.truncf %v : vector<4xf32> to vector<4xbf16>
      vector.store %h, %out[%i] : memref<64xbf16, #regcopy.mem<local>>, vector<4xbf16>
    }
    regcopy.copy warpgroup %CO -> %RO {conversion = "shuffle"} : memref<64x128xbf16, #regcopy.layout<(4,2,8,16,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<64x128xbf16, #regcopy.layout<(4,8,2,16,8):(1@wid_in_wg,8,16@laneid,1@laneid,1)>, #regcopy.mem<local>>
    regcopy.copy warpgroup %RO -> %D[%mw1, %n0] [64, 128] {misaligned_stores = "realigned"} : memref<64x128xbf16, #regcopy.layout<(4,8,2,16,8):(1@wid_in_wg,8,16@laneid,1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xbf16, #regcopy.mem<global>>
  }
  func.return
}

func.func @pad_pair(%X1: memref<?x?xf16, #regcopy.mem<global>>, %Y1: memref<?x?xf16, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>}, %X2: memref<?x?xf16, #regcopy.mem<global>>, %Y2: memref<?x?xf16, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>})
    attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [1, 1, 2]>} {
  %R = memref.alloca() : memref<4x1024xf16, #regcopy.layout<(2,2,128,8):(8,128@tx,1@tx,1)>, #regcopy.mem<local>>
  %c0 = arith.constant 0 : index
  %crows = arith.constant 4 : index
  %c1024 = arith.constant 1024 : index
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
  %bz = "gpu.block_id"() <{dimension = #gpu<dim z>}> : () -> index
  %r0 = arith.muli %by, %crows : index
  %k0 = arith.muli %bx, %c1024 : index
  %first = arith.cmpi eq, %bz, %c0 : index
  scf.if %first {
    regcopy.copy cta %X1[%r0, %k0] [4, 1024] -> %R : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x1024xf16, #regcopy.layout<(2,2,128,8):(8,128@tx,1@tx,1)>, #regcopy.mem<local>>
    regcopy.copy cta %R -> %Y1[%r0, %k0] [4, 1024] : memref<4x1024xf16, #regcopy.layout<(2,2,128,8):(8,128@tx,1@tx,1)>, #regcopy.mem<local>> -> memref<?x?xf16, #regcopy.mem<global>>
  } else {
    regcopy.copy cta %X2[%r0, %k0] [4, 1024] -> %R : memref<?x?xf16, #regcopy.mem<global>> -> memref<4x1024xf16, #regcopy.layout<(2,2,128,8):(8,128@tx,1@tx,1)>, #regcopy.mem<local>>
    regcopy.copy cta %R -> %Y2[%r0, %k0] [4, 1024] : memref<4x1024xf16, #regcopy.layout<(2,2,128,8):(8,128@tx,1@tx,1)>, #regcopy.mem<local>> -> memref<?x?xf16, #regcopy.mem<global>>
  }
  func.return
}

func.func @pad_pair_bf16(%X1: memref<?x?xbf16, #regcopy.mem<global>>, %Y1: memref<?x?xbf16, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>}, %X2: memref<?x?xbf16, #regcopy.mem<global>>, %Y2: memref<?x?xbf16, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>})
    attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [1, 1, 2]>} {
  %R = memref.alloca() : memref<4x1024xbf16, #regcopy.layout<(2,2,128,8):(8,128@tx,1@tx,1)>, #regcopy.mem<local>>
  %c0 = arith.constant 0 : index
  %crows = arith.constant 4 : index
  %c1024 = arith.constant 1024 : index
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
  %bz = "gpu.block_id"() <{dimension = #gpu<dim z>}> : () -> index
  %r0 = arith.muli %by, %crows : index
  %k0 = arith.muli %bx, %c1024 : index
  %first = arith.cmpi eq, %bz, %c0 : index
  scf.if %first {
    regcopy.copy cta %X1[%r0, %k0] [4, 1024] -> %R : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x1024xbf16, #regcopy.layout<(2,2,128,8):(8,128@tx,1@tx,1)>, #regcopy.mem<local>>
    regcopy.copy cta %R -> %Y1[%r0, %k0] [4, 1024] : memref<4x1024xbf16, #regcopy.layout<(2,2,128,8):(8,128@tx,1@tx,1)>, #regcopy.mem<local>> -> memref<?x?xbf16, #regcopy.mem<global>>
  } else {
    regcopy.copy cta %X2[%r0, %k0] [4, 1024] -> %R : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4x1024xbf16, #regcopy.layout<(2,2,128,8):(8,128@tx,1@tx,1)>, #regcopy.mem<local>>
    regcopy.copy cta %R -> %Y2[%r0, %k0] [4, 1024] : memref<4x1024xbf16, #regcopy.layout<(2,2,128,8):(8,128@tx,1@tx,1)>, #regcopy.mem<local>> -> memref<?x?xbf16, #regcopy.mem<global>>
  }
  func.return
}
