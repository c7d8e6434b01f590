// Copies on buffers with runtime extents: one predicate per vector, full width to the edge,
// ragged tails split to the extent's divisibility, versioning on a runtime stride test,
// {in_bounds} and {padding}. Misaligned stores are realigned here as the option asks
// (the cost model's choice, and the predicated form: lower-reg-copy-misaligned.mlir).
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{misaligned-stores=realigned}' | filecheck %s
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{remarks=true misaligned-stores=realigned}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

// The row length is a multiple of 4: every row starts 16-byte aligned, so only 128-bit
// transfers, each under one predicate (row < extent 0, last column < extent 1). A lane's row
// is the same in every round, so its check is made once: a lane past extent 0 skips the
// rounds (its registers get the padding), and the rounds check only the column.
func.func @div4(%A: memref<?x?xf32, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 4>}, %row: index) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %A[%row, 0] [32, 8] -> %R : memref<?x?xf32, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK-LABEL: func.func @div4
// CHECK:         %[[LANE:.*]] = "gpu.lane_id"() : () -> index
// CHECK:         %[[E1:.*]] = memref.dim %A, %{{.*}} : memref<?x?xf32, #regcopy.mem<global>>
// CHECK-NEXT:    %[[ROW:.*]] = arith.addi %row, %[[LANE]] : index
// CHECK-NEXT:    %[[START:.*]] = arith.muli %[[ROW]], %[[E1]] : index
// CHECK-NEXT:    %[[G:.*]] = regcopy.storage %A : memref<?x?xf32, #regcopy.mem<global>> -> memref<?xf32, #regcopy.mem<global>>
// CHECK:         %[[E0:.*]] = memref.dim %A, %{{.*}} : memref<?x?xf32, #regcopy.mem<global>>
// CHECK-NEXT:    %[[ROWOK:reach]] = arith.cmpi ult, %[[ROW]], %[[E0]] : index
// CHECK:         %[[PAD:.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK:         scf.if %[[ROWOK]] {
// CHECK-NEXT:      scf.for %[[F:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[COL:.*]] = arith.muli %[[F]], %{{.*}} : index
// CHECK-NEXT:        %[[OFF:.*]] = arith.addi %[[START]], %[[COL]] : index
// CHECK-NEXT:        %[[LAST:.*]] = arith.addi %[[COL]], %{{.*}} : index
// CHECK-NEXT:        %[[COLOK:.*]] = arith.cmpi ult, %[[LAST]], %[[E1]] : index
// CHECK-NEXT:        %[[V:.*]] = scf.if %[[COLOK]] -> (vector<4xf32>) {
// CHECK-NEXT:          %[[X:.*]] = vector.load %[[G]][%[[OFF]]] : memref<?xf32, #regcopy.mem<global>>, vector<4xf32>
// CHECK-NEXT:          scf.yield %[[X]] : vector<4xf32>
// CHECK-NEXT:        } else {
// CHECK-NEXT:          scf.yield %[[PAD]] : vector<4xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:        vector.store %[[V]], %{{.*}}[%[[COL]]] : memref<8xf32, #regcopy.mem<local>>, vector<4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[COL2:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK-NEXT:        vector.store %[[PAD]], %{{.*}}[%[[COL2]]] : memref<8xf32, #regcopy.mem<local>>, vector<4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NOT:     vector<2xf32>
// CHECK-NOT:     vector<1xf32>
// CHECK:         func.return
// REMARK: remark: vec 4 × f32 (128 bits), 2 rounds, 8 registers/thread [copy %A -> %R in @div4]
// REMARK:      {{^  }}bounds-checked: one predicate per vector (extents 0, 1 of %A)
// REMARK-NEXT: {{^  }}a thread whose first element is outside extent 0 of %A skips its rounds (no round moves it along dim 0)
// REMARK-NOT:  versioned

// -----

// The row length is a multiple of 2 only: a row starts 16-byte aligned when it is a multiple
// of 4 at run time. Versioned: the 128-bit path under that test, else the proven 64-bit one.
func.func @div2(%A: memref<?x?xf32, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 2>}, %row: index) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %A[%row, 0] [32, 8] -> %R : memref<?x?xf32, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK-LABEL: func.func @div2
// CHECK:         %[[E1:.*]] = memref.dim %A, %{{.*}} : memref<?x?xf32, #regcopy.mem<global>>
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK:         %[[REM:.*]] = arith.remsi %[[E1]], %[[C4]] : index
// CHECK-NEXT:    %[[OK:.*]] = arith.cmpi eq, %[[REM]], %{{.*}} : index
// CHECK:         scf.if %[[OK]] {
// CHECK:           scf.for
// CHECK:             vector.load {{.*}} vector<4xf32>
// CHECK:         } else {
// CHECK:           scf.for
// CHECK:             vector.load {{.*}} vector<2xf32>
// CHECK:             vector.store {{.*}} vector<2xf32>
// CHECK:         func.return
// REMARK: remark: vec 4 × f32 (128 bits), 2 rounds, 8 registers/thread [copy %A -> %R in @div2]
// REMARK:      {{^  }}bounds-checked: one predicate per vector (extents 0, 1 of %A)
// REMARK-NEXT: {{^  }}a thread whose first element is outside extent 0 of %A skips its rounds (no round moves it along dim 0)
// REMARK-NEXT: {{^  }}versioned on %A extent 1 % 4 == 0: vec 4 × f32 else vec 2 × f32, each under its own predicate, 4 rounds (extent divisors [1, 2] prove 2)
// REMARK-NEXT: {{^  }}misaligned loads predicated by the cost model: 32 rows a warp, 4 × f32 a thread a row, proven 2; per warp and vector realigned {{.*}}, predicated {{.*}} wavefronts)

// -----

// The same tile stored: the fallback of the versioned store is the 128-bit plan realigned at
// run time. k = offset % 4 (offset & 3: 0 or 2 here) picks, by one branch per misalignment,
// the aligned pieces the vector is stored as: one vector<4> at k = 0, else two vector<2>;
// the registers reach each piece through the staging buffer %tmp. A vector that straddles the
// row's end is not in that branch's else: its piece follows, under the row's checks, its own
// and "the vector's predicate failed" (no divergent else for a warp with one such lane).
func.func @div2_store(%A: memref<?x?xf32, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 2>}, %row: index) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %A[%row, 0] [32, 8] : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xf32, #regcopy.mem<global>>
  func.return
}
// CHECK-LABEL: func.func @div2_store
// CHECK:         %[[G:.*]] = regcopy.storage %A
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK:         %[[C3:.*]] = arith.constant 3 : index
// CHECK:         %[[C2:.*]] = arith.constant 2 : index
// CHECK:         %[[ALIGNED:.*]] = arith.cmpi eq, %{{.*}}, %[[C0]] : index
// CHECK:         %[[TMP:.*]] = memref.alloca() : memref<4xf32, #regcopy.mem<local>>
// CHECK:         scf.if %[[ALIGNED]] {
// CHECK:         } else {
// CHECK:           scf.for
// CHECK:             %[[E:.*]] = arith.addi
// CHECK:             %[[P:.*]] = arith.cmpi ult
// CHECK-NEXT:        %[[K:.*]] = arith.andi %[[E]], %[[C3]] : index
// CHECK-NEXT:        scf.if %[[P]] {
// CHECK-NEXT:          %[[K0:.*]] = arith.cmpi eq, %[[K]], %[[C0]] : index
// CHECK-NEXT:          scf.if %[[K0]] {
// CHECK-COUNT-4:         vector.store %{{.*}}, %[[TMP]]
// CHECK-NEXT:            %[[V4:.*]] = vector.load %[[TMP]][%[[C0]]] : memref<4xf32, #regcopy.mem<local>>, vector<4xf32>
// CHECK-NEXT:            vector.store %[[V4]], %[[G]][%[[E]]] : memref<?xf32, #regcopy.mem<global>>, vector<4xf32>
// CHECK-NEXT:          } else {
// CHECK-NOT:             scf.if
// CHECK:                 %[[LO:.*]] = vector.load %[[TMP]][%[[C0]]] : memref<4xf32, #regcopy.mem<local>>, vector<2xf32>
// CHECK-NEXT:            vector.store %[[LO]], %[[G]][%[[E]]] : memref<?xf32, #regcopy.mem<global>>, vector<2xf32>
// CHECK-NOT:             scf.if
// CHECK:                 %[[HI:.*]] = vector.load %[[TMP]][%[[C0]]] : memref<4xf32, #regcopy.mem<local>>, vector<2xf32>
// CHECK-NEXT:            vector.store %[[HI]], %[[G]][%{{.*}}] : memref<?xf32, #regcopy.mem<global>>, vector<2xf32>
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:        %[[T:.*]] = arith.constant true
// CHECK-NEXT:        %[[OUT:.*]] = arith.xori %[[P]], %[[T]] : i1
// CHECK:             %[[PP:.*]] = arith.andi %{{.*}}, %[[OUT]] : i1
// CHECK:             scf.if %[[PP]] {
// CHECK-NEXT:          vector.store %{{.*}}, %[[G]][%[[E]]] : memref<?xf32, #regcopy.mem<global>>, vector<2xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK:         func.return
// REMARK: remark: vec 4 × f32 (128 bits), 2 rounds, 8 registers/thread [copy %R -> %A in @div2_store]
// REMARK:      {{^  }}bounds-checked: one predicate per vector (extents 0, 1 of %A)
// REMARK-NEXT: {{^  }}a thread whose first element is outside extent 0 of %A skips its rounds (no round moves it along dim 0)
// REMARK-NEXT: {{^  }}ragged tail split to vec 2 (extent 1 divisible by 2)
// REMARK-NEXT: {{^  }}versioned on %A extent 1 % 4 == 0: vec 4 × f32, else vec 4 × f32 realigned at run time (extent divisors [1, 2] prove 2: a vector off a 16-byte boundary is stored as its aligned pieces, vec 2 to vec 4, one branch per misalignment)
// REMARK-NEXT: {{^  }}misaligned stores realigned as asked (misaligned-stores): 32 rows a warp, 4 × f32 a thread a row, proven 2; per warp and vector realigned {{.*}} clocks ({{.*}}), predicated {{.*}} clocks ({{.*}})

// -----

// A 1-D buffer whose length is a multiple of 2: interior vectors stay 128-bit; a vector that
// straddles the end is stored as 64-bit pieces, each under its own predicate (the last piece
// ends where the vector does: outside whenever the vector is, so it is not emitted). The
// pieces follow the vector's store, not in an else: a piece's predicate is its own check and
// the vector's last element outside (made once, the column being the same in every round).
func.func @tail(%A: memref<?xf32, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 2>}) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<128xf32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %A[0] [128] : memref<128xf32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>> -> memref<?xf32, #regcopy.mem<global>>
  func.return
}
// CHECK-LABEL: func.func @tail
// CHECK:         %[[T:.*]] = arith.muli %lane, %{{.*}} : index
// CHECK:         %[[E0:.*]] = memref.dim %A, %{{.*}} : memref<?xf32, #regcopy.mem<global>>
// CHECK:         %[[LAST:.*]] = arith.addi %[[T]], %{{.*}} : index
// CHECK-NEXT:    %[[P:.*]] = arith.cmpi ult, %[[LAST]], %[[E0]] : index
// CHECK:         %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:    %[[OUT:.*]] = arith.xori %[[P]], %[[TRUE]] : i1
// CHECK:         %[[L0:.*]] = arith.addi %[[T]], %{{.*}} : index
// CHECK-NEXT:    %[[P0:.*]] = arith.cmpi ult, %[[L0]], %[[E0]] : index
// CHECK-NEXT:    %[[Q0:.*]] = arith.andi %[[P0]], %[[OUT]] : i1
// CHECK-NEXT:    scf.if %[[P]] {
// CHECK-NEXT:      %[[V:.*]] = vector.load {{.*}} vector<4xf32>
// CHECK-NEXT:      vector.store %[[V]], {{.*}}[%[[T]]] : memref<?xf32, #regcopy.mem<global>>, vector<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[V0:.*]] = vector.load {{.*}} vector<2xf32>
// CHECK-NEXT:    scf.if %[[Q0]] {
// CHECK-NEXT:      vector.store %[[V0]], {{.*}}[%[[T]]] : memref<?xf32, #regcopy.mem<global>>, vector<2xf32>
// CHECK-NEXT:    }
// REMARK: remark: vec 4 × f32 (128 bits), 1 round, 4 registers/thread [copy %R -> %A in @tail]
// REMARK:      {{^  }}bounds-checked: one predicate per vector (extent 0 of %A)
// REMARK-NEXT: {{^  }}ragged tail split to vec 2 (extent 0 divisible by 2)

// -----

// The padding value fills the registers of elements outside the extents.
func.func @padding(%A: memref<?x?xi32, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 4>}) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xi32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %A[0, 0] [32, 8] -> %R {padding = -1 : i32} : memref<?x?xi32, #regcopy.mem<global>> -> memref<32x8xi32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK-LABEL: func.func @padding
// CHECK:         %[[PAD:.*]] = arith.constant dense<-1> : vector<4xi32>
// CHECK:           scf.yield %[[PAD]] : vector<4xi32>

// -----

// {in_bounds}: the region is promised inside, so no checks, only the runtime strides.
func.func @promised(%A: memref<?x?xf32, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 4>}) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %A[0, 8] [32, 8] {in_bounds} : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xf32, #regcopy.mem<global>>
  func.return
}
// CHECK-LABEL: func.func @promised
// CHECK-NOT:     arith.cmpi
// CHECK-NOT:     scf.if
// CHECK:         vector.store {{.*}} : memref<?xf32, #regcopy.mem<global>>, vector<4xf32>
// CHECK:         func.return
// REMARK: remark: vec 4 × f32 (128 bits), 2 rounds, 8 registers/thread [copy %R -> %A in @promised]
// REMARK-NEXT: {{ *}}regcopy.copy
// REMARK-NEXT: {{ *}}^
// REMARK-NEXT: {{^  }}in bounds: {in_bounds} (no checks)

// -----

// A 2-D tile ragged in both dims, rows spread over lanes and rounds: each round checks its
// row and its last column; the row check moves with the round. A lane's columns do not: a
// lane whose first column is past extent 1 skips the rounds.
func.func @both(%A: memref<?x?xf32, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 4>}, %i: index, %j: index) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<16x16xf32, #regcopy.layout<(2,8,4,4):(4,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  %j16 = regcopy.multiple_of %j, 16 : index
  regcopy.copy warp %A[%i, %j16] [16, 16] -> %R : memref<?x?xf32, #regcopy.mem<global>> -> memref<16x16xf32, #regcopy.layout<(2,8,4,4):(4,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK-LABEL: func.func @both
// CHECK:         %[[COL:.*]] = arith.addi %j16, %{{.*}} : index
// CHECK:         %[[FIRST:reach]] = arith.cmpi ult, %[[COL]], %e1 : index
// CHECK:         %[[E0:.*]] = memref.dim %A, %{{.*}} : memref<?x?xf32, #regcopy.mem<global>>
// CHECK:         %[[LAST:.*]] = arith.addi %[[COL]], %{{.*}} : index
// CHECK-NEXT:    %[[LASTOK:.*]] = arith.cmpi ult, %[[LAST]], %e1 : index
// CHECK:         scf.if %[[FIRST]] {
// CHECK-NEXT:      scf.for %[[F:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[ROWOK:.*]] = arith.cmpi ult, %{{.*}}, %[[E0]] : index
// CHECK-NEXT:      %[[P2:.*]] = arith.andi %[[ROWOK]], %[[LASTOK]] : i1
// CHECK-NEXT:      %{{.*}} = scf.if %[[P2]] -> (vector<4xf32>) {
// REMARK: remark: vec 4 × f32 (128 bits), 2 rounds, 8 registers/thread [copy %A -> %R in @both]
