// Verifier errors of regcopy.mma: one line each, naming the fragment layout expected.
//
// RUN: regcopy-opt %s --verify-diagnostics --split-input-file | filecheck %s

func.func @f() {
  %A = memref.alloca() : memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %B = memref.alloca() : memref<8x16xf16, #regcopy.layout<(8,2,4,2):(4@laneid,2,1@laneid,1)>, #regcopy.mem<local>>
  %C = memref.alloca() : memref<16x8xf32, #regcopy.layout<(2,8,4,2):(2,1@laneid,8@laneid,1)>, #regcopy.mem<local>>
  regcopy.mma warp %A, %B, %C {transpose_b} : memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>, memref<8x16xf16, #regcopy.layout<(8,2,4,2):(4@laneid,2,1@laneid,1)>, #regcopy.mem<local>>, memref<16x8xf32, #regcopy.layout<(2,8,4,2):(2,1@laneid,8@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: Operation does not verify: operand C is not a m16n8k16 fragment tile: element (0, 2) belongs to lane 1, the layout gives it to lane 8; expected #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)> on 16x8, repeated over the tile in any register order

// -----

func.func @f() {
  %A = memref.alloca() : memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(1,4@laneid,4,1@laneid,2)>, #regcopy.mem<local>>
  %B = memref.alloca() : memref<16x8xf16, #regcopy.layout<(2,4,2,8):(2,1@laneid,1,4@laneid)>, #regcopy.mem<local>>
  %C = memref.alloca() : memref<16x8xf32, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.mma warp %A, %B, %C : memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(1,4@laneid,4,1@laneid,2)>, #regcopy.mem<local>>, memref<16x8xf16, #regcopy.layout<(2,4,2,8):(2,1@laneid,1,4@laneid)>, #regcopy.mem<local>>, memref<16x8xf32, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: Operation does not verify: operand A is not a m16n8k16 fragment tile: the tile at (0, 0) puts fragment elements 0..1 in registers [0, 2], not one 32-bit word; expected #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)> on 16x16

// -----

func.func @f() {
  %A = memref.alloca() : memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(2,4@warpid,4,1@laneid,1)>, #regcopy.mem<local>>
  %B = memref.alloca() : memref<16x8xf16, #regcopy.layout<(2,4,2,8):(2,1@laneid,1,4@laneid)>, #regcopy.mem<local>>
  %C = memref.alloca() : memref<16x8xf32, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.mma warp %A, %B, %C : memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(2,4@warpid,4,1@laneid,1)>, #regcopy.mem<local>>, memref<16x8xf16, #regcopy.layout<(2,4,2,8):(2,1@laneid,1,4@laneid)>, #regcopy.mem<local>>, memref<16x8xf32, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: Operation does not verify: operand A is not a m16n8k16 fragment tile: a warp's fragment tile is distributed over laneid only, not warpid

// -----

func.func @f() {
  %A = memref.alloca() : memref<16x24xf16, #regcopy.layout<(2,8,3,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %B = memref.alloca() : memref<16x8xf16, #regcopy.layout<(2,4,2,8):(2,1@laneid,1,4@laneid)>, #regcopy.mem<local>>
  %C = memref.alloca() : memref<16x8xf32, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.mma warp %A, %B, %C : memref<16x24xf16, #regcopy.layout<(2,8,3,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>, memref<16x8xf16, #regcopy.layout<(2,4,2,8):(2,1@laneid,1,4@laneid)>, #regcopy.mem<local>>, memref<16x8xf32, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: Operation does not verify: shapes do not multiply: A 16x24, B (K x N) 16x8, C 16x8

// -----

func.func @f() {
  %A = memref.alloca() : memref<16x24xf16, #regcopy.layout<(2,8,3,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %B = memref.alloca() : memref<24x8xf16, #regcopy.layout<(3,4,2,8):(2,1@laneid,1,4@laneid)>, #regcopy.mem<local>>
  %C = memref.alloca() : memref<16x8xf32, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.mma warp %A, %B, %C : memref<16x24xf16, #regcopy.layout<(2,8,3,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>, memref<24x8xf16, #regcopy.layout<(3,4,2,8):(2,1@laneid,1,4@laneid)>, #regcopy.mem<local>>, memref<16x8xf32, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: Operation does not verify: operand A is not a m16n8k16 fragment tile: the 16x24 tile is not a multiple of the 16x16 instruction tile

// -----

func.func @f() {
  %A = memref.alloca() : memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %B = memref.alloca() : memref<16x8xf16, #regcopy.layout<(2,4,2,8):(2,1@laneid,1,4@laneid)>, #regcopy.mem<local>>
  %C = memref.alloca() : memref<16x8xbf16, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.mma warp %A, %B, %C : memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>, memref<16x8xf16, #regcopy.layout<(2,4,2,8):(2,1@laneid,1,4@laneid)>, #regcopy.mem<local>>, memref<16x8xbf16, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: Operation does not verify: no mma.sync for f16, f16 -> bf16; supported: f16,f16->f32|f16, bf16,bf16->f32 (m16n8k16)

// -----

func.func @f() {
  %A = memref.alloca() : memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %B = memref.alloca() : memref<16x8xf16, #regcopy.layout<(2,4,2,8):(2,1@laneid,1,4@laneid)>, #regcopy.mem<local>>
  %C = memref.alloca() : memref<16x8xf32, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.mma warp %A, %B, %C {precision = tf32} : memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>, memref<16x8xf16, #regcopy.layout<(2,4,2,8):(2,1@laneid,1,4@laneid)>, #regcopy.mem<local>>, memref<16x8xf32, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: Operation does not verify: {precision = tf32} needs f32 operands, got f16, f16 -> f32
