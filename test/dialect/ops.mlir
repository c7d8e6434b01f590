// Round trip of regcopy.copy and regcopy.storage in custom and generic form,
// through regcopy-opt and stock xdsl-opt.
//
// RUN: regcopy-opt %s --split-input-file | regcopy-opt --split-input-file | filecheck %s
// RUN: REGCOPY_ROUNDTRIP
// RUN: REGCOPY_GENERIC_ROUNDTRIP
// RUN: xdsl-opt %s --split-input-file | xdsl-opt --split-input-file | filecheck %s

// Whole buffers (`%buf` alone) and full static regions, in all four scopes.
func.func @scopes(%S: memref<32x8xf32, #regcopy.mem<shared>>,
                  %G: memref<128x64xf16, #regcopy.mem<global>>) {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %T = memref.alloca() : memref<8x8xf32, #regcopy.layout<(8,8):(8,1)>, #regcopy.mem<local>>
  %W = memref.alloca() : memref<128x64xf16, #regcopy.layout<(128,64):(1@tid_in_wg,1)>, #regcopy.mem<local>>
  %C = memref.alloca() : memref<128x64xf16, #regcopy.layout<(128,16,4):(4,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S[0, 0] [32, 8] -> %R[0, 0] [32, 8] : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %S : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x8xf32, #regcopy.mem<shared>>
  regcopy.copy thread %S[8, 0] [8, 8] -> %T : memref<32x8xf32, #regcopy.mem<shared>> -> memref<8x8xf32, #regcopy.layout<(8,8):(8,1)>, #regcopy.mem<local>>
  regcopy.copy warpgroup %G -> %W : memref<128x64xf16, #regcopy.mem<global>> -> memref<128x64xf16, #regcopy.layout<(128,64):(1@tid_in_wg,1)>, #regcopy.mem<local>>
  regcopy.copy cta %C -> %G {note = "extra attributes are kept"} : memref<128x64xf16, #regcopy.layout<(128,16,4):(4,1@tx,1)>, #regcopy.mem<local>> -> memref<128x64xf16, #regcopy.mem<global>>
  func.return
}

// CHECK-LABEL: func.func @scopes(
// CHECK:       regcopy.copy warp %S[0, 0] [32, 8] -> %R[0, 0] [32, 8] : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
// CHECK-NEXT:  regcopy.copy warp %R -> %S : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x8xf32, #regcopy.mem<shared>>
// CHECK-NEXT:  regcopy.copy thread %S[8, 0] [8, 8] -> %T : memref<32x8xf32, #regcopy.mem<shared>> -> memref<8x8xf32, #regcopy.layout<(8,8):(8,1)>, #regcopy.mem<local>>
// CHECK-NEXT:  regcopy.copy warpgroup %G -> %W : memref<128x64xf16, #regcopy.mem<global>> -> memref<128x64xf16, #regcopy.layout<(128,64):(1@tid_in_wg,1)>, #regcopy.mem<local>>
// CHECK-NEXT:  regcopy.copy cta %C -> %G {note = "extra attributes are kept"} : memref<128x64xf16, #regcopy.layout<(128,16,4):(4,1@tx,1)>, #regcopy.mem<local>> -> memref<128x64xf16, #regcopy.mem<global>>
// CHECK-NEXT:  func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "scopes"
// CHECK-GENERIC:       "regcopy.copy"(%S, %R) <{scope = #regcopy.exec<warp>, src_static_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 8>, dst_static_offsets = array<i64: 0, 0>, dst_sizes = array<i64: 32, 8>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (memref<32x8xf32, #regcopy.mem<shared>>, memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) -> ()
// CHECK-GENERIC-NEXT:  "regcopy.copy"(%R, %S) <{scope = #regcopy.exec<warp>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
// CHECK-GENERIC-NEXT:  "regcopy.copy"(%S, %T) <{scope = #regcopy.exec<thread>, src_static_offsets = array<i64: 8, 0>, src_sizes = array<i64: 8, 8>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
// CHECK-GENERIC-NEXT:  "regcopy.copy"(%G, %W) <{scope = #regcopy.exec<warpgroup>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
// CHECK-GENERIC-NEXT:  "regcopy.copy"(%C, %G) <{scope = #regcopy.exec<cta>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> {note = "extra attributes are kept"}

// -----

// Rank-differing regions: only the non-unit sizes must agree, in order.
func.func @ranks(%A: memref<4x16x16xf16, #regcopy.mem<shared>>,
                 %B: memref<16x1x8xf16, #regcopy.mem<shared.dyn>>) {
  %R = memref.alloca() : memref<8x8xf16, #regcopy.layout<(8,8):(8,1)>, #regcopy.mem<local>>
  %V = memref.alloca() : memref<1x8xf16, #regcopy.layout<(1,8):(8,1)>, #regcopy.mem<local>>
  regcopy.copy thread %A[3, 8, 8] [1, 8, 8] -> %R : memref<4x16x16xf16, #regcopy.mem<shared>> -> memref<8x8xf16, #regcopy.layout<(8,8):(8,1)>, #regcopy.mem<local>>
  regcopy.copy thread %R -> %A[0, 0, 0] [1, 8, 8] : memref<8x8xf16, #regcopy.layout<(8,8):(8,1)>, #regcopy.mem<local>> -> memref<4x16x16xf16, #regcopy.mem<shared>>
  regcopy.copy thread %R[2, 0] [1, 8] -> %B[5, 0, 0] [1, 1, 8] : memref<8x8xf16, #regcopy.layout<(8,8):(8,1)>, #regcopy.mem<local>> -> memref<16x1x8xf16, #regcopy.mem<shared.dyn>>
  regcopy.copy thread %A[0, 4, 0] [1, 1, 8] -> %V : memref<4x16x16xf16, #regcopy.mem<shared>> -> memref<1x8xf16, #regcopy.layout<(1,8):(8,1)>, #regcopy.mem<local>>
  func.return
}

// CHECK-LABEL: func.func @ranks(
// CHECK:       regcopy.copy thread %A[3, 8, 8] [1, 8, 8] -> %R : memref<4x16x16xf16, #regcopy.mem<shared>> -> memref<8x8xf16, #regcopy.layout<(8,8):(8,1)>, #regcopy.mem<local>>
// CHECK-NEXT:  regcopy.copy thread %R -> %A[0, 0, 0] [1, 8, 8] :
// CHECK-NEXT:  regcopy.copy thread %R[2, 0] [1, 8] -> %B[5, 0, 0] [1, 1, 8] : memref<8x8xf16, #regcopy.layout<(8,8):(8,1)>, #regcopy.mem<local>> -> memref<16x1x8xf16, #regcopy.mem<shared.dyn>>
// CHECK-NEXT:  regcopy.copy thread %A[0, 4, 0] [1, 1, 8] -> %V :

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "ranks"
// CHECK-GENERIC:       "regcopy.copy"(%A, %R) <{scope = #regcopy.exec<thread>, src_static_offsets = array<i64: 3, 8, 8>, src_sizes = array<i64: 1, 8, 8>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>
// CHECK-GENERIC-NEXT:  "regcopy.copy"(%R, %A) <{scope = #regcopy.exec<thread>, dst_static_offsets = array<i64: 0, 0, 0>, dst_sizes = array<i64: 1, 8, 8>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}>

// -----

// Dynamic `index` SSA offsets, mixed with static ones, on either side.
func.func @dynamic(%B: memref<64x1024xf32, #regcopy.mem<global>>,
                   %C: memref<64x1024xf32, #regcopy.mem<global>>,
                   %S: memref<4x64x8xf32, #regcopy.mem<shared>>, %i: index, %j: index)
    attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [8]>} {
  %R = memref.alloca() : memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>>
  %Q = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c8 = arith.constant 8 : index
  %row = arith.muli %bx, %c8 : index
  regcopy.copy cta %B[%row, 0] [8, 1024] -> %R : memref<64x1024xf32, #regcopy.mem<global>> -> memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %R -> %C[%row, 0] [8, 1024] : memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>> -> memref<64x1024xf32, #regcopy.mem<global>>
  regcopy.copy warp %S[%i, %j, 0] [1, 32, 8] -> %Q : memref<4x64x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %Q[0, 0] [32, 8] -> %S[%i, 32, 0] [1, 32, 8] : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<4x64x8xf32, #regcopy.mem<shared>>
  func.return
}

// CHECK-LABEL: func.func @dynamic(
// CHECK:       %row = arith.muli %bx, %c8 : index
// CHECK-NEXT:  regcopy.copy cta %B[%row, 0] [8, 1024] -> %R : memref<64x1024xf32, #regcopy.mem<global>> -> memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>>
// CHECK-NEXT:  regcopy.copy cta %R -> %C[%row, 0] [8, 1024] : memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>> -> memref<64x1024xf32, #regcopy.mem<global>>
// CHECK-NEXT:  regcopy.copy warp %S[%i, %j, 0] [1, 32, 8] -> %Q :
// CHECK-NEXT:  regcopy.copy warp %Q[0, 0] [32, 8] -> %S[%i, 32, 0] [1, 32, 8] :

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "dynamic"
// CHECK-GENERIC:       "regcopy.copy"(%B, %R, %row) <{scope = #regcopy.exec<cta>, src_static_offsets = array<i64: -9223372036854775808, 0>, src_sizes = array<i64: 8, 1024>, operandSegmentSizes = array<i32: 1, 1, 1, 0>}>
// CHECK-GENERIC-NEXT:  "regcopy.copy"(%R, %C, %row) <{scope = #regcopy.exec<cta>, dst_static_offsets = array<i64: -9223372036854775808, 0>, dst_sizes = array<i64: 8, 1024>, operandSegmentSizes = array<i32: 1, 1, 0, 1>}>
// CHECK-GENERIC-NEXT:  "regcopy.copy"(%S, %Q, %i, %j) <{scope = #regcopy.exec<warp>, src_static_offsets = array<i64: -9223372036854775808, -9223372036854775808, 0>, src_sizes = array<i64: 1, 32, 8>, operandSegmentSizes = array<i32: 1, 1, 2, 0>}>
// CHECK-GENERIC-NEXT:  "regcopy.copy"(%Q, %S, %i) <{scope = #regcopy.exec<warp>, src_static_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 8>, dst_static_offsets = array<i64: -9223372036854775808, 32, 0>, dst_sizes = array<i64: 1, 32, 8>, operandSegmentSizes = array<i32: 1, 1, 0, 1>}>

// -----

// Every supported element type.
func.func @dtypes() {
  %a0 = memref.alloca() : memref<32x2xf64, #regcopy.mem<shared>>
  %r0 = memref.alloca() : memref<32x2xf64, #regcopy.layout<(32,2):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %a0 -> %r0 : memref<32x2xf64, #regcopy.mem<shared>> -> memref<32x2xf64, #regcopy.layout<(32,2):(1@laneid,1)>, #regcopy.mem<local>>
  %a1 = memref.alloca() : memref<32x4xbf16, #regcopy.mem<shared>>
  %r1 = memref.alloca() : memref<32x4xbf16, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %a1 -> %r1 : memref<32x4xbf16, #regcopy.mem<shared>> -> memref<32x4xbf16, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>
  %a2 = memref.alloca() : memref<32x4xi64, #regcopy.mem<shared>>
  %r2 = memref.alloca() : memref<32x4xi64, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %a2 -> %r2 : memref<32x4xi64, #regcopy.mem<shared>> -> memref<32x4xi64, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>
  %a3 = memref.alloca() : memref<32x4xi32, #regcopy.mem<shared>>
  %r3 = memref.alloca() : memref<32x4xi32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %a3 -> %r3 : memref<32x4xi32, #regcopy.mem<shared>> -> memref<32x4xi32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>
  %a4 = memref.alloca() : memref<32x4xi16, #regcopy.mem<shared>>
  %r4 = memref.alloca() : memref<32x4xi16, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %a4 -> %r4 : memref<32x4xi16, #regcopy.mem<shared>> -> memref<32x4xi16, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>
  %a5 = memref.alloca() : memref<32x16xi8, #regcopy.mem<shared>>
  %r5 = memref.alloca() : memref<32x16xi8, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %a5 -> %r5 : memref<32x16xi8, #regcopy.mem<shared>> -> memref<32x16xi8, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  %a6 = memref.alloca() : memref<32x16xui8, #regcopy.mem<shared>>
  %r6 = memref.alloca() : memref<32x16xui8, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %a6 -> %r6 : memref<32x16xui8, #regcopy.mem<shared>> -> memref<32x16xui8, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  %a7 = memref.alloca() : memref<32x16xf8E4M3FN, #regcopy.mem<shared>>
  %r7 = memref.alloca() : memref<32x16xf8E4M3FN, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %a7 -> %r7 : memref<32x16xf8E4M3FN, #regcopy.mem<shared>> -> memref<32x16xf8E4M3FN, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  %a8 = memref.alloca() : memref<32x16xf8E5M2, #regcopy.mem<shared>>
  %r8 = memref.alloca() : memref<32x16xf8E5M2, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %r8 -> %a8 : memref<32x16xf8E5M2, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x16xf8E5M2, #regcopy.mem<shared>>
  func.return
}

// CHECK-LABEL: func.func @dtypes()
// CHECK: regcopy.copy warp %a0 -> %r0 : memref<32x2xf64
// CHECK: regcopy.copy warp %a1 -> %r1 : memref<32x4xbf16
// CHECK: regcopy.copy warp %a2 -> %r2 : memref<32x4xi64
// CHECK: regcopy.copy warp %a3 -> %r3 : memref<32x4xi32
// CHECK: regcopy.copy warp %a4 -> %r4 : memref<32x4xi16
// CHECK: regcopy.copy warp %a5 -> %r5 : memref<32x16xi8
// CHECK: regcopy.copy warp %a6 -> %r6 : memref<32x16xui8
// CHECK: regcopy.copy warp %a7 -> %r7 : memref<32x16xf8E4M3FN
// CHECK: regcopy.copy warp %r8 -> %a8 : memref<32x16xf8E5M2
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "dtypes"
// CHECK-GENERIC-COUNT-9: "regcopy.copy"

// -----

// regcopy.storage: a local buffer's per-thread registers (thread axes dropped); the linear
// memory (span, rounded up to whole swizzle periods) of any other buffer.
func.func @storage(%G: memref<64x64xf16>, %D: memref<8x16xf32, #regcopy.mem<shared.dyn>>) {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %C = memref.alloca() : memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>>
  %S = memref.alloca() : memref<64x64xf16, #regcopy.layout<(64,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
  %P = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(16,1)>, #regcopy.mem<shared>>
  %r = regcopy.storage %R : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<8xf32, #regcopy.mem<local>>
  %c = regcopy.storage %C : memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>> -> memref<32xf32, #regcopy.mem<local>>
  %s = regcopy.storage %S : memref<64x64xf16, #regcopy.layout<(64,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>> -> memref<4096xf16, #regcopy.mem<shared>>
  %p = regcopy.storage %P : memref<32x8xf32, #regcopy.layout<(32,8):(16,1)>, #regcopy.mem<shared>> -> memref<504xf32, #regcopy.mem<shared>>
  %g = regcopy.storage %G : memref<64x64xf16> -> memref<4096xf16>
  %d = regcopy.storage %D : memref<8x16xf32, #regcopy.mem<shared.dyn>> -> memref<128xf32, #regcopy.mem<shared.dyn>>
  func.return
}

// CHECK-LABEL: func.func @storage(
// CHECK:       %r = regcopy.storage %R : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<8xf32, #regcopy.mem<local>>
// CHECK-NEXT:  %c = regcopy.storage %C : memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>> -> memref<32xf32, #regcopy.mem<local>>
// CHECK-NEXT:  %s = regcopy.storage %S : memref<64x64xf16, #regcopy.layout<(64,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>> -> memref<4096xf16, #regcopy.mem<shared>>
// CHECK-NEXT:  %p = regcopy.storage %P : memref<32x8xf32, #regcopy.layout<(32,8):(16,1)>, #regcopy.mem<shared>> -> memref<504xf32, #regcopy.mem<shared>>
// CHECK-NEXT:  %g = regcopy.storage %G : memref<64x64xf16> -> memref<4096xf16>
// CHECK-NEXT:  %d = regcopy.storage %D : memref<8x16xf32, #regcopy.mem<shared.dyn>> -> memref<128xf32, #regcopy.mem<shared.dyn>>
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "storage"
// CHECK-GENERIC:       %r = "regcopy.storage"(%R) : (memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) -> memref<8xf32, #regcopy.mem<local>>
