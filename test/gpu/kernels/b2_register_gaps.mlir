// TIRx failure case B2 (register gaps): R (32,8):(1@laneid,2) keeps row `lane` in register slots
// 0, 2, ..., 14, so no two neighbouring elements are in neighbouring registers: the correct width
// is vec 1. Each lane stores in[lane, :] into R through the logical layout (owner stores), then
// R -> shared %S (regcopy.copy) -> global %out (coalesced scalar loop): a round trip cannot hide
// the bug. The other direction: S -> R2 (same layout, regcopy.copy), read back logically into
// %regs[lane, :].
// Expected: out == in, regs == in.
func.func @b2_register_gaps(%in: memref<32x8xf32, #regcopy.mem<global>>,
                            %out: memref<32x8xf32, #regcopy.mem<global>>,
                            %regs: memref<32x8xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,2)>, #regcopy.mem<local>>
  %R2 = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,2)>, #regcopy.mem<local>>
  %lane = "gpu.lane_id"() : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  scf.for %j = %c0 to %c8 step %c1 {
    %v = memref.load %in[%lane, %j] : memref<32x8xf32, #regcopy.mem<global>>
    memref.store %v, %R[%lane, %j] : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,2)>, #regcopy.mem<local>>
  }
  regcopy.copy warp %R -> %S : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,2)>, #regcopy.mem<local>> -> memref<32x8xf32, #regcopy.mem<shared>>
  "gpu.barrier"() : () -> ()
  scf.for %j = %c0 to %c8 step %c1 {
    %e0 = arith.muli %j, %c32 : index
    %e = arith.addi %e0, %lane : index
    %row = arith.divsi %e, %c8 : index
    %col = arith.remsi %e, %c8 : index
    %v = memref.load %S[%row, %col] : memref<32x8xf32, #regcopy.mem<shared>>
    memref.store %v, %out[%row, %col] : memref<32x8xf32, #regcopy.mem<global>>
  }
  regcopy.copy warp %S -> %R2 : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,2)>, #regcopy.mem<local>>
  scf.for %j = %c0 to %c8 step %c1 {
    %v = memref.load %R2[%lane, %j] : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,2)>, #regcopy.mem<local>>
    memref.store %v, %regs[%lane, %j] : memref<32x8xf32, #regcopy.mem<global>>
  }
  func.return
}
