// Parse errors of the asynchronous copy ops: file:line:col and what would be accepted.
//
// RUN: regcopy-opt %s --parsing-diagnostics --split-input-file | filecheck %s

func.func @f(%G: memref<64x64xf16, #regcopy.mem<global>>, %S: memref<32x64xf16, #regcopy.mem<shared>>) {
  %t = regcopy.copy_async warp %G[0, 0] [32, 64] -> %S : memref<64x64xf16, #regcopy.mem<global>> -> memref<32x64xf16, #regcopy.mem<shared>>
  %g = regcopy.async_group %t
  regcopy.async_wait %g
  func.return
}
// CHECK: async_invalid_parse.mlir:[[# @LINE - 3]]:22
// CHECK-SAME: async_wait needs '{pending = N : i64}' (N >= 0: the groups closed after this one that may stay in flight)

