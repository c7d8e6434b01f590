// Replicated register tiles (replicate<...>): thread t and t + r * stride own the same
// elements. A load fills every replica (no guard); a store writes each element once: one
// scf.if per copy lets only replica 0 (replica coordinates all 0) through.
//
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{warn-unlowered=false}' | filecheck %s
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{remarks}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

!R = memref<16x8xf32, #regcopy.layout<(16,8):(1@laneid,1), replicate<2:16@laneid>>, #regcopy.mem<local>>
func.func @load(%A: memref<16x8xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : !R
  regcopy.copy warp %A -> %R : memref<16x8xf32, #regcopy.mem<global>> -> !R
  func.return
}
// CHECK-LABEL: func.func @load
// CHECK:         %[[LANE:.*]] = "gpu.lane_id"() : () -> index
// CHECK:         %[[ROW:.*]] = arith.remsi %[[LANE]], %{{.*}} : index
// CHECK:         %[[BASE:.*]] = arith.muli %[[ROW]], %{{.*}} : index
// CHECK-NOT:     scf.if
// CHECK:         scf.for %[[F:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[DS:.*]] = arith.muli %[[F]], %{{.*}} : index
// CHECK:           %[[S:.*]] = arith.addi %[[BASE]], %[[DS]] : index
// CHECK:           %{{.*}} = vector.load %{{.*}}[%[[S]]] : memref<128xf32, #regcopy.mem<global>>, vector<4xf32>
// CHECK:           vector.store %{{.*}}, %{{.*}}[%[[DS]]] : memref<8xf32, #regcopy.mem<local>>, vector<4xf32>
// CHECK-NOT:     scf.if
// CHECK:         func.return
// REMARK: remark: vec 4 × f32 (128 bits), 2 rounds, 8 registers/thread, 2 replicas (each loads) [copy %A -> %R in @load]

// -----

// The store: lanes 16..31 (replica 1) are guarded out by one comparison, lane % 16 == lane.
!R = memref<16x8xf32, #regcopy.layout<(16,8):(1@laneid,1), replicate<2:16@laneid>>, #regcopy.mem<local>>
func.func @store(%A: memref<16x8xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : !R
  regcopy.copy warp %R -> %A : !R -> memref<16x8xf32, #regcopy.mem<global>>
  func.return
}
// CHECK-LABEL: func.func @store
// CHECK:         %[[LANE:.*]] = "gpu.lane_id"() : () -> index
// CHECK:         %[[ROW:.*]] = arith.remsi %[[LANE]], %{{.*}} : index
// CHECK:         %[[OWNED:.*]] = arith.cmpi eq, %[[ROW]], %[[LANE]] : index
// CHECK-NEXT:    scf.if %[[OWNED]] {
// CHECK-NEXT:      scf.for
// CHECK:             vector.store %{{.*}} : memref<128xf32, #regcopy.mem<global>>, vector<4xf32>
// CHECK-NOT:     scf.if
// REMARK: remark: vec 4 × f32 (128 bits), 2 rounds, 8 registers/thread, guarded, 2 replicas (replica 0 stores) [copy %R -> %A in @store]

// -----

// Replicas over warps (a Triton mma A operand, warpsPerCTA [2, 2]: warp 2 wm + wn, both wn hold
// the rows of wm). The store's guard compares the thread index with the owner it decodes
// without the replica digit (tid / 32 % 2), so odd warps stay out.
!R = memref<32x16xf16, #regcopy.layout<(2,2,8,2,4,2):(2@warpid,2,4@laneid,4,1@laneid,1), replicate<2:1@warpid>>, #regcopy.mem<local>>
func.func @mma_a(%A: memref<32x16xf16, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %R = memref.alloca() : !R
  regcopy.copy cta %A -> %R : memref<32x16xf16, #regcopy.mem<global>> -> !R
  regcopy.copy cta %R -> %A : !R -> memref<32x16xf16, #regcopy.mem<global>>
  func.return
}
// CHECK-LABEL: func.func @mma_a
// CHECK-NOT:     scf.if
// CHECK:         vector.store %{{.*}} : memref<8xf16, #regcopy.mem<local>>, vector<2xf16>
// CHECK:         %[[OWNED:.*]] = arith.cmpi eq
// CHECK-NEXT:    scf.if %[[OWNED]] {
// CHECK:           vector.store %{{.*}} : memref<512xf16, #regcopy.mem<global>>, vector<2xf16>
// REMARK: remark: vec 2 × f16 (32 bits), 4 rounds, 4 registers/thread (8 × f16), 2 replicas (each loads) [copy %A -> %R in @mma_a]
// REMARK: remark: vec 2 × f16 (32 bits), 4 rounds, 4 registers/thread (8 × f16), guarded, 2 replicas (replica 0 stores) [copy %R -> %A in @mma_a]

// -----

// From shared memory the fragment suits ldmatrix (each replica group would issue the same
// one), but in this unswizzled 32-byte-row tile its rows conflict: the per-thread path wins,
// and the remark says why. Replicas reading one address are a broadcast in the bank model
// (the per-round wavefronts are those of the representatives).
!R = memref<32x16xf16, #regcopy.layout<(2,2,8,2,4,2):(2@warpid,2,4@laneid,4,1@laneid,1), replicate<2:1@warpid>>, #regcopy.mem<local>>
func.func @mma_a_shared() attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %A = memref.alloca() : memref<32x16xf16, #regcopy.mem<shared>>
  %R = memref.alloca() : !R
  regcopy.copy cta %A -> %R : memref<32x16xf16, #regcopy.mem<shared>> -> !R
  func.return
}
// REMARK: remark: vec 2 × f16 (32 bits), 4 rounds, 4 registers/thread (8 × f16), 2 replicas (each loads) [copy %A -> %R in @mma_a_shared]
// REMARK: {{^  }}ldmatrix not used: ldmatrix.x4 (1 instruction a warp, 16 bytes a lane) needs 8 wavefronts (bank conflicts between its rows); the per-thread path (vec 2) needs 4 shared instructions a warp and 4 wavefronts

// -----

// The same operand over K = 64 from a 128-byte-swizzled tile: ldmatrix.x4, the same
// instructions in both replica groups (warps 2 wm and 2 wm + 1); the store back is refused
// stmatrix (only replica 0 stores) and stays per-thread.
!R = memref<32x64xf16, #regcopy.layout<(2,2,8,4,2,4,2):(2@warpid,2,4@laneid,8,4,1@laneid,1), replicate<2:1@warpid>>, #regcopy.mem<local>>
!S = memref<32x64xf16, #regcopy.layout<(32,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
func.func @mma_a_swizzled() attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %S = memref.alloca() : !S
  %R = memref.alloca() : !R
  regcopy.copy cta %S -> %R : !S -> !R
  regcopy.copy cta %R -> %S : !R -> !S
  func.return
}
// CHECK-LABEL: func.func @mma_a_swizzled
// CHECK-COUNT-4: regcopy.ldmatrix
// CHECK-NOT:     regcopy.stmatrix
// REMARK: remark: ldmatrix.x4 (4 instructions a warp, 64 bytes a lane), 16 registers/thread (32 × f16), 2 replicas (each loads) [copy %S -> %R in @mma_a_swizzled]
// REMARK: {{^  }}each of the 2 replica groups issues the same ldmatrix (the replica digits of the thread index leave its lane addresses unchanged)
// REMARK: remark: vec 2 × f16 (32 bits), 16 rounds, 16 registers/thread (32 × f16), guarded, 2 replicas (replica 0 stores) [copy %R -> %S in @mma_a_swizzled]
// REMARK: {{^  }}stmatrix not used: R is replicated and the copy's source (replica 0 stores); stmatrix would have every replica store

// -----

// Replicas that leave the scope: replicate<2:1@warpid> in a block of one warp.
!R = memref<16x8xf32, #regcopy.layout<(16,8):(1@laneid,1), replicate<2:1@warpid>>, #regcopy.mem<local>>
func.func @outside(%A: memref<16x8xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : !R
  regcopy.copy cta %A -> %R : memref<16x8xf32, #regcopy.mem<global>> -> !R
  func.return
}
// REMARK: remark: not lowered: R layout (16,8):(1@laneid,1), replicate<2:1@warpid> has 2 replicas but only 1 of them lie inside the cta [copy %A -> %R in @outside]
// REMARK: replicas must stay inside the exec scope (and the block)

// -----

// Undeclared copies are still refused: laneid alone under warpgroup scope, 2 declared, 8 found.
!R = memref<16x8xf32, #regcopy.layout<(16,8):(1@laneid,1), replicate<2:16@laneid>>, #regcopy.mem<local>>
func.func @undeclared(%A: memref<16x8xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %R = memref.alloca() : !R
  regcopy.copy warpgroup %A -> %R : memref<16x8xf32, #regcopy.mem<global>> -> !R
  func.return
}
// REMARK: remark: not lowered: R layout (16,8):(1@laneid,1), replicate<2:16@laneid> is replicated: 8 threads of the warpgroup own the same element but the layout declares 2 replicas [copy %A -> %R in @undeclared]

// -----

// A replica axis wider than the exec scope is refused like a thread axis.
!R = memref<16x8xf32, #regcopy.layout<(16,8):(1@laneid,1), replicate<2:1@warpid>>, #regcopy.mem<local>>
func.func @wide(%A: memref<16x8xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 64, grid = [1]>} {
  %R = memref.alloca() : !R
  regcopy.copy warp %A -> %R : memref<16x8xf32, #regcopy.mem<global>> -> !R
  func.return
}
// REMARK: remark: not lowered: R thread axis 'warpid' has scope cta, wider than exec scope warp [copy %A -> %R in @wide]
