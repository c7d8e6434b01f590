// Seed-table row f32, k = 8: the lowering must choose vec 4, rounds 2.
// One warp: global %in -> shared %A (coalesced scalar loop: element e = 32 j + lane) -> registers
// %R (regcopy.copy) -> shared %B (regcopy.copy) -> global %out (coalesced scalar loop).
// Lane i owns row i of %R; it also writes its registers, read through the logical layout, to
// %regs[i, :], which checks the shared -> register copy on its own.
// Expected: out == in, regs == in. The scalar loops use a 32-element thread stride so that the
// only 128-bit shared accesses in the PTX are the copies' (test_cuda_printer counts them).
func.func @seed_f32_k8(%in: memref<32x8xf32, #regcopy.mem<global>>, %out: memref<32x8xf32, #regcopy.mem<global>>, %regs: memref<32x8xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %A = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared>>
  %B = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %lane = "gpu.lane_id"() : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ck = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  scf.for %j = %c0 to %ck step %c1 {
    %e0 = arith.muli %j, %c32 : index
    %e = arith.addi %e0, %lane : index
    %row = arith.divsi %e, %ck : index
    %col = arith.remsi %e, %ck : index
    %v = memref.load %in[%row, %col] : memref<32x8xf32, #regcopy.mem<global>>
    memref.store %v, %A[%row, %col] : memref<32x8xf32, #regcopy.mem<shared>>
  }
  "gpu.barrier"() : () -> ()
  regcopy.copy warp %A -> %R : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  scf.for %j = %c0 to %ck step %c1 {
    %v = memref.load %R[%lane, %j] : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
    memref.store %v, %regs[%lane, %j] : memref<32x8xf32, #regcopy.mem<global>>
  }
  regcopy.copy warp %R -> %B : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x8xf32, #regcopy.mem<shared>>
  "gpu.barrier"() : () -> ()
  scf.for %j = %c0 to %ck step %c1 {
    %e0 = arith.muli %j, %c32 : index
    %e = arith.addi %e0, %lane : index
    %row = arith.divsi %e, %ck : index
    %col = arith.remsi %e, %ck : index
    %v = memref.load %B[%row, %col] : memref<32x8xf32, #regcopy.mem<shared>>
    memref.store %v, %out[%row, %col] : memref<32x8xf32, #regcopy.mem<global>>
  }
  func.return
}
