// Four warps (warpsPerCTA [2, 2], warp = 2 wm + wn) load the A operand of an m16n8k16 f16 MMA
// for a 32x16 tile: warps 2 wm and 2 wm + 1 need the same 16 rows (they differ only in the
// N columns they compute), so the fragment layout is replicated over the warpid bit of wn.
// Each load fills both replicas; each store writes each element once (warps 0 and 2 write).
!R = memref<32x16xf16, #regcopy.layout<(2,2,8,2,4,2):(2@warpid,2,4@laneid,4,1@laneid,1), replicate<2:1@warpid>>, #regcopy.mem<local>>
func.func @mma_a_replicated(%A: memref<32x16xf16, #regcopy.mem<global>>,
                            %out: memref<32x16xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %S = memref.alloca() : memref<32x16xf16, #regcopy.mem<shared>>
  %R = memref.alloca() : !R
  regcopy.copy cta %A -> %R : memref<32x16xf16, #regcopy.mem<global>> -> !R
  regcopy.copy cta %R -> %S : !R -> memref<32x16xf16, #regcopy.mem<shared>>
  "gpu.barrier"() : () -> ()
  regcopy.copy cta %S -> %R : memref<32x16xf16, #regcopy.mem<shared>> -> !R
  regcopy.copy cta %R -> %out : !R -> memref<32x16xf16, #regcopy.mem<global>>
  func.return
}
