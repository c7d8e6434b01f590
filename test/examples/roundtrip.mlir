// Every example under examples/ parses, verifies and round-trips, in custom and generic form,
// with regcopy-opt and with stock xdsl-opt (through the xdsl.universe entry point), and both
// tools print the same text. The examples are joined into one --split-input-file stream, so a
// new example is covered without touching this file.
//
// RUN: sh -c 'for f in %S/../../examples/*.mlir; do test -z "$sep" || echo "$sep"; cat "$f"; sep="// -----"; done' > %t.in.mlir
// RUN: regcopy-opt %t.in.mlir --split-input-file > %t.custom.mlir
// RUN: regcopy-opt %t.custom.mlir --split-input-file > %t.custom2.mlir
// RUN: diff %t.custom.mlir %t.custom2.mlir
// RUN: regcopy-opt %t.in.mlir --split-input-file --print-op-generic > %t.generic.mlir
// RUN: regcopy-opt %t.generic.mlir --split-input-file > %t.fromgeneric.mlir
// RUN: diff %t.custom.mlir %t.fromgeneric.mlir
// RUN: xdsl-opt %t.in.mlir --split-input-file > %t.xdsl.mlir
// RUN: diff %t.custom.mlir %t.xdsl.mlir
// RUN: xdsl-opt %t.xdsl.mlir --split-input-file > %t.xdsl2.mlir
// RUN: diff %t.custom.mlir %t.xdsl2.mlir
// RUN: xdsl-opt %t.in.mlir --split-input-file --print-op-generic > %t.xgeneric.mlir
// RUN: diff %t.generic.mlir %t.xgeneric.mlir
// RUN: xdsl-opt %t.xgeneric.mlir --split-input-file > %t.xfromgeneric.mlir
// RUN: diff %t.custom.mlir %t.xfromgeneric.mlir
// RUN: filecheck %s --input-file %t.custom.mlir

// Spot checks of the examples this test was written with (examples/ in alphabetical order).

// CHECK-LABEL: func.func @cta_tile(%B: memref<64x1024xf32, #regcopy.mem<global>>, %C: memref<64x1024xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [8]>} {
// CHECK:       %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK:       %row = arith.muli %bx, %c8 : index
// CHECK-NEXT:  regcopy.copy cta %B[%row, 0] [8, 1024] -> %R : memref<64x1024xf32, #regcopy.mem<global>> -> memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>>
// CHECK-NEXT:  regcopy.copy cta %R -> %C[%row, 0] [8, 1024] : memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>> -> memref<64x1024xf32, #regcopy.mem<global>>

// CHECK-LABEL: func.func @seed_demo(
// CHECK:       regcopy.copy warp %A[0, 0] [32, 8] -> %R[0, 0] [32, 8] : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>

// CHECK-LABEL: func.func @seed_f16_k16(
// CHECK:       regcopy.copy warp %A[0, 0] [32, 16] -> %R[0, 0] [32, 16] : memref<32x16xf16, #regcopy.mem<shared>> -> memref<32x16xf16, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
// CHECK-NEXT:  regcopy.copy warp %R -> %B : memref<32x16xf16, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x16xf16, #regcopy.mem<shared>>

// CHECK-LABEL: func.func @seed_f16_k8(
// CHECK:       regcopy.copy warp %A[0, 0] [32, 8] -> %R[0, 0] [32, 8] : memref<32x8xf16, #regcopy.mem<shared>> -> memref<32x8xf16, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
// CHECK-NEXT:  regcopy.copy warp %R -> %B : memref<32x8xf16, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x8xf16, #regcopy.mem<shared>>

// CHECK-LABEL: func.func @seed_f32_k16(
// CHECK:       regcopy.copy warp %A[0, 0] [32, 16] -> %R[0, 0] [32, 16] : memref<32x16xf32, #regcopy.mem<shared>> -> memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
// CHECK-NEXT:  regcopy.copy warp %R -> %B : memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x16xf32, #regcopy.mem<shared>>
