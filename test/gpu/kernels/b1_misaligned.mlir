// TIRx failure case B1 (misaligned vectors): S [32,10] f32 in shared, columns 0..8, R
// (32,8):(1@laneid,1). Row starts are 40 bytes apart, so a 16-byte vector is misaligned on odd
// lanes: the correct width is vec 2 (or a rejection). global %in -> S (coalesced scalar loop) ->
// R -> global %out [32,8] (vec 4); each lane writes R[lane, :] (logical) to %regs[lane, :].
// Expected: out = in[:, 0:8], regs = in[:, 0:8].
func.func @b1_misaligned(%in: memref<32x10xf32, #regcopy.mem<global>>,
                         %out: memref<32x8xf32, #regcopy.mem<global>>,
                         %regs: memref<32x8xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<32x10xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %lane = "gpu.lane_id"() : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c32 = arith.constant 32 : index
  scf.for %j = %c0 to %c10 step %c1 {
    %e0 = arith.muli %j, %c32 : index
    %e = arith.addi %e0, %lane : index
    %row = arith.divsi %e, %c10 : index
    %col = arith.remsi %e, %c10 : index
    %v = memref.load %in[%row, %col] : memref<32x10xf32, #regcopy.mem<global>>
    memref.store %v, %S[%row, %col] : memref<32x10xf32, #regcopy.mem<shared>>
  }
  "gpu.barrier"() : () -> ()
  regcopy.copy warp %S[0, 0] [32, 8] -> %R : memref<32x10xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  scf.for %j = %c0 to %c8 step %c1 {
    %v = memref.load %R[%lane, %j] : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
    memref.store %v, %regs[%lane, %j] : memref<32x8xf32, #regcopy.mem<global>>
  }
  regcopy.copy warp %R -> %out : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x8xf32, #regcopy.mem<global>>
  func.return
}
