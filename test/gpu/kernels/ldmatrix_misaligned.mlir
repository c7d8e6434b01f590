// issue 10: the A fragment from columns 4..20 of a 16 x 24 f16 tile: the slice base is 8 bytes
// past a 16-byte boundary, so ldmatrix does not apply (the per-thread path, 32-bit, runs).
// global %in -> S (scalar loop) -> R (regcopy.copy, the fragment load) -> %regs[t, :] (each
// thread's register slots in order) and R -> S2 (regcopy.copy, the fragment store) -> %out.
//
// Expected: regs[l, 4kh+2h+p] = in[g + 8h, 4 + 2c + 8kh + p]; out = in[:, 4:20].
func.func @ldmatrix_misaligned(%in: memref<16x24xf16, #regcopy.mem<global>>,
                              %out: memref<16x16xf16, #regcopy.mem<global>>,
                              %regs: memref<32x8xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<16x24xf16, #regcopy.mem<shared>>
  %S2 = memref.alloca() : memref<16x24xf16, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c24 = arith.constant 24 : index
  %c32 = arith.constant 32 : index
  %c_r0 = arith.constant 0 : index
  %c_c0 = arith.constant 4 : index
  %cfill = arith.constant 12 : index
  scf.for %j = %c0 to %cfill step %c1 {
    %e0 = arith.muli %j, %c32 : index
    %e = arith.addi %e0, %tid : index
    %row = arith.divsi %e, %c24 : index
    %col = arith.remsi %e, %c24 : index
    %v = memref.load %in[%row, %col] : memref<16x24xf16, #regcopy.mem<global>>
    memref.store %v, %S[%row, %col] : memref<16x24xf16, #regcopy.mem<shared>>
  }
  "gpu.barrier"() : () -> ()
  regcopy.copy warp %S[0, 4] [16, 16] -> %R : memref<16x24xf16, #regcopy.mem<shared>> -> memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %r = regcopy.storage %R : memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<8xf16, #regcopy.mem<local>>
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %r[%i] : memref<8xf16, #regcopy.mem<local>>
    memref.store %v, %regs[%tid, %i] : memref<32x8xf16, #regcopy.mem<global>>
  }
  regcopy.copy warp %R -> %S2[0, 4] [16, 16] : memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<16x24xf16, #regcopy.mem<shared>>
  "gpu.barrier"() : () -> ()
  %cout = arith.constant 8 : index
  scf.for %j = %c0 to %cout step %c1 {
    %e0 = arith.muli %j, %c32 : index
    %e = arith.addi %e0, %tid : index
    %row = arith.divsi %e, %c16 : index
    %col = arith.remsi %e, %c16 : index
    %srow = arith.addi %row, %c_r0 : index
    %scol = arith.addi %col, %c_c0 : index
    %v = memref.load %S2[%srow, %scol] : memref<16x24xf16, #regcopy.mem<shared>>
    memref.store %v, %out[%row, %col] : memref<16x16xf16, #regcopy.mem<global>>
  }
  func.return
}
