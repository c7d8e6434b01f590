// Worked example, warpgroup scope with a swizzled shared tile: S is a 128x64 f16 row-major tile
// under swizzle<3,3,3>, R (128,64):(1@tid_in_wg,1): thread t owns row t (vec 8, 8 rounds; the
// swizzle is applied to every round's offset). global %in -> S (coalesced scalar loop through
// the swizzled layout) -> R (regcopy.copy) -> global %out (regcopy.copy); each thread also writes
// its row, read through R's logical layout, to %regs[t, :].
// Expected: out == in, regs == in.
func.func @worked_wg_swizzle(%in: memref<128x64xf16, #regcopy.mem<global>>,
                             %out: memref<128x64xf16, #regcopy.mem<global>>,
                             %regs: memref<128x64xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %S = memref.alloca() : memref<128x64xf16, #regcopy.layout<(128,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<128x64xf16, #regcopy.layout<(128,64):(1@tid_in_wg,1)>, #regcopy.mem<local>>
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  scf.for %j = %c0 to %c64 step %c1 {
    %e0 = arith.muli %j, %c128 : index
    %e = arith.addi %e0, %tid : index
    %row = arith.divsi %e, %c64 : index
    %col = arith.remsi %e, %c64 : index
    %v = memref.load %in[%row, %col] : memref<128x64xf16, #regcopy.mem<global>>
    memref.store %v, %S[%row, %col] : memref<128x64xf16, #regcopy.layout<(128,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
  }
  "gpu.barrier"() : () -> ()
  regcopy.copy warpgroup %S -> %R : memref<128x64xf16, #regcopy.layout<(128,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>> -> memref<128x64xf16, #regcopy.layout<(128,64):(1@tid_in_wg,1)>, #regcopy.mem<local>>
  scf.for %j = %c0 to %c64 step %c1 {
    %v = memref.load %R[%tid, %j] : memref<128x64xf16, #regcopy.layout<(128,64):(1@tid_in_wg,1)>, #regcopy.mem<local>>
    memref.store %v, %regs[%tid, %j] : memref<128x64xf16, #regcopy.mem<global>>
  }
  regcopy.copy warpgroup %R -> %out : memref<128x64xf16, #regcopy.layout<(128,64):(1@tid_in_wg,1)>, #regcopy.mem<local>> -> memref<128x64xf16, #regcopy.mem<global>>
  func.return
}
