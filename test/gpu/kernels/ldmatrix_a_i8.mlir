// issue 10: the m16n8k32 A fragment of 8-bit integers (K-major, four per register) from a
// 16 x 32 i8 tile: the same bytes as b16 rows, ldmatrix.x4 / stmatrix.x4.
// global %in -> S (scalar loop) -> R (regcopy.copy, the fragment load) -> %regs[t, :] (each
// thread's register slots in order) and R -> S2 (regcopy.copy, the fragment store) -> %out.
//
// Expected: regs[l, 4(2q+h)+i] = in[g + 8h, 16q + 4c + i]; out = in.
func.func @ldmatrix_a_i8(%in: memref<16x32xi8, #regcopy.mem<global>>,
                        %out: memref<16x32xi8, #regcopy.mem<global>>,
                        %regs: memref<32x16xi8, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<16x32xi8, #regcopy.mem<shared>>
  %S2 = memref.alloca() : memref<16x32xi8, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<16x32xi8, #regcopy.layout<(2,8,2,4,4):(4,4@laneid,8,1@laneid,1)>, #regcopy.mem<local>>
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %cfill = arith.constant 16 : index
  scf.for %j = %c0 to %cfill step %c1 {
    %e0 = arith.muli %j, %c32 : index
    %e = arith.addi %e0, %tid : index
    %row = arith.divsi %e, %c32 : index
    %col = arith.remsi %e, %c32 : index
    %v = memref.load %in[%row, %col] : memref<16x32xi8, #regcopy.mem<global>>
    memref.store %v, %S[%row, %col] : memref<16x32xi8, #regcopy.mem<shared>>
  }
  "gpu.barrier"() : () -> ()
  regcopy.copy warp %S -> %R : memref<16x32xi8, #regcopy.mem<shared>> -> memref<16x32xi8, #regcopy.layout<(2,8,2,4,4):(4,4@laneid,8,1@laneid,1)>, #regcopy.mem<local>>
  %r = regcopy.storage %R : memref<16x32xi8, #regcopy.layout<(2,8,2,4,4):(4,4@laneid,8,1@laneid,1)>, #regcopy.mem<local>> -> memref<16xi8, #regcopy.mem<local>>
  scf.for %i = %c0 to %c16 step %c1 {
    %v = memref.load %r[%i] : memref<16xi8, #regcopy.mem<local>>
    memref.store %v, %regs[%tid, %i] : memref<32x16xi8, #regcopy.mem<global>>
  }
  regcopy.copy warp %R -> %S2 : memref<16x32xi8, #regcopy.layout<(2,8,2,4,4):(4,4@laneid,8,1@laneid,1)>, #regcopy.mem<local>> -> memref<16x32xi8, #regcopy.mem<shared>>
  "gpu.barrier"() : () -> ()
  %cout = arith.constant 16 : index
  scf.for %j = %c0 to %cout step %c1 {
    %e0 = arith.muli %j, %c32 : index
    %e = arith.addi %e0, %tid : index
    %row = arith.divsi %e, %c32 : index
    %col = arith.remsi %e, %c32 : index
    %v = memref.load %S2[%row, %col] : memref<16x32xi8, #regcopy.mem<shared>>
    memref.store %v, %out[%row, %col] : memref<16x32xi8, #regcopy.mem<global>>
  }
  func.return
}
