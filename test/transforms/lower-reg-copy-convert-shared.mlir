// A register <-> register conversion forced through shared memory (conversion=shared): a bf16
// accumulator (two m16n8 tiles) to rows of 8 bf16 is one stmatrix.x4 and one 128-bit load,
// conflict-free in the layout the pass chose; the warp touches only its own scratch, so the
// barrier between the two is __syncwarp() (regcopy.warp). By default the pass takes shuffles
// here (lower-reg-copy-convert.mlir).
// RUN: regcopy-opt %s -p 'lower-reg-copy{strict conversion=shared}' | filecheck %s
// RUN: regcopy-opt %s -p 'lower-reg-copy{remarks conversion=shared}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
!ACC16 = memref<16x16xbf16, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
!ROWS16 = memref<16x16xbf16, #regcopy.layout<(16,2,8):(2@laneid,1@laneid,1)>, #regcopy.mem<local>>
func.func @acc_to_rows_bf16() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %acc = memref.alloca() : !ACC16
  %rows = memref.alloca() : !ROWS16
  regcopy.copy warp %acc -> %rows : !ACC16 -> !ROWS16
  func.return
}
// CHECK-LABEL: func.func @acc_to_rows_bf16
// CHECK:         %scratch = memref.alloca() {regcopy.scratch} : memref<16x16xbf16, #regcopy.layout<(16,16):(16,1), swizzle<3,1,3>>, #regcopy.mem<shared.dyn>>
// CHECK:         regcopy.stmatrix
// CHECK:         "gpu.barrier"() {regcopy.warp} : () -> ()
// CHECK:         vector.load %{{.*}} : memref<256xbf16, #regcopy.mem<shared.dyn>>, vector<8xbf16>
// CHECK-NOT:     gpu.shuffle
// CHECK:         func.return
// REMARK: remark: conversion by shared round trip through a 512-byte shared.dyn scratch tile, 1 barrier (warp) [copy %acc -> %rows in @acc_to_rows_bf16]
// REMARK: not shuffled: conversion=shared
// REMARK: copy %acc -> %scratch in @acc_to_rows_bf16: stmatrix.x4: no bank conflict: 4 wavefronts, ideal 4
