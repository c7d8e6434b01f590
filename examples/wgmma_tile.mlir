func.func @g(%X: memref<64x32xf16, #regcopy.mem<global>>, %Y: memref<64x32xf16, #regcopy.mem<global>>, %Z: memref<64x64xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %As = memref.alloca() : memref<64x32xf16, #regcopy.layout<auto>, #regcopy.mem<shared>>
  %Bs = memref.alloca() : memref<64x32xf16, #regcopy.layout<auto>, #regcopy.mem<shared>>
  %C = memref.alloca() : memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warpgroup %Z -> %C : memref<64x64xf32, #regcopy.mem<global>> -> memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %t1 = regcopy.copy_async cta %X -> %As : memref<64x32xf16, #regcopy.mem<global>> -> memref<64x32xf16, #regcopy.layout<auto>, #regcopy.mem<shared>>
  %t2 = regcopy.copy_async cta %Y -> %Bs : memref<64x32xf16, #regcopy.mem<global>> -> memref<64x32xf16, #regcopy.layout<auto>, #regcopy.mem<shared>>
  %g = regcopy.async_group %t1, %t2
  regcopy.async_wait %g {pending = 0 : i64}
  "gpu.barrier"() : () -> ()
  regcopy.wgmma warpgroup %As[0, 0] [64, 32], %Bs[0, 0] [64, 32], %C {transpose_b} : memref<64x32xf16, #regcopy.layout<auto>, #regcopy.mem<shared>>, memref<64x32xf16, #regcopy.layout<auto>, #regcopy.mem<shared>>, memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warpgroup %C -> %Z : memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<64x64xf32, #regcopy.mem<global>>
  func.return
}
