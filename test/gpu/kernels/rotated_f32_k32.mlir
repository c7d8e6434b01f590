// An 8-way conflicted row copy (f32, k = 32: vec 4, 8 rounds, lane l's row at byte 128 l, so the
// 8 lanes served together hit the same 4 banks): the lowering rotates the rounds by 3 lane bits
// (a butterfly of 3 blends per 32-bit word) and reaches the ideal 4 wavefronts a round.
// One warp: global %in -> shared %A (coalesced scalar loop) -> registers %R (regcopy.copy) ->
// shared %B (regcopy.copy) -> global %out (coalesced scalar loop); lane i also writes its
// registers, read through the logical layout, to %regs[i, :].
// Expected: out == in, regs == in.
func.func @rotated_f32_k32(%in: memref<32x32xf32, #regcopy.mem<global>>, %out: memref<32x32xf32, #regcopy.mem<global>>, %regs: memref<32x32xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %A = memref.alloca() : memref<32x32xf32, #regcopy.mem<shared>>
  %B = memref.alloca() : memref<32x32xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x32xf32, #regcopy.layout<(32,32):(1@laneid,1)>, #regcopy.mem<local>>
  %lane = "gpu.lane_id"() : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ck = arith.constant 32 : index
  %c32 = arith.constant 32 : index
  scf.for %j = %c0 to %ck step %c1 {
    %e0 = arith.muli %j, %c32 : index
    %e = arith.addi %e0, %lane : index
    %row = arith.divsi %e, %ck : index
    %col = arith.remsi %e, %ck : index
    %v = memref.load %in[%row, %col] : memref<32x32xf32, #regcopy.mem<global>>
    memref.store %v, %A[%row, %col] : memref<32x32xf32, #regcopy.mem<shared>>
  }
  "gpu.barrier"() : () -> ()
  regcopy.copy warp %A -> %R : memref<32x32xf32, #regcopy.mem<shared>> -> memref<32x32xf32, #regcopy.layout<(32,32):(1@laneid,1)>, #regcopy.mem<local>>
  scf.for %j = %c0 to %ck step %c1 {
    %v = memref.load %R[%lane, %j] : memref<32x32xf32, #regcopy.layout<(32,32):(1@laneid,1)>, #regcopy.mem<local>>
    memref.store %v, %regs[%lane, %j] : memref<32x32xf32, #regcopy.mem<global>>
  }
  regcopy.copy warp %R -> %B : memref<32x32xf32, #regcopy.layout<(32,32):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x32xf32, #regcopy.mem<shared>>
  "gpu.barrier"() : () -> ()
  scf.for %j = %c0 to %ck step %c1 {
    %e0 = arith.muli %j, %c32 : index
    %e = arith.addi %e0, %lane : index
    %row = arith.divsi %e, %ck : index
    %col = arith.remsi %e, %ck : index
    %v = memref.load %B[%row, %col] : memref<32x32xf32, #regcopy.mem<shared>>
    memref.store %v, %out[%row, %col] : memref<32x32xf32, #regcopy.mem<global>>
  }
  func.return
}
