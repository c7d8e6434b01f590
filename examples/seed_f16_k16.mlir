// The seed demonstration with f16 elements and k = 16: one warp round-trips a 32x16 f16 tile
// global -> shared -> registers -> shared -> global.
// Lane i owns row i of the register tile; column j is register slot j.
// The seed table: 16 registers per lane, 8-element vectors, 2 rounds.
func.func @seed_f16_k16(%in: memref<32x16xf16, #regcopy.mem<global>>,
                        %out: memref<32x16xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %A = memref.alloca() : memref<32x16xf16, #regcopy.mem<shared>>
  %B = memref.alloca() : memref<32x16xf16, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x16xf16, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  %lane = "gpu.lane_id"() : () -> index
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c1 = arith.constant 1 : index
  scf.for %j = %c0 to %c16 step %c1 {
    %v = memref.load %in[%lane, %j] : memref<32x16xf16, #regcopy.mem<global>>
    memref.store %v, %A[%lane, %j] : memref<32x16xf16, #regcopy.mem<shared>>
  }
  "gpu.barrier"() : () -> ()
  regcopy.copy warp %A[0, 0] [32, 16] -> %R[0, 0] [32, 16] : memref<32x16xf16, #regcopy.mem<shared>> -> memref<32x16xf16, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %B : memref<32x16xf16, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x16xf16, #regcopy.mem<shared>>
  "gpu.barrier"() : () -> ()
  scf.for %j = %c0 to %c16 step %c1 {
    %v = memref.load %B[%lane, %j] : memref<32x16xf16, #regcopy.mem<shared>>
    memref.store %v, %out[%lane, %j] : memref<32x16xf16, #regcopy.mem<global>>
  }
  func.return
}
