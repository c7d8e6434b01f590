// TIRx failure case B4 (partial coverage): a 16-row region of R (32,8):(1@laneid,1) is owned by
// lanes 0..15 only; lanes 16..31 must not write rows 16..31 of the destination. Correct: guard
// them out (or a rejection). Shared %S is filled from %in (coalesced scalar loop), each lane
// stores %fresh[lane, :] into its registers (owner stores), then R[0:16] -> S[0:16]
// (regcopy.copy) and S -> global %out.
// Expected: out[0:16] = fresh[0:16], out[16:32] = in[16:32].
func.func @b4_partial(%in: memref<32x8xf32, #regcopy.mem<global>>,
                      %fresh: memref<32x8xf32, #regcopy.mem<global>>,
                      %out: memref<32x8xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %lane = "gpu.lane_id"() : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  scf.for %j = %c0 to %c8 step %c1 {
    %e0 = arith.muli %j, %c32 : index
    %e = arith.addi %e0, %lane : index
    %row = arith.divsi %e, %c8 : index
    %col = arith.remsi %e, %c8 : index
    %v = memref.load %in[%row, %col] : memref<32x8xf32, #regcopy.mem<global>>
    memref.store %v, %S[%row, %col] : memref<32x8xf32, #regcopy.mem<shared>>
    %w = memref.load %fresh[%lane, %j] : memref<32x8xf32, #regcopy.mem<global>>
    memref.store %w, %R[%lane, %j] : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  }
  "gpu.barrier"() : () -> ()
  regcopy.copy warp %R[0, 0] [16, 8] -> %S[0, 0] [16, 8] : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x8xf32, #regcopy.mem<shared>>
  "gpu.barrier"() : () -> ()
  scf.for %j = %c0 to %c8 step %c1 {
    %e0 = arith.muli %j, %c32 : index
    %e = arith.addi %e0, %lane : index
    %row = arith.divsi %e, %c8 : index
    %col = arith.remsi %e, %c8 : index
    %v = memref.load %S[%row, %col] : memref<32x8xf32, #regcopy.mem<shared>>
    memref.store %v, %out[%row, %col] : memref<32x8xf32, #regcopy.mem<global>>
  }
  func.return
}
