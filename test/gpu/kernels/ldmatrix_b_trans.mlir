// issue 10: the m16n8k16 B fragment (f16) from a K x N (16 x 8) row-major shared tile: each
// register pairs two K-consecutive elements of one column, so ldmatrix.x2.trans / stmatrix.x2.trans.
// global %in -> S (scalar loop) -> R (regcopy.copy, the fragment load) -> %regs[t, :] (each
// thread's register slots in order) and R -> S2 (regcopy.copy, the fragment store) -> %out.
//
// Expected: regs[l, 2kh+p] = in[2c + 8kh + p, g]; out = in.
func.func @ldmatrix_b_trans(%in: memref<16x8xf16, #regcopy.mem<global>>,
                           %out: memref<16x8xf16, #regcopy.mem<global>>,
                           %regs: memref<32x4xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<16x8xf16, #regcopy.mem<shared>>
  %S2 = memref.alloca() : memref<16x8xf16, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<16x8xf16, #regcopy.layout<(2,4,2,8):(2,1@laneid,1,4@laneid)>, #regcopy.mem<local>>
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %cfill = arith.constant 4 : index
  scf.for %j = %c0 to %cfill step %c1 {
    %e0 = arith.muli %j, %c32 : index
    %e = arith.addi %e0, %tid : index
    %row = arith.divsi %e, %c8 : index
    %col = arith.remsi %e, %c8 : index
    %v = memref.load %in[%row, %col] : memref<16x8xf16, #regcopy.mem<global>>
    memref.store %v, %S[%row, %col] : memref<16x8xf16, #regcopy.mem<shared>>
  }
  "gpu.barrier"() : () -> ()
  regcopy.copy warp %S -> %R : memref<16x8xf16, #regcopy.mem<shared>> -> memref<16x8xf16, #regcopy.layout<(2,4,2,8):(2,1@laneid,1,4@laneid)>, #regcopy.mem<local>>
  %r = regcopy.storage %R : memref<16x8xf16, #regcopy.layout<(2,4,2,8):(2,1@laneid,1,4@laneid)>, #regcopy.mem<local>> -> memref<4xf16, #regcopy.mem<local>>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %r[%i] : memref<4xf16, #regcopy.mem<local>>
    memref.store %v, %regs[%tid, %i] : memref<32x4xf16, #regcopy.mem<global>>
  }
  regcopy.copy warp %R -> %S2 : memref<16x8xf16, #regcopy.layout<(2,4,2,8):(2,1@laneid,1,4@laneid)>, #regcopy.mem<local>> -> memref<16x8xf16, #regcopy.mem<shared>>
  "gpu.barrier"() : () -> ()
  %cout = arith.constant 4 : index
  scf.for %j = %c0 to %cout step %c1 {
    %e0 = arith.muli %j, %c32 : index
    %e = arith.addi %e0, %tid : index
    %row = arith.divsi %e, %c8 : index
    %col = arith.remsi %e, %c8 : index
    %v = memref.load %S2[%row, %col] : memref<16x8xf16, #regcopy.mem<shared>>
    memref.store %v, %out[%row, %col] : memref<16x8xf16, #regcopy.mem<global>>
  }
  func.return
}
