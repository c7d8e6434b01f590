// A wgmma whose shared A region starts at a dynamic row: the auto layout (128-byte swizzle)
// is chosen by lower-reg-copy, after the verifier, and only then is the region's start
// checked against the swizzle atom (a row offset of %r x 64 elements is not provably a
// multiple of 8 rows). One located error, the op's source line under it.
// RUN: not regcopy-opt %s -p lower-reg-copy 2>&1 | filecheck %s

// CHECK:      lower-wgmma-error-dynamic-row.mlir:18:3: error: 'regcopy.wgmma' op does not lower: operand A: the region must start in the first row of a 128B swizzle atom (1024 bytes)
// CHECK-NEXT:   regcopy.wgmma warpgroup %As[%r, 0] [64, 64]
// CHECK-NEXT:   ^
// CHECK-NOT:  Traceback

func.func @g(%r: index, %Z: memref<64x64xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %As = memref.alloca() : memref<128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared>>
  %Bs = memref.alloca() : memref<64x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared>>
  %C = memref.alloca() : memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warpgroup %Z -> %C : memref<64x64xf32, #regcopy.mem<global>> -> memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  "gpu.barrier"() : () -> ()
  regcopy.wgmma warpgroup %As[%r, 0] [64, 64], %Bs[0, 0] [64, 64], %C {transpose_b} : memref<128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared>>, memref<64x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared>>, memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warpgroup %C -> %Z : memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<64x64xf32, #regcopy.mem<global>>
  func.return
}
