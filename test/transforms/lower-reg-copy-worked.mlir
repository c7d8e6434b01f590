// The worked examples: atoms, vector width, rounds and thread base.
// RUN: regcopy-opt %s --split-input-file --lower-reg-copy | filecheck %s
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{remarks=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

// Thread scope, S [4,16,16] region [3,8,8] [1,8,8] -> R [8,8], f16:
// atoms (8,16,8),(8,1,1); n = 8; 8 rounds; base 3*256 + 8*16 + 8 = 904.
func.func @thread_3d(%S: memref<4x16x16xf16, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<8x8xf16, #regcopy.mem<local>>
  regcopy.copy thread %S[3, 8, 8] [1, 8, 8] -> %R : memref<4x16x16xf16, #regcopy.mem<global>> -> memref<8x8xf16, #regcopy.mem<local>>
  func.return
}
// CHECK-LABEL: func.func @thread_3d
// CHECK-NOT:     gpu.
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[BASE:.*]] = arith.constant 904 : index
// CHECK-DAG:     %[[SS:.*]] = regcopy.storage %S : memref<4x16x16xf16, #regcopy.mem<global>> -> memref<1024xf16, #regcopy.mem<global>>
// CHECK-DAG:     %[[RS:.*]] = regcopy.storage %R : memref<8x8xf16, #regcopy.mem<local>> -> memref<64xf16, #regcopy.mem<local>>
// CHECK:         scf.for %[[F:.*]] = %{{.*}} to %[[C8]] step %{{.*}} {
// CHECK-NEXT:      %[[DS:.*]] = arith.muli %[[F]], %[[C16]] : index
// CHECK-NEXT:      %[[DR:.*]] = arith.muli %[[F]], %[[C8]] : index
// CHECK-NEXT:      %[[OFF:.*]] = arith.addi %[[BASE]], %[[DS]] : index
// CHECK-NEXT:      %[[V:.*]] = vector.load %[[SS]][%[[OFF]]] : memref<1024xf16, #regcopy.mem<global>>, vector<8xf16>
// CHECK-NEXT:      vector.store %[[V]], %[[RS]][%[[DR]]] : memref<64xf16, #regcopy.mem<local>>, vector<8xf16>
// CHECK-NEXT:    }
// REMARK: {{^.*}}/lower-reg-copy-worked.mlir:{{[0-9]+}}:3: remark: vec 8 × f16 (128 bits), 8 rounds, 32 registers/thread (64 × f16) [copy %S -> %R in @thread_3d]

// -----

// Warp, R (32,16):(1@laneid,1) sliced to columns 2..10, f32: base lane*16 + 2, so n = 2, 4 rounds.
func.func @sliced_cols(%S: memref<32x16xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S[0, 2] [32, 8] -> %R[0, 2] [32, 8] : memref<32x16xf32, #regcopy.mem<global>> -> memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK-LABEL: func.func @sliced_cols
// CHECK:         %[[LANE:.*]] = "gpu.lane_id"() : () -> index
// CHECK-NEXT:    %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[T:.*]] = arith.muli %[[LANE]], %[[C16]] : index
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[SBASE:.*]] = arith.addi %[[C2]], %[[T]] : index
// CHECK:         scf.for %[[F:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[D:.*]] = arith.muli %[[F]], %[[C2]] : index
// CHECK-NEXT:      %[[SOFF:.*]] = arith.addi %[[SBASE]], %[[D]] : index
// CHECK-NEXT:      %[[ROFF:.*]] = arith.addi %[[C2]], %[[D]] : index
// CHECK-NEXT:      vector.load %{{.*}}[%[[SOFF]]] : memref<512xf32, #regcopy.mem<global>>, vector<2xf32>
// CHECK-NEXT:      vector.store %{{.*}}, %{{.*}}[%[[ROFF]]] : memref<16xf32, #regcopy.mem<local>>, vector<2xf32>
// REMARK: {{^.*}}/lower-reg-copy-worked.mlir:{{[0-9]+}}:3: remark: vec 2 × f32 (64 bits), 4 rounds, 16 registers/thread [copy %S -> %R in @sliced_cols]
// REMARK:      {{^  }}narrowed: 4-wide refused: S base offset 2 is not a multiple of 4

// -----

// Warpgroup, R (128,64):(1@tid_in_wg,1), S swizzle<3,3,3> f16: n = 8 (one swizzle chunk),
// 8 rounds. The swizzle of the thread's base is computed once before the loop; each round
// moves only bits the swizzle maps linearly (the base is a multiple of 512 elements), so a
// round costs one XOR: swizzle(base + d) = swizzle(base) ^ (d & 511).
func.func @swizzled() attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %S = memref.alloca() : memref<128x64xf16, #regcopy.layout<(128,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<128x64xf16, #regcopy.layout<(128,64):(1@tid_in_wg,1)>, #regcopy.mem<local>>
  regcopy.copy warpgroup %S -> %R : memref<128x64xf16, #regcopy.layout<(128,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>> -> memref<128x64xf16, #regcopy.layout<(128,64):(1@tid_in_wg,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK-LABEL: func.func @swizzled
// CHECK:         %[[TID:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:    %[[C128:.*]] = arith.constant 128 : index
// CHECK-NEXT:    %[[T:.*]] = arith.remsi %[[TID]], %[[C128]] : index
// CHECK-NEXT:    %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT:    %[[BASE:.*]] = arith.muli %[[T]], %[[C64]] : index
// swizzle(m) = m ^ (((m >> 6) & 7) << 3), once, on the thread's base:
// CHECK:         %[[C6:.*]] = arith.constant 6 : index
// CHECK-NEXT:    %[[X:.*]] = arith.shrsi %[[BASE]], %[[C6]] : index
// CHECK-NEXT:    %[[C7:.*]] = arith.constant 7 : index
// CHECK-NEXT:    %[[Y:.*]] = arith.andi %[[X]], %[[C7]] : index
// CHECK-NEXT:    %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:    %[[Y2:.*]] = arith.shli %[[Y]], %[[C3]] : index
// CHECK-NEXT:    %[[SWB:.*]] = arith.xori %[[BASE]], %[[Y2]] : index
// CHECK-NEXT:    %[[C511:.*]] = arith.constant 511 : index
// CHECK:         scf.for %[[F:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[D:.*]] = arith.muli %[[F]], %{{.*}} : index
// CHECK-NEXT:      %[[DLO:.*]] = arith.andi %[[D]], %[[C511]] : index
// CHECK-NEXT:      %[[P:.*]] = arith.xori %[[SWB]], %[[DLO]] : index
// CHECK-NEXT:      %[[V:.*]] = vector.load %{{.*}}[%[[P]]] : memref<8192xf16, #regcopy.mem<shared>>, vector<8xf16>
// CHECK-NEXT:      vector.store %[[V]], %{{.*}}[%[[D]]] : memref<64xf16, #regcopy.mem<local>>, vector<8xf16>
// CHECK-NEXT:    }
// REMARK: {{^.*}}/lower-reg-copy-worked.mlir:{{[0-9]+}}:3: remark: vec 8 × f16 (128 bits), 8 rounds, 32 registers/thread (64 × f16) [copy %S -> %R in @swizzled]
