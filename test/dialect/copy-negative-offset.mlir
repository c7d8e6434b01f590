// A negative literal region offset is a parse error at the number.
// RUN: not regcopy-opt %s 2>&1 | filecheck %s

func.func @f(%A: memref<64x8xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A[-1, 0] [32, 8] -> %R : memref<64x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: copy-negative-offset.mlir:5:24
// CHECK: region offset -1 is out of range (0 to 2^63 - 1)
