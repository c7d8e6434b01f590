// TIRx failure case B3 (thread stride != 1): R (16,8):(2@laneid,1): lane 2i owns row i, odd lanes
// own nothing. Correct: row = lane / 2 with odd lanes guarded out (or a rejection).
// global %in [16,8] -> shared %S (coalesced scalar loop) -> R -> shared %S2 -> global %out; each
// even lane also writes R[lane / 2, :] (logical) to %regs[lane / 2, :].
// Expected: out == in, regs == in.
func.func @b3_thread_stride(%in: memref<16x8xf32, #regcopy.mem<global>>,
                            %out: memref<16x8xf32, #regcopy.mem<global>>,
                            %regs: memref<16x8xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<16x8xf32, #regcopy.mem<shared>>
  %S2 = memref.alloca() : memref<16x8xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<16x8xf32, #regcopy.layout<(16,8):(2@laneid,1)>, #regcopy.mem<local>>
  %lane = "gpu.lane_id"() : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  scf.for %j = %c0 to %c4 step %c1 {
    %e0 = arith.muli %j, %c32 : index
    %e = arith.addi %e0, %lane : index
    %row = arith.divsi %e, %c8 : index
    %col = arith.remsi %e, %c8 : index
    %v = memref.load %in[%row, %col] : memref<16x8xf32, #regcopy.mem<global>>
    memref.store %v, %S[%row, %col] : memref<16x8xf32, #regcopy.mem<shared>>
  }
  "gpu.barrier"() : () -> ()
  regcopy.copy warp %S -> %R : memref<16x8xf32, #regcopy.mem<shared>> -> memref<16x8xf32, #regcopy.layout<(16,8):(2@laneid,1)>, #regcopy.mem<local>>
  %parity = arith.remsi %lane, %c2 : index
  %even = arith.cmpi eq, %parity, %c0 : index
  %mine = arith.divsi %lane, %c2 : index
  scf.if %even {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %R[%mine, %j] : memref<16x8xf32, #regcopy.layout<(16,8):(2@laneid,1)>, #regcopy.mem<local>>
      memref.store %v, %regs[%mine, %j] : memref<16x8xf32, #regcopy.mem<global>>
    }
  }
  regcopy.copy warp %R -> %S2 : memref<16x8xf32, #regcopy.layout<(16,8):(2@laneid,1)>, #regcopy.mem<local>> -> memref<16x8xf32, #regcopy.mem<shared>>
  "gpu.barrier"() : () -> ()
  scf.for %j = %c0 to %c4 step %c1 {
    %e0 = arith.muli %j, %c32 : index
    %e = arith.addi %e0, %lane : index
    %row = arith.divsi %e, %c8 : index
    %col = arith.remsi %e, %c8 : index
    %v = memref.load %S2[%row, %col] : memref<16x8xf32, #regcopy.mem<shared>>
    memref.store %v, %out[%row, %col] : memref<16x8xf32, #regcopy.mem<global>>
  }
  func.return
}
