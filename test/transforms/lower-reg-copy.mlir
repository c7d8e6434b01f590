// The seed table: warp scope, R = (32,k):(1@laneid,1), shared S[32,k].
// Each row must come out exactly: registers/lane, vec, rounds.
// The plain form (bank-rotation=off): one scf.for over the rounds, one vector.load and one
// vector.store per round.
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{bank-rotation=off}' | filecheck %s
// RUN: xdsl-opt %s --split-input-file -p 'lower-reg-copy{bank-rotation=off}' | filecheck %s
// By default the 2- and 4-way bank-conflicted rows get lane-rotated rounds: unrolled, the
// same vec and rounds, values moved into their (statically indexed) registers by selects.
// RUN: regcopy-opt %s --split-input-file --lower-reg-copy | filecheck %s --check-prefix=ROT
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{remarks=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

func.func @s2r_f32_k8() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S[0, 0] [32, 8] -> %R[0, 0] [32, 8] : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}

// CHECK-LABEL: func.func @s2r_f32_k8
// CHECK:         %[[LANE:.*]] = "gpu.lane_id"() : () -> index
// CHECK-NEXT:    %[[K:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[BASE:.*]] = arith.muli %[[LANE]], %[[K]] : index
// CHECK-NEXT:    %[[SS:.*]] = regcopy.storage %S : memref<32x8xf32, #regcopy.mem<shared>> -> memref<256xf32, #regcopy.mem<shared>>
// CHECK-NEXT:    %[[RS:.*]] = regcopy.storage %R : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<8xf32, #regcopy.mem<local>>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[ROUNDS:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK:         scf.for %[[F:.*]] = %[[C0]] to %[[ROUNDS]] step %[[C1]] {
// CHECK-NEXT:      %[[D:.*]] = arith.muli %[[F]], %{{.*}} : index
// CHECK-NEXT:      %[[OFF:.*]] = arith.addi %[[BASE]], %[[D]] : index
// CHECK-NEXT:      %[[V:.*]] = vector.load %[[SS]][%[[OFF]]] : memref<256xf32, #regcopy.mem<shared>>, vector<4xf32>
// CHECK-NEXT:      vector.store %[[V]], %[[RS]][%[[D]]] : memref<8xf32, #regcopy.mem<local>>, vector<4xf32>
// CHECK-NEXT:    }
// CHECK-NOT:     regcopy.copy
// CHECK:         func.return
// ROT-LABEL: func.func @s2r_f32_k8
// ROT:         %[[LANE:.*]] = "gpu.lane_id"() : () -> index
// ROT:         %[[BASE:.*]] = arith.muli %[[LANE]], %{{.*}} : index
// ROT:         %[[SH:.*]] = arith.shrsi %[[LANE]], %{{.*}} : index
// ROT:         %[[BIT:.*]] = arith.andi %[[SH]], %{{.*}} : index
// ROT-NEXT:    %[[B2:.*]] = arith.index_cast %[[BIT]] : index to i1
// ROT-NOT:     scf.for
// ROT:         %[[V0:.*]] = vector.load %{{.*}}[%{{.*}}] : memref<256xf32, #regcopy.mem<shared>>, vector<4xf32>
// ROT-NEXT:    %[[V1:.*]] = vector.load %{{.*}}[%{{.*}}] : memref<256xf32, #regcopy.mem<shared>>, vector<4xf32>
// ROT-NEXT:    %[[R0:.*]] = arith.select %[[B2]], %[[V1]], %[[V0]] : vector<4xf32>
// ROT-NEXT:    %[[R1:.*]] = arith.select %[[B2]], %[[V0]], %[[V1]] : vector<4xf32>
// ROT-NEXT:    vector.store %[[R0]], %{{.*}}[%{{.*}}] : memref<8xf32, #regcopy.mem<local>>, vector<4xf32>
// ROT-NEXT:    vector.store %[[R1]], %{{.*}}[%{{.*}}] : memref<8xf32, #regcopy.mem<local>>, vector<4xf32>
// ROT-NOT:     regcopy.copy
// ROT:         func.return
// REMARK: {{^.*}}/lower-reg-copy.mlir:{{[0-9]+}}:3: remark: vec 4 × f32 (128 bits), 2 rounds, 8 registers/thread [copy %S -> %R in @s2r_f32_k8]
// -----

func.func @s2r_f32_k16() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<32x16xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S[0, 0] [32, 16] -> %R[0, 0] [32, 16] : memref<32x16xf32, #regcopy.mem<shared>> -> memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}

// CHECK-LABEL: func.func @s2r_f32_k16
// CHECK:         %[[LANE:.*]] = "gpu.lane_id"() : () -> index
// CHECK-NEXT:    %[[K:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[BASE:.*]] = arith.muli %[[LANE]], %[[K]] : index
// CHECK-NEXT:    %[[SS:.*]] = regcopy.storage %S : memref<32x16xf32, #regcopy.mem<shared>> -> memref<512xf32, #regcopy.mem<shared>>
// CHECK-NEXT:    %[[RS:.*]] = regcopy.storage %R : memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>> -> memref<16xf32, #regcopy.mem<local>>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[ROUNDS:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK:         scf.for %[[F:.*]] = %[[C0]] to %[[ROUNDS]] step %[[C1]] {
// CHECK-NEXT:      %[[D:.*]] = arith.muli %[[F]], %{{.*}} : index
// CHECK-NEXT:      %[[OFF:.*]] = arith.addi %[[BASE]], %[[D]] : index
// CHECK-NEXT:      %[[V:.*]] = vector.load %[[SS]][%[[OFF]]] : memref<512xf32, #regcopy.mem<shared>>, vector<4xf32>
// CHECK-NEXT:      vector.store %[[V]], %[[RS]][%[[D]]] : memref<16xf32, #regcopy.mem<local>>, vector<4xf32>
// CHECK-NEXT:    }
// CHECK-NOT:     regcopy.copy
// CHECK:         func.return
// REMARK: {{^.*}}/lower-reg-copy.mlir:{{[0-9]+}}:3: remark: vec 4 × f32 (128 bits), 4 rounds, 16 registers/thread [copy %S -> %R in @s2r_f32_k16]
// -----

func.func @s2r_f16_k8() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<32x8xf16, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xf16, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S[0, 0] [32, 8] -> %R[0, 0] [32, 8] : memref<32x8xf16, #regcopy.mem<shared>> -> memref<32x8xf16, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}

// CHECK-LABEL: func.func @s2r_f16_k8
// CHECK:         %[[LANE:.*]] = "gpu.lane_id"() : () -> index
// CHECK-NEXT:    %[[K:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[BASE:.*]] = arith.muli %[[LANE]], %[[K]] : index
// CHECK-NEXT:    %[[SS:.*]] = regcopy.storage %S : memref<32x8xf16, #regcopy.mem<shared>> -> memref<256xf16, #regcopy.mem<shared>>
// CHECK-NEXT:    %[[RS:.*]] = regcopy.storage %R : memref<32x8xf16, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<8xf16, #regcopy.mem<local>>
// CHECK-NOT:     scf.for
// CHECK:         %[[V:.*]] = vector.load %[[SS]][%[[BASE]]] : memref<256xf16, #regcopy.mem<shared>>, vector<8xf16>
// CHECK-NEXT:    vector.store %[[V]], %[[RS]][%{{.*}}] : memref<8xf16, #regcopy.mem<local>>, vector<8xf16>
// CHECK-NOT:     regcopy.copy
// CHECK:         func.return
// REMARK: {{^.*}}/lower-reg-copy.mlir:{{[0-9]+}}:3: remark: vec 8 × f16 (128 bits), 1 round, 4 registers/thread (8 × f16) [copy %S -> %R in @s2r_f16_k8]
// -----

func.func @s2r_f16_k16() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<32x16xf16, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x16xf16, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S[0, 0] [32, 16] -> %R[0, 0] [32, 16] : memref<32x16xf16, #regcopy.mem<shared>> -> memref<32x16xf16, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}

// CHECK-LABEL: func.func @s2r_f16_k16
// CHECK:         %[[LANE:.*]] = "gpu.lane_id"() : () -> index
// CHECK-NEXT:    %[[K:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[BASE:.*]] = arith.muli %[[LANE]], %[[K]] : index
// CHECK-NEXT:    %[[SS:.*]] = regcopy.storage %S : memref<32x16xf16, #regcopy.mem<shared>> -> memref<512xf16, #regcopy.mem<shared>>
// CHECK-NEXT:    %[[RS:.*]] = regcopy.storage %R : memref<32x16xf16, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>> -> memref<16xf16, #regcopy.mem<local>>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[ROUNDS:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK:         scf.for %[[F:.*]] = %[[C0]] to %[[ROUNDS]] step %[[C1]] {
// CHECK-NEXT:      %[[D:.*]] = arith.muli %[[F]], %{{.*}} : index
// CHECK-NEXT:      %[[OFF:.*]] = arith.addi %[[BASE]], %[[D]] : index
// CHECK-NEXT:      %[[V:.*]] = vector.load %[[SS]][%[[OFF]]] : memref<512xf16, #regcopy.mem<shared>>, vector<8xf16>
// CHECK-NEXT:      vector.store %[[V]], %[[RS]][%[[D]]] : memref<16xf16, #regcopy.mem<local>>, vector<8xf16>
// CHECK-NEXT:    }
// CHECK-NOT:     regcopy.copy
// CHECK:         func.return
// REMARK: {{^.*}}/lower-reg-copy.mlir:{{[0-9]+}}:3: remark: vec 8 × f16 (128 bits), 2 rounds, 8 registers/thread (16 × f16) [copy %S -> %R in @s2r_f16_k16]
