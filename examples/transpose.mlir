// A 32 x 32 f32 transpose through shared memory, one warp: lane i loads row i of `in` into
// its registers (128-bit loads), writes it as row i of a shared tile (128-bit stores), then
// reads column i of the tile into its registers and writes it as row i of `out` (128-bit
// stores). The tile's layout is `auto`: the compiler chooses `(32,32):(32,1), swizzle<2,3,3>`,
// under which the row writes (8 lanes a wavefront, 128 bytes apart in a row-major tile:
// 8-way conflicted) are free of bank conflicts, and the column reads become `ldmatrix.x4`
// (8 instructions a warp instead of 32 per-thread 32-bit loads), conflict-free too.
// `regcopy-opt -p 'lower-reg-copy{remarks}' examples/transpose.mlir -o /dev/null` shows the
// choice and each copy's plan; `regcopy-run --check examples/transpose.mlir` checks it.
func.func @transpose(%in: memref<32x32xf32, #regcopy.mem<global>>,
                     %out: memref<32x32xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %T = memref.alloca() : memref<32x32xf32, #regcopy.layout<auto>, #regcopy.mem<shared>>
  %Rrow = memref.alloca() : memref<32x32xf32, #regcopy.layout<(32,32):(1@laneid,1)>, #regcopy.mem<local>>
  %Rcol = memref.alloca() : memref<32x32xf32, #regcopy.layout<(32,32):(1,1@laneid)>, #regcopy.mem<local>>
  regcopy.copy warp %in -> %Rrow : memref<32x32xf32, #regcopy.mem<global>> -> memref<32x32xf32, #regcopy.layout<(32,32):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %Rrow -> %T : memref<32x32xf32, #regcopy.layout<(32,32):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x32xf32, #regcopy.layout<auto>, #regcopy.mem<shared>>
  "gpu.barrier"() : () -> ()
  regcopy.copy warp %T -> %Rcol : memref<32x32xf32, #regcopy.layout<auto>, #regcopy.mem<shared>> -> memref<32x32xf32, #regcopy.layout<(32,32):(1,1@laneid)>, #regcopy.mem<local>>
  // lane i holds column i of the tile: write it as row i of the output
  %col = regcopy.storage %Rcol : memref<32x32xf32, #regcopy.layout<(32,32):(1,1@laneid)>, #regcopy.mem<local>> -> memref<32xf32, #regcopy.mem<local>>
  %lane = "gpu.lane_id"() : () -> index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  scf.for %i = %c0 to %c32 step %c4 {
    %v = vector.load %col[%i] : memref<32xf32, #regcopy.mem<local>>, vector<4xf32>
    vector.store %v, %out[%lane, %i] : memref<32x32xf32, #regcopy.mem<global>>, vector<4xf32>
  }
  func.return
}
