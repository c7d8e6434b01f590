// Worked example, thread scope: every thread copies the f16 region S[3, 8:16, 8:16] of a
// [4,16,16] global buffer into its own 8x8 register tile (atoms (8,16,8),(8,1,1): vec 8, 8 rounds,
// S base 3*256 + 8*16 + 8 = 904), copies the tile back into the same region of %out, and writes
// the tile, read through its logical layout, to %regs[tid].
// Expected: out = out (initial) with out[3, 8:16, 8:16] = S[3, 8:16, 8:16]; regs[t] = that tile.
func.func @worked_thread_3d(%S: memref<4x16x16xf16, #regcopy.mem<global>>,
                            %out: memref<4x16x16xf16, #regcopy.mem<global>>,
                            %regs: memref<32x8x8xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<8x8xf16, #regcopy.layout<(8,8):(8,1)>, #regcopy.mem<local>>
  regcopy.copy thread %S[3, 8, 8] [1, 8, 8] -> %R : memref<4x16x16xf16, #regcopy.mem<global>> -> memref<8x8xf16, #regcopy.layout<(8,8):(8,1)>, #regcopy.mem<local>>
  regcopy.copy thread %R -> %out[3, 8, 8] [1, 8, 8] : memref<8x8xf16, #regcopy.layout<(8,8):(8,1)>, #regcopy.mem<local>> -> memref<4x16x16xf16, #regcopy.mem<global>>
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %R[%i, %j] : memref<8x8xf16, #regcopy.layout<(8,8):(8,1)>, #regcopy.mem<local>>
      memref.store %v, %regs[%tid, %i, %j] : memref<32x8x8xf16, #regcopy.mem<global>>
    }
  }
  func.return
}
