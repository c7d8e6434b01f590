// Register <-> register conversions: regcopy.copy between two local tiles. Renaming (every
// element stays in its thread, at a slot that does not depend on the thread) is register moves;
// movement inside warps is gpu.shuffle rounds over 32-bit words (16-bit elements packed); movement
// between warps is a round trip through a shared.dyn scratch tile whose layout the pass chooses.
//
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{strict}' | filecheck %s
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{remarks}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

!A = memref<32x8xf32, #regcopy.layout<(32,2,4):(1@laneid,4,1)>, #regcopy.mem<local>>
!B = memref<32x8xf32, #regcopy.layout<(32,2,4):(1@laneid,1,2)>, #regcopy.mem<local>>
func.func @rename() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %a = memref.alloca() : !A
  %b = memref.alloca() : !B
  regcopy.copy warp %a -> %b : !A -> !B
  func.return
}
// CHECK-LABEL: func.func @rename
// CHECK-NOT:     gpu.shuffle
// CHECK-NOT:     gpu.barrier
// CHECK-COUNT-8: vector.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<8xf32, #regcopy.mem<local>>, vector<1xf32>
// CHECK-NOT:     regcopy.copy
// CHECK:         func.return
// REMARK: remark: conversion by renaming: 8 register moves, no shuffle, no shared memory [copy %a -> %b in @rename]

// -----

// The m16n8 mma accumulator (lane 4g+q: rows g, g+8, columns 2q, 2q+1) to rows of 128-bit
// chunks (lane 2r+h: row r, columns 4h..4h+3): 4 shuffles, the ideal.
!ACC = memref<16x8xf32, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
!ROWS = memref<16x8xf32, #regcopy.layout<(16,2,4):(2@laneid,1@laneid,1)>, #regcopy.mem<local>>
func.func @acc_to_rows() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %acc = memref.alloca() : !ACC
  %rows = memref.alloca() : !ROWS
  regcopy.copy warp %acc -> %rows : !ACC -> !ROWS
  func.return
}
// CHECK-LABEL: func.func @acc_to_rows
// CHECK:         %lane = "gpu.lane_id"() : () -> index
// CHECK-COUNT-4: gpu.shuffle idx %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK-NOT:     gpu.shuffle
// CHECK-NOT:     gpu.barrier
// CHECK-NOT:     regcopy.copy
// CHECK:         func.return
// REMARK: remark: conversion by warp shuffles: 4 shfl.sync per thread (ideal 4), 8 selects (4 to send, 4 to receive), 0 register moves, no shared memory [copy %acc -> %rows in @acc_to_rows]

// -----

// bf16 accumulator (two m16n8 tiles) to rows of 8 bf16: 4 shuffle rounds of packed 32-bit words
// and 16 selects (lanes sharing a sender need different words of it), cheaper than the round trip
// (one stmatrix.x4 and one 128-bit load: lower-reg-copy-convert-shared.mlir forces that form).
!ACC16 = memref<16x16xbf16, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
!ROWS16 = memref<16x16xbf16, #regcopy.layout<(16,2,8):(2@laneid,1@laneid,1)>, #regcopy.mem<local>>
func.func @acc_to_rows_bf16() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %acc = memref.alloca() : !ACC16
  %rows = memref.alloca() : !ROWS16
  regcopy.copy warp %acc -> %rows : !ACC16 -> !ROWS16
  func.return
}
// CHECK-LABEL: func.func @acc_to_rows_bf16
// CHECK-COUNT-4: gpu.shuffle idx
// CHECK-NOT:     gpu.barrier
// CHECK-NOT:     regcopy.copy
// CHECK:         func.return
// REMARK: remark: conversion by warp shuffles: 4 shfl.sync per thread (ideal 4), 16 selects (8 to send, 8 to receive), 0 register moves, no shared memory [copy %acc -> %rows in @acc_to_rows_bf16]

// -----

// Rows of a CTA to columns: elements move between warps, so a shared round trip. The scratch
// tile is shared.dyn with the layout choose-shared-layouts gives it (conflict-free here), one
// barrier between the two copies (the first use of the scratch in the function needs no other).
!R1 = memref<16x16xf32, #regcopy.layout<(16,4,4):(4@tx,1@tx,1)>, #regcopy.mem<local>>
!R2 = memref<16x16xf32, #regcopy.layout<(4,4,16):(1,16@tx,1@tx)>, #regcopy.mem<local>>
func.func @cta_redistribute() attributes {regcopy.launch = #regcopy.launch<block = 64, grid = [1]>} {
  %a = memref.alloca() : !R1
  %b = memref.alloca() : !R2
  regcopy.copy cta %a -> %b : !R1 -> !R2
  func.return
}
// CHECK-LABEL: func.func @cta_redistribute
// CHECK:         %scratch = memref.alloca() {regcopy.scratch} : memref<16x16xf32, #regcopy.layout<{{.*}}>, #regcopy.mem<shared.dyn>>
// CHECK-NOT:     "gpu.barrier"
// CHECK:         vector.store %{{.*}}, %{{.*}} : memref<{{[0-9]+}}xf32, #regcopy.mem<shared.dyn>>, vector<4xf32>
// CHECK:         "gpu.barrier"() : () -> ()
// CHECK-NOT:     "gpu.barrier"
// CHECK:         regcopy.ldmatrix %{{.*}} : memref<256xf32, #regcopy.mem<shared.dyn>> -> memref<4xf32, #regcopy.mem<local>>
// CHECK-NOT:     regcopy.copy
// CHECK:         func.return
// REMARK: remark: conversion by shared round trip through a 1024-byte shared.dyn scratch tile, 1 barrier (CTA) [copy %a -> %b in @cta_redistribute]
// REMARK-NEXT: {{.*}}
// REMARK-NEXT: {{.*}}
// REMARK-NEXT: not shuffled: elements move between warps

// -----

// Two conversions in a loop share the scratch (each its own alloca, all at one offset in the
// kernel's dynamic shared memory): each round trip waits before writing it (2 barriers).
!R1 = memref<16x16xf32, #regcopy.layout<(16,4,4):(4@tx,1@tx,1)>, #regcopy.mem<local>>
!R2 = memref<16x16xf32, #regcopy.layout<(4,4,16):(1,16@tx,1@tx)>, #regcopy.mem<local>>
func.func @loop(%n: index) attributes {regcopy.launch = #regcopy.launch<block = 64, grid = [1]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloca() : !R1
  %b = memref.alloca() : !R2
  scf.for %i = %c0 to %n step %c1 {
    regcopy.copy cta %a -> %b : !R1 -> !R2
    regcopy.copy cta %b -> %a : !R2 -> !R1
  }
  func.return
}
// CHECK-LABEL: func.func @loop
// CHECK-COUNT-2: memref.alloca() {regcopy.scratch}
// CHECK:         scf.for
// CHECK-COUNT-4: "gpu.barrier"() : () -> ()
// CHECK-NOT:     "gpu.barrier"
// CHECK:         func.return
// REMARK: remark: conversion by shared round trip through a 1024-byte shared.dyn scratch tile, 2 barriers (CTA, CTA) [copy %a -> %b in @loop]

// -----

// A warp-scope round trip in a CTA of 4 warps, in a loop: each warp has its own slice of the
// scratch (indexed by threadIdx.x / 32), and this is the function's only round trip, so both
// barriers (the leading one: the previous iteration's reads) are the warp's.
!T1 = memref<32x32xf32, #regcopy.layout<(32,32):(1@laneid,1)>, #regcopy.mem<local>>
!T2 = memref<32x32xf32, #regcopy.layout<(32,32):(1,1@laneid)>, #regcopy.mem<local>>
func.func @warp_slices(%n: index) attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloca() : !T1
  %b = memref.alloca() : !T2
  scf.for %i = %c0 to %n step %c1 {
    regcopy.copy warp %a -> %b : !T1 -> !T2
  }
  func.return
}
// CHECK-LABEL: func.func @warp_slices
// CHECK:         %scratch = memref.alloca() {regcopy.scratch} : memref<4x32x32xf32, #regcopy.layout<{{.*}}>, #regcopy.mem<shared.dyn>>
// CHECK:         scf.for
// CHECK:           "gpu.barrier"() {regcopy.warp} : () -> ()
// CHECK:           "gpu.barrier"() {regcopy.warp} : () -> ()
// CHECK-NOT:       "gpu.barrier"() : () -> ()
// CHECK:         func.return
// REMARK: remark: conversion by shared round trip through a 16384-byte shared.dyn scratch tile, 2 barriers (warp, warp) [copy %a -> %b in @warp_slices]
