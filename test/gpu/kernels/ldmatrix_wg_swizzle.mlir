// issue 10: a warpgroup loads A fragments from a 64 x 64 f16 tile under swizzle<3,3,3>
// (128-byte rows): warp w takes rows 16w.., 4 k16 tiles, 4 ldmatrix.x4 a warp; the 16-byte
// rows stay inside the swizzle's 16-byte chunks.
// global %in -> S (scalar loop) -> R (regcopy.copy, the fragment load) -> %regs[t, :] (each
// thread's register slots in order) and R -> S2 (regcopy.copy, the fragment store) -> %out.
//
// Expected: regs[t, 8ki+4kh+2h+p] = in[16w + g + 8h, 16ki + 2c + 8kh + p] (w = t/32, l = t%32);
// out = in.
func.func @ldmatrix_wg_swizzle(%in: memref<64x64xf16, #regcopy.mem<global>>,
                              %out: memref<64x64xf16, #regcopy.mem<global>>,
                              %regs: memref<128x32xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %S = memref.alloca() : memref<64x64xf16, #regcopy.layout<(64,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
  %S2 = memref.alloca() : memref<64x64xf16, #regcopy.layout<(64,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<64x64xf16, #regcopy.layout<(4,2,8,4,2,4,2):(1@wid_in_wg,2,4@laneid,8,4,1@laneid,1)>, #regcopy.mem<local>>
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %cfill = arith.constant 32 : index
  scf.for %j = %c0 to %cfill step %c1 {
    %e0 = arith.muli %j, %c128 : index
    %e = arith.addi %e0, %tid : index
    %row = arith.divsi %e, %c64 : index
    %col = arith.remsi %e, %c64 : index
    %v = memref.load %in[%row, %col] : memref<64x64xf16, #regcopy.mem<global>>
    memref.store %v, %S[%row, %col] : memref<64x64xf16, #regcopy.layout<(64,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
  }
  "gpu.barrier"() : () -> ()
  regcopy.copy warpgroup %S -> %R : memref<64x64xf16, #regcopy.layout<(64,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>> -> memref<64x64xf16, #regcopy.layout<(4,2,8,4,2,4,2):(1@wid_in_wg,2,4@laneid,8,4,1@laneid,1)>, #regcopy.mem<local>>
  %r = regcopy.storage %R : memref<64x64xf16, #regcopy.layout<(4,2,8,4,2,4,2):(1@wid_in_wg,2,4@laneid,8,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<32xf16, #regcopy.mem<local>>
  scf.for %i = %c0 to %c32 step %c1 {
    %v = memref.load %r[%i] : memref<32xf16, #regcopy.mem<local>>
    memref.store %v, %regs[%tid, %i] : memref<128x32xf16, #regcopy.mem<global>>
  }
  regcopy.copy warpgroup %R -> %S2 : memref<64x64xf16, #regcopy.layout<(4,2,8,4,2,4,2):(1@wid_in_wg,2,4@laneid,8,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<64x64xf16, #regcopy.layout<(64,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
  "gpu.barrier"() : () -> ()
  %cout = arith.constant 32 : index
  scf.for %j = %c0 to %cout step %c1 {
    %e0 = arith.muli %j, %c128 : index
    %e = arith.addi %e0, %tid : index
    %row = arith.divsi %e, %c64 : index
    %col = arith.remsi %e, %c64 : index
    %v = memref.load %S2[%row, %col] : memref<64x64xf16, #regcopy.layout<(64,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
    memref.store %v, %out[%row, %col] : memref<64x64xf16, #regcopy.mem<global>>
  }
  func.return
}
