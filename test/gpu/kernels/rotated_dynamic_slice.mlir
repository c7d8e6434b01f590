// Lane-rotated copies at a run-time slice base: one warp, two f32 tiles of 32 rows x 16 (64-byte
// rows: a 4-way conflict, rotated by 2 lane bits, a quarter of the swaps as multiply-adds; the
// round offsets printed as the q-th vector from the slice's address). Tile %p -> registers %R
// (also written to %regs[lane, :]) -> tile 1 - %p; then the whole shared buffer to %out.
// Expected (--arg p=0 or 1): regs == in[32p : 32p+32], out rows of tile 1 - p == in rows of
// tile p, out rows of tile p == in rows of tile p.
// Check: regcopy-run --check --arg p=1 test/gpu/kernels/rotated_dynamic_slice.mlir (a GPU run
// against the CPU run of the un-lowered IR; without a GPU, the lowered IR on the CPU).
func.func @rotated_dynamic_slice(%in: memref<64x16xf32, #regcopy.mem<global>>, %out: memref<64x16xf32, #regcopy.mem<global>>, %regs: memref<32x16xf32, #regcopy.mem<global>>, %p: index)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %A = memref.alloca() : memref<64x16xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  %lane = "gpu.lane_id"() : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  scf.for %j = %c0 to %c32 step %c1 {
    %e0 = arith.muli %j, %c32 : index
    %e = arith.addi %e0, %lane : index
    %row = arith.divsi %e, %c16 : index
    %col = arith.remsi %e, %c16 : index
    %v = memref.load %in[%row, %col] : memref<64x16xf32, #regcopy.mem<global>>
    memref.store %v, %A[%row, %col] : memref<64x16xf32, #regcopy.mem<shared>>
  }
  "gpu.barrier"() : () -> ()
  %r0 = arith.muli %p, %c32 : index
  %q = arith.subi %c1, %p : index
  %r1 = arith.muli %q, %c32 : index
  regcopy.copy warp %A[%r0, 0] [32, 16] -> %R : memref<64x16xf32, #regcopy.mem<shared>> -> memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  scf.for %j = %c0 to %c16 step %c1 {
    %v = memref.load %R[%lane, %j] : memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
    memref.store %v, %regs[%lane, %j] : memref<32x16xf32, #regcopy.mem<global>>
  }
  regcopy.copy warp %R -> %A[%r1, 0] [32, 16] : memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>> -> memref<64x16xf32, #regcopy.mem<shared>>
  "gpu.barrier"() : () -> ()
  scf.for %j = %c0 to %c32 step %c1 {
    %e0 = arith.muli %j, %c32 : index
    %e = arith.addi %e0, %lane : index
    %row = arith.divsi %e, %c16 : index
    %col = arith.remsi %e, %c16 : index
    %v = memref.load %A[%row, %col] : memref<64x16xf32, #regcopy.mem<shared>>
    memref.store %v, %out[%row, %col] : memref<64x16xf32, #regcopy.mem<global>>
  }
  func.return
}
