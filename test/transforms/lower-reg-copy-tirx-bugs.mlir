// The six places where TIRx mis-lowers: never the TIRx result.
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{bank-rotation=off}' | filecheck %s
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{remarks=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

// B1: S [32,10] f32, cols 0..8: the S stride 10 multiplies the lane, so 16-byte loads at lane*40
// bytes would be misaligned on odd lanes (TIRx emits vec 4). Correct: vec 2.
func.func @b1_misaligned() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<32x10xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S[0, 0] [32, 8] -> %R : memref<32x10xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK-LABEL: func.func @b1_misaligned
// CHECK:         %[[LANE:.*]] = "gpu.lane_id"() : () -> index
// CHECK-NEXT:    %[[C10:.*]] = arith.constant 10 : index
// CHECK-NEXT:    arith.muli %[[LANE]], %[[C10]] : index
// CHECK:         vector.load {{.*}} vector<2xf32>
// CHECK-NOT:     vector<4xf32>
// REMARK: remark: vec 2 × f32 (64 bits), 4 rounds, 8 registers/thread
// REMARK:      {{^  }}narrowed: 4-wide refused: S stride 10 multiplied by a thread coordinate is not a multiple of 4

// -----

// B2: R (32,8):(1@laneid,2): register slots 0,2,..,14 (TIRx fills 0..3 with one vector).
// Correct: vec 1, register offset 2*f.
func.func @b2_register_gaps() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,2)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %S : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,2)>, #regcopy.mem<local>> -> memref<32x8xf32, #regcopy.mem<shared>>
  func.return
}
// CHECK-LABEL: func.func @b2_register_gaps
// CHECK:         regcopy.storage %R {{.*}} -> memref<15xf32, #regcopy.mem<local>>
// CHECK:         scf.for %[[F:.*]] = %{{.*}} to %[[C8:.*]] step %{{.*}} {
// CHECK-NEXT:      %[[DR:.*]] = arith.muli %[[F]], %[[C2:.*]] : index
// CHECK-NEXT:      %[[SOFF:.*]] = arith.addi %{{.*}}, %[[F]] : index
// CHECK-NEXT:      %[[V:.*]] = vector.load %{{.*}}[%[[DR]]] : memref<15xf32, #regcopy.mem<local>>, vector<1xf32>
// CHECK-NEXT:      vector.store %[[V]], %{{.*}}[%[[SOFF]]] : memref<256xf32, #regcopy.mem<shared>>, vector<1xf32>
// REMARK: remark: vec 1 × f32 (32 bits), 8 rounds, 15 registers/thread
// REMARK:      {{^  }}narrowed: 4-wide refused: R registers are not contiguous over 4 elements (register gaps)

// -----

// B3: R (16,8):(2@laneid,1): lane 2i owns row i; TIRx addresses row = lane. Correct: row =
// lane // 2, and odd lanes (which own nothing) are guarded out.
func.func @b3_thread_stride() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<16x8xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<16x8xf32, #regcopy.layout<(16,8):(2@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %S : memref<16x8xf32, #regcopy.layout<(16,8):(2@laneid,1)>, #regcopy.mem<local>> -> memref<16x8xf32, #regcopy.mem<shared>>
  func.return
}
// CHECK-LABEL: func.func @b3_thread_stride
// CHECK:         %[[LANE:.*]] = "gpu.lane_id"() : () -> index
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[ROW:.*]] = arith.divsi %[[LANE]], %[[C2]] : index
// CHECK-NEXT:    %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[BASE:.*]] = arith.muli %[[ROW]], %[[C8]] : index
// CHECK-NEXT:    %[[RECON:.*]] = arith.muli %[[ROW]], %[[C2]] : index
// CHECK:         %[[OWNED:.*]] = arith.cmpi eq, %[[RECON]], %[[LANE]] : index
// CHECK-NEXT:    scf.if %[[OWNED]] {
// CHECK-NEXT:      scf.for
// CHECK:             vector.store {{.*}} vector<4xf32>
// REMARK: remark: vec 4 × f32 (128 bits), 2 rounds, 8 registers/thread, guarded

// -----

// B4: a 16-row region of R (32,8):(1@laneid,1): lanes 16..31 own nothing in the region and
// must not write (TIRx lets them write outside it). Correct: guarded.
func.func @b4_partial_coverage() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<16x8xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R[0, 0] [16, 8] -> %S : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<16x8xf32, #regcopy.mem<shared>>
  func.return
}
// CHECK-LABEL: func.func @b4_partial_coverage
// CHECK:         %[[LANE:.*]] = "gpu.lane_id"() : () -> index
// CHECK-NEXT:    %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[ROW:.*]] = arith.remsi %[[LANE]], %[[C16]] : index
// CHECK:         %[[OWNED:.*]] = arith.cmpi eq, %[[ROW]], %[[LANE]] : index
// CHECK-NEXT:    scf.if %[[OWNED]] {
// CHECK:             vector.store {{.*}} : memref<128xf32, #regcopy.mem<shared>>, vector<4xf32>
// REMARK: remark: vec 4 × f32 (128 bits), 2 rounds, 8 registers/thread, guarded

// -----

// B5: replicas. A layout that leaves a thread axis of the scope out without declaring the
// copies (replicate<...>, see lower-reg-copy-replicas.mlir) is replicated and rejected:
// R with only laneid under warpgroup scope is owned by 4 threads (one per warp).
func.func @b5_replicated() attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %S = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warpgroup %S -> %R : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK-LABEL: func.func @b5_replicated
// CHECK:         regcopy.copy warpgroup %S -> %R
// REMARK: remark: not lowered: R layout (32,8):(1@laneid,1) is replicated: 4 threads of the warpgroup own the same element
