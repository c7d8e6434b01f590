// ldmatrix for a replicated register tile: the A operand of a Triton dot (#dot_op, mma
// m16n8k16 fragments; warpsPerCTA [2, 2]: warp 2 wm + wn holds rows 16 wm .. 16 wm + 15, both
// wn hold the same rows: replicate<2:1@warpid>), 32 x 64 f16 read from a 128-byte-swizzled
// shared tile. Each replica group issues the same ldmatrix.x4 (4 a warp, no bank conflict);
// every thread then dumps its 32 registers, in register order, to row tid of %O, so that
// --check (GPU against the CPU interpreter's un-lowered copy) compares every replica.
!R = memref<32x64xf16, #regcopy.layout<(2,2,8,4,2,4,2):(2@warpid,2,4@laneid,8,4,1@laneid,1), replicate<2:1@warpid>>, #regcopy.mem<local>>
!S = memref<32x64xf16, #regcopy.layout<(32,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
func.func @dot_a_replicated(%G: memref<32x64xf16, #regcopy.mem<global>>, %O: memref<128x32xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %S = memref.alloca() : !S
  %R = memref.alloca() : !R
  %t = regcopy.copy_async cta %G[0, 0] [32, 64] -> %S[0, 0] [32, 64] : memref<32x64xf16, #regcopy.mem<global>> -> !S
  %g = regcopy.async_group %t
  regcopy.async_wait %g {pending = 0 : i64}
  "gpu.barrier"() : () -> ()
  regcopy.copy cta %S -> %R : !S -> !R
  %regs = regcopy.storage %R : !R -> memref<32xf16, #regcopy.mem<local>>
  scf.for %k = %c0 to %c32 step %c1 {
    %v = memref.load %regs[%k] : memref<32xf16, #regcopy.mem<local>>
    memref.store %v, %O[%tid, %k] : memref<128x32xf16, #regcopy.mem<global>>
  }
  func.return
}
