// Replicated register tile: R (16,8):(1@laneid,1), replicate<(2,2):(16@laneid,1@warpid)> over a
// CTA of 2 warps -- lanes l and l+16 of both warps own row l % 16 (4 replicas, like a Triton
// dot operand shared by the warps that do not own its rows).
// 1. %in -> R (a load fills every replica); each thread dumps its copy to %all[tid, :].
// 2. Every thread overwrites its copy with %fresh[tid, :] (the replicas now differ), then
//    R -> %out (a store writes each element once: only replica 0, warp 0 lanes 0..15).
// Expected: all[t] = in[t % 16]; out = fresh[0:16].
!R = memref<16x8xf32, #regcopy.layout<(16,8):(1@laneid,1), replicate<(2,2):(16@laneid,1@warpid)>>, #regcopy.mem<local>>
func.func @replicated(%in: memref<16x8xf32, #regcopy.mem<global>>,
                      %fresh: memref<64x8xf32, #regcopy.mem<global>>,
                      %all: memref<64x8xf32, #regcopy.mem<global>>,
                      %out: memref<16x8xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 64, grid = [1]>} {
  %R = memref.alloca() : !R
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %row = arith.remsi %tid, %c16 : index
  regcopy.copy cta %in -> %R : memref<16x8xf32, #regcopy.mem<global>> -> !R
  scf.for %j = %c0 to %c8 step %c1 {
    %v = memref.load %R[%row, %j] : !R
    memref.store %v, %all[%tid, %j] : memref<64x8xf32, #regcopy.mem<global>>
    %w = memref.load %fresh[%tid, %j] : memref<64x8xf32, #regcopy.mem<global>>
    memref.store %w, %R[%row, %j] : !R
  }
  regcopy.copy cta %R -> %out : !R -> memref<16x8xf32, #regcopy.mem<global>>
  func.return
}
