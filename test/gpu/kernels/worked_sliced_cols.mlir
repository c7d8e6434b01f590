// Worked example, sliced register region: warp scope, R (32,16):(1@laneid,1), columns 2..10,
// f32. The region starts 2 elements (8 bytes) into each row, so the width is vec 2 and there are
// 4 rounds (S thread base lane*16 + 2). global %in -> R -> global %out, same region both ways;
// each lane also writes R[lane, 2 + j] (logical) to %regs[lane, j].
// Expected: out = out (initial) with out[:, 2:10] = in[:, 2:10]; regs = in[:, 2:10].
func.func @worked_sliced_cols(%in: memref<32x16xf32, #regcopy.mem<global>>,
                              %out: memref<32x16xf32, #regcopy.mem<global>>,
                              %regs: memref<32x8xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %in[0, 2] [32, 8] -> %R[0, 2] [32, 8] : memref<32x16xf32, #regcopy.mem<global>> -> memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R[0, 2] [32, 8] -> %out[0, 2] [32, 8] : memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x16xf32, #regcopy.mem<global>>
  %lane = "gpu.lane_id"() : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  scf.for %j = %c0 to %c8 step %c1 {
    %col = arith.addi %j, %c2 : index
    %v = memref.load %R[%lane, %col] : memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
    memref.store %v, %regs[%lane, %j] : memref<32x8xf32, #regcopy.mem<global>>
  }
  func.return
}
