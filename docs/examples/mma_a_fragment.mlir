// One warp loads the A operand of an m16n8k16 f16 MMA from a row-major 16x16 shared tile
// into the fragment layout of the PTX ISA: lane l holds rows l/4 and l/4+8, column pairs
// 2(l%4) and 2(l%4)+8, in register slots a0..a7.
func.func @mma_a(%A: memref<16x16xf16, #regcopy.mem<global>>,
                 %out: memref<16x16xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<16x16xf16, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %A -> %R : memref<16x16xf16, #regcopy.mem<global>> -> memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %S : memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<16x16xf16, #regcopy.mem<shared>>
  "gpu.barrier"() : () -> ()
  regcopy.copy warp %S -> %R : memref<16x16xf16, #regcopy.mem<shared>> -> memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %out : memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<16x16xf16, #regcopy.mem<global>>
  func.return
}
