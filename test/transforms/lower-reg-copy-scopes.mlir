// Scopes (warp, warpgroup with laneid + wid_in_wg, cta), memory spaces (shared, shared.dyn,
// global), both directions, and the max-vector-bits option.
// RUN: regcopy-opt %s --split-input-file --lower-reg-copy | filecheck %s
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{max-vector-bits=64}' | filecheck %s --check-prefix=V64
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{max-vector-bits=32}' | filecheck %s --check-prefix=V32

// Warpgroup: laneid and wid_in_wg fuse into tid_in_wg = lane + 32 * warp (rows 0..127).
func.func @warpgroup_fused() attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [1]>} {
  %S = memref.alloca() : memref<128x8xf16, #regcopy.mem<shared.dyn>>
  %R = memref.alloca() : memref<128x8xf16, #regcopy.layout<(4,32,8):(1@wid_in_wg,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warpgroup %S -> %R : memref<128x8xf16, #regcopy.mem<shared.dyn>> -> memref<128x8xf16, #regcopy.layout<(4,32,8):(1@wid_in_wg,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warpgroup %R -> %S : memref<128x8xf16, #regcopy.layout<(4,32,8):(1@wid_in_wg,1@laneid,1)>, #regcopy.mem<local>> -> memref<128x8xf16, #regcopy.mem<shared.dyn>>
  func.return
}
// CHECK-LABEL: func.func @warpgroup_fused
// CHECK:         %[[TID:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:    %[[C128:.*]] = arith.constant 128 : index
// CHECK-NEXT:    %[[T:.*]] = arith.remsi %[[TID]], %[[C128]] : index
// CHECK-NEXT:    %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[BASE:.*]] = arith.muli %[[T]], %[[C8]] : index
// CHECK:         %[[V:.*]] = vector.load %{{.*}}[%[[BASE]]] : memref<1024xf16, #regcopy.mem<shared.dyn>>, vector<8xf16>
// CHECK-NEXT:    vector.store %[[V]], %{{.*}}[%{{.*}}] : memref<8xf16, #regcopy.mem<local>>, vector<8xf16>
// CHECK:         vector.load %{{.*}} : memref<8xf16, #regcopy.mem<local>>, vector<8xf16>
// CHECK-NEXT:    vector.store %{{.*}} : memref<1024xf16, #regcopy.mem<shared.dyn>>, vector<8xf16>
// CHECK-NOT:     regcopy.copy
// V64-LABEL: func.func @warpgroup_fused
// V64:         vector.load {{.*}} vector<4xf16>
// V32:         vector.load {{.*}} vector<2xf16>

// -----

// CTA scope, global both ways, rows split over warps (warpid) and lanes (laneid fuse to tx).
func.func @cta_global(%G: memref<64x32xf32, #regcopy.mem<global>>, %H: memref<64x32xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 64, grid = [1]>} {
  %R = memref.alloca() : memref<64x32xf32, #regcopy.layout<(2,32,32):(1@warpid,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy cta %G -> %R : memref<64x32xf32, #regcopy.mem<global>> -> memref<64x32xf32, #regcopy.layout<(2,32,32):(1@warpid,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy cta %R -> %H : memref<64x32xf32, #regcopy.layout<(2,32,32):(1@warpid,1@laneid,1)>, #regcopy.mem<local>> -> memref<64x32xf32, #regcopy.mem<global>>
  func.return
}
// CHECK-LABEL: func.func @cta_global
// CHECK:         %[[TID:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:    %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT:    %[[BASE:.*]] = arith.muli %[[TID]], %[[C32]] : index
// CHECK:         scf.for
// CHECK:           vector.load {{.*}} : memref<2048xf32, #regcopy.mem<global>>, vector<4xf32>
// CHECK:         scf.for
// CHECK:           vector.store {{.*}} : memref<2048xf32, #regcopy.mem<global>>, vector<4xf32>
// V64-LABEL: func.func @cta_global
// V64:         vector.load {{.*}} vector<2xf32>
// V32-LABEL: func.func @cta_global
// V32:         vector.load {{.*}} vector<1xf32>

// -----

// Thread scope with a plain (row-major) local tile, i8 data: 16-byte transfers.
func.func @thread_i8(%G: memref<16x64xi8, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<2x32xi8, #regcopy.mem<local>>
  regcopy.copy thread %G[4, 32] [2, 32] -> %R : memref<16x64xi8, #regcopy.mem<global>> -> memref<2x32xi8, #regcopy.mem<local>>
  func.return
}
// CHECK-LABEL: func.func @thread_i8
// CHECK:         %[[BASE:.*]] = arith.constant 288 : index
// CHECK:         vector.load {{.*}} vector<16xi8>
// V64-LABEL: func.func @thread_i8
// V64:         vector.load {{.*}} vector<8xi8>
