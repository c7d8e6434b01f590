// issue 10: the m16n8 C/D fragment (bf16, two elements a register) to and from a 16 x 8
// shared tile: stmatrix.x2 / ldmatrix.x2.
// global %in -> S (scalar loop) -> R (regcopy.copy, the fragment load) -> %regs[t, :] (each
// thread's register slots in order) and R -> S2 (regcopy.copy, the fragment store) -> %out.
//
// Expected: regs[l, 2h+p] = in[g + 8h, 2c + p]; out = in.
func.func @ldmatrix_c_bf16(%in: memref<16x8xbf16, #regcopy.mem<global>>,
                          %out: memref<16x8xbf16, #regcopy.mem<global>>,
                          %regs: memref<32x4xbf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<16x8xbf16, #regcopy.mem<shared>>
  %S2 = memref.alloca() : memref<16x8xbf16, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<16x8xbf16, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
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
    %v = memref.load %in[%row, %col] : memref<16x8xbf16, #regcopy.mem<global>>
    memref.store %v, %S[%row, %col] : memref<16x8xbf16, #regcopy.mem<shared>>
  }
  "gpu.barrier"() : () -> ()
  regcopy.copy warp %S -> %R : memref<16x8xbf16, #regcopy.mem<shared>> -> memref<16x8xbf16, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  %r = regcopy.storage %R : memref<16x8xbf16, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>> -> memref<4xbf16, #regcopy.mem<local>>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %r[%i] : memref<4xbf16, #regcopy.mem<local>>
    memref.store %v, %regs[%tid, %i] : memref<32x4xbf16, #regcopy.mem<global>>
  }
  regcopy.copy warp %R -> %S2 : memref<16x8xbf16, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>> -> memref<16x8xbf16, #regcopy.mem<shared>>
  "gpu.barrier"() : () -> ()
  %cout = arith.constant 4 : index
  scf.for %j = %c0 to %cout step %c1 {
    %e0 = arith.muli %j, %c32 : index
    %e = arith.addi %e0, %tid : index
    %row = arith.divsi %e, %c8 : index
    %col = arith.remsi %e, %c8 : index
    %v = memref.load %S2[%row, %col] : memref<16x8xbf16, #regcopy.mem<shared>>
    memref.store %v, %out[%row, %col] : memref<16x8xbf16, #regcopy.mem<global>>
  }
  func.return
}
