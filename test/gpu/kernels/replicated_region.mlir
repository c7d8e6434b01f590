// Replicated register tile under warpgroup scope, copied by sub-regions: R (32,8):(1@laneid,1),
// replicate<4:1@wid_in_wg> -- lane l of every warp of the warpgroup owns row l (4 replicas).
// 1. Each thread fills its copy with %fresh[tid, :]; %in[8:24] -> R[8:24] (rows 8..23: lanes
//    8..23 of all 4 warps load, the others are guarded out); each thread dumps its copy to
//    %all[tid, :] and refills it with %fresh[tid, :].
// 2. R[16:32] -> %out[0:16]: only replica 0 (warp 0, lanes 16..31) writes.
// Expected: all[t] = in[t % 32] where 8 <= t % 32 < 24, else fresh[t]; out[0:16] = fresh[16:32].
!R = memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1), replicate<4:1@wid_in_wg>>, #regcopy.mem<local>>
func.func @replicated_region(%in: memref<32x8xf32, #regcopy.mem<global>>, %fresh: memref<128x8xf32, #regcopy.mem<global>>, %all: memref<128x8xf32, #regcopy.mem<global>>, %out: memref<32x8xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %R = memref.alloca() : !R
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %row = arith.remsi %tid, %c32 : index
  scf.for %j = %c0 to %c8 step %c1 {
    %w = memref.load %fresh[%tid, %j] : memref<128x8xf32, #regcopy.mem<global>>
    memref.store %w, %R[%row, %j] : !R
  }
  regcopy.copy warpgroup %in[8, 0] [16, 8] -> %R[8, 0] [16, 8] : memref<32x8xf32, #regcopy.mem<global>> -> !R
  scf.for %j = %c0 to %c8 step %c1 {
    %v = memref.load %R[%row, %j] : !R
    memref.store %v, %all[%tid, %j] : memref<128x8xf32, #regcopy.mem<global>>
    %w = memref.load %fresh[%tid, %j] : memref<128x8xf32, #regcopy.mem<global>>
    memref.store %w, %R[%row, %j] : !R
  }
  regcopy.copy warpgroup %R[16, 0] [16, 8] -> %out[0, 0] [16, 8] : !R -> memref<32x8xf32, #regcopy.mem<global>>
  func.return
}
