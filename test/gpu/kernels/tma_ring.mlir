// A 3-stage ring of async copies: each of the 4 CTAs streams 8 tiles of 64x64 f16 into a
// 128B-swizzled shared ring (stage k % 3), copies for tile k+2 in flight while tile k is read
// (pending = 2; the last two refills re-read tile 7), and writes each tile back out: O must equal G bit for bit. With
// lower-reg-copy{transfer=tma} every copy is one TMA load on a 3-slot mbarrier ring; by
// default they are cp.async.
func.func @tma_ring(%G: memref<2048x64xf16, #regcopy.mem<global>>, %O: memref<2048x64xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [4]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c4096 = arith.constant 4096 : index
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %S = memref.alloca() : memref<3x64x64xf16, #regcopy.layout<(3,64,64):(4096,64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
  %tile0 = arith.muli %bid, %c8 : index
  %tlast = arith.addi %tile0, %c7 : index
  %row0 = arith.muli %tile0, %c64 : index
  %t0 = regcopy.copy_async cta %G[%row0, 0] [64, 64] -> %S[0, 0, 0] [1, 64, 64] : memref<2048x64xf16, #regcopy.mem<global>> -> memref<3x64x64xf16, #regcopy.layout<(3,64,64):(4096,64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
  %g0 = regcopy.async_group %t0
  %row1 = arith.addi %row0, %c64 : index
  %t1 = regcopy.copy_async cta %G[%row1, 0] [64, 64] -> %S[1, 0, 0] [1, 64, 64] : memref<2048x64xf16, #regcopy.mem<global>> -> memref<3x64x64xf16, #regcopy.layout<(3,64,64):(4096,64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
  %g1 = regcopy.async_group %t1
  %last:2 = scf.for %k = %c0 to %c8 step %c1 iter_args(%ga = %g0, %gb = %g1) -> (!regcopy.token, !regcopy.token) {
    %k2 = arith.addi %k, %c2 : index
    %s2 = arith.remui %k2, %c3 : index
    %tk2 = arith.addi %tile0, %k2 : index
    %tk2c = arith.minui %tk2, %tlast : index
    %rk2 = arith.muli %tk2c, %c64 : index
    %t = regcopy.copy_async cta %G[%rk2, 0] [64, 64] -> %S[%s2, 0, 0] [1, 64, 64] : memref<2048x64xf16, #regcopy.mem<global>> -> memref<3x64x64xf16, #regcopy.layout<(3,64,64):(4096,64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
    %gc = regcopy.async_group %t
    regcopy.async_wait %ga {pending = 2 : i64}
    %s = arith.remui %k, %c3 : index
    %tk = arith.addi %tile0, %k : index
    %rk = arith.muli %tk, %c64 : index
    scf.for %i = %tid to %c4096 step %c128 {
      %r = arith.divui %i, %c64 : index
      %c = arith.remui %i, %c64 : index
      %v = memref.load %S[%s, %r, %c] : memref<3x64x64xf16, #regcopy.layout<(3,64,64):(4096,64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
      %orow = arith.addi %rk, %r : index
      memref.store %v, %O[%orow, %c] : memref<2048x64xf16, #regcopy.mem<global>>
    }
    "gpu.barrier"() : () -> ()
    scf.yield %gb, %gc : !regcopy.token, !regcopy.token
  }
  func.return
}
