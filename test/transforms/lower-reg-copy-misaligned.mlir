// Misaligned stores to a buffer with runtime extents: when only the row length decides
// whether rows start 16-byte aligned, the store is versioned, and its fallback stores the
// same vectors in the form the cost model picks (misaligned_cost): shuffled (each lane takes
// the previous lane's vector by warp shuffles and stores one aligned vector, one branch per
// k = offset & 3) where a warp's lanes run along one row, predicated
// (the proven width, 32-bit here, each piece under its own predicate) where a warp's lanes
// hold many rows of different k (the branch would diverge). The option misaligned-stores
// forces a form: realigned (one branch on k, aligned pieces through %tmp) or predicated.
// RUN: regcopy-opt %s --split-input-file --lower-reg-copy | filecheck %s
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{remarks=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{misaligned-stores=predicated}' | filecheck %s --check-prefix=FORCED
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{remarks misaligned-stores=predicated}' 2>&1 >/dev/null | filecheck %s --check-prefix=FORCED-REMARK
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{misaligned-stores=realigned}' | filecheck %s --check-prefix=REALIGNED

// A warp moves 4 rows of 128 columns, its lanes along one row: one k a warp, shuffled.
func.func @one_row(%A: memref<?x?xf32, #regcopy.mem<global>>, %row: index) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<4x128xf32, #regcopy.layout<(4,32,4):(4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %A[%row, 0] [4, 128] : memref<4x128xf32, #regcopy.layout<(4,32,4):(4,1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xf32, #regcopy.mem<global>>
  func.return
}
// CHECK-LABEL: func.func @one_row
// CHECK:         scf.if %{{.*}} {
// CHECK:           vector.store %{{.*}} vector<4xf32>
// CHECK:         } else {
// CHECK:           %[[PREV:.*]] = memref.alloca() : memref<4xf32, #regcopy.mem<local>>
// CHECK-NEXT:      %[[OUT:.*]] = memref.alloca() : memref<4xf32, #regcopy.mem<local>>
// CHECK:           %[[HEAD:.*]] = arith.cmpi eq
// CHECK:           scf.for
// CHECK:             %[[COL:.*]] = arith.cmpi ult, %{{.*}}, %e1 : index
// CHECK-NEXT:        %[[INSIDE:.*]] = arith.andi %{{.*}}, %[[COL]] : i1
// CHECK-NEXT:        scf.if %[[INSIDE]] {
// CHECK-COUNT-4:       gpu.shuffle idx
// CHECK:             %[[K:.*]] = arith.andi %{{.*}}, %{{.*}} : index
// CHECK:             arith.cmpi eq, %[[K]]
// CHECK:             vector.store %{{.*}}, %[[OUT]]
// CHECK:             arith.select %[[HEAD]]
// CHECK:             scf.if %{{.*}} {
// CHECK-NEXT:          %[[V:.*]] = vector.load %[[OUT]]{{.*}} vector<4xf32>
// CHECK-NEXT:          vector.store %[[V]], %{{.*}} : memref<?xf32, #regcopy.mem<global>>, vector<4xf32>
// CHECK-NEXT:        } else {
// CHECK-COUNT-4:       vector<1xf32>
// CHECK:         func.return
// REALIGNED-LABEL: func.func @one_row
// REALIGNED:         %[[TMP:.*]] = memref.alloca() : memref<4xf32, #regcopy.mem<local>>
// REALIGNED:         } else {
// REALIGNED:           scf.for
// REALIGNED:             %[[K:.*]] = arith.andi %{{.*}}, %{{.*}} : index
// REALIGNED:             arith.cmpi eq, %[[K]]
// REALIGNED:             vector.store %{{.*}}, %[[TMP]]
// REALIGNED-NOT:         gpu.shuffle
// REALIGNED:         func.return
// REMARK: remark: vec 4 × f32 (128 bits), 4 rounds, 16 registers/thread [copy %R -> %A in @one_row]
// REMARK:      {{^  }}versioned on %A extent 1 % 4 == 0: vec 4 × f32, else vec 4 × f32 shuffled at run time (extent divisors [1, 1] prove 1: each lane takes the previous lane's vector by 4 warp shuffles and stores one aligned vector, the first lane of each row's run the run's two partial ones as pieces, one branch per misalignment)
// REMARK-NEXT: {{^  }}misaligned stores shuffled by the cost model: 1 row a warp, 4 × f32 a thread a row, proven 1; per warp and vector realigned 28.5 clocks (21.2 issue slots, 41.0 sectors), predicated 46.9 clocks (8.0 issue slots, 67.5 sectors), shuffled 27.8 clocks (35.0 issue slots, 20.9 sectors), not staged (a warp-scope copy)
// FORCED-LABEL: func.func @one_row
// FORCED-NOT:    memref.alloca() : memref<4xf32, #regcopy.mem<local>>
// FORCED:        } else {
// FORCED:          scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// FORCED:            scf.if %{{.*}} {
// FORCED-NEXT:         vector.store %{{.*}} vector<1xf32>
// FORCED-NEXT:       }
// FORCED:        func.return
// FORCED-REMARK: {{^  }}versioned on %A extent 1 % 4 == 0: vec 4 × f32 else vec 1 × f32, each under its own predicate, 16 rounds (extent divisors [1, 1] prove 1)
// FORCED-REMARK-NEXT: {{^  }}misaligned stores predicated as asked (misaligned-stores): 1 row a warp

// -----

// The same copy asking for realigned stores itself ({misaligned_stores}, in place of the cost
// model's choice; a pass option that names a form would still force every store's).
func.func @one_row_asks(%A: memref<?x?xf32, #regcopy.mem<global>>, %row: index) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<4x128xf32, #regcopy.layout<(4,32,4):(4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %A[%row, 0] [4, 128] {misaligned_stores = "realigned"} : memref<4x128xf32, #regcopy.layout<(4,32,4):(4,1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xf32, #regcopy.mem<global>>
  func.return
}
// CHECK-LABEL: func.func @one_row_asks
// CHECK:         %[[TMP:.*]] = memref.alloca() : memref<4xf32, #regcopy.mem<local>>
// CHECK-NOT:     gpu.shuffle
// CHECK:         func.return
// REMARK: remark: vec 4 × f32 (128 bits), 4 rounds, 16 registers/thread [copy %R -> %A in @one_row_asks]
// REMARK:      {{^  }}misaligned stores realigned as asked (the copy's misaligned_stores): 1 row a warp
// FORCED-LABEL: func.func @one_row_asks
// FORCED-NOT:    memref.alloca() : memref<4xf32, #regcopy.mem<local>>
// FORCED:        vector.store %{{.*}} vector<1xf32>
// FORCED-REMARK: {{^  }}misaligned stores predicated as asked (misaligned-stores): 1 row a warp

// -----

// Each lane owns a row of 4: a warp's 32 rows start at different k, so a realigned store's
// branch would run every class one after the other; the cost model predicates instead:
// 32-bit stores, each under its own predicate, and no staging buffer.
func.func @many_rows(%A: memref<?x?xf32, #regcopy.mem<global>>, %row: index) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x4xf32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %A[%row, 0] [32, 4] : memref<32x4xf32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xf32, #regcopy.mem<global>>
  func.return
}
// CHECK-LABEL: func.func @many_rows
// CHECK-NOT:     memref.alloca() : memref<4xf32, #regcopy.mem<local>>
// CHECK:         scf.if %{{.*}} {
// CHECK:           vector.store %{{.*}} vector<4xf32>
// CHECK:         } else {
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK:             scf.if %{{.*}} {
// CHECK-NEXT:          vector.store %{{.*}} vector<1xf32>
// CHECK-NEXT:        }
// CHECK-NOT:     arith.andi
// CHECK:         func.return
// REMARK: remark: vec 4 × f32 (128 bits), 1 round, 4 registers/thread [copy %R -> %A in @many_rows]
// REMARK:      {{^  }}versioned on %A extent 1 % 4 == 0: vec 4 × f32 else vec 1 × f32, each under its own predicate, 4 rounds (extent divisors [1, 1] prove 1)
// REMARK-NEXT: {{^  }}misaligned stores predicated by the cost model: 32 rows a warp, 4 × f32 a thread a row, proven 1; per warp and vector realigned 85.6 clocks (23.8 issue slots, 123.2 sectors), predicated 46.9 clocks (8.0 issue slots, 67.5 sectors)

// -----

// Narrowed by a runtime offset, not by a stride: the column offset is provably even only, so
// no run-time test of the row length can make 128-bit vectors aligned; the remark says why,
// and what would lift it, as for a static buffer.
func.func @narrowed(%A: memref<?x?xf32, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 4>}, %c: index, %r: index) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %c2 = arith.constant 2 : index
  %col = arith.muli %c, %c2 : index
  regcopy.copy warp %R -> %A[%r, %col] [32, 8] : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xf32, #regcopy.mem<global>>
  regcopy.copy warp %A[%r, %c] [32, 8] -> %R : memref<?x?xf32, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK-LABEL: func.func @narrowed
// CHECK:         vector.store %{{.*}} vector<2xf32>
// CHECK:         vector.load %{{.*}} vector<1xf32>
// REMARK: remark: vec 2 × f32 (64 bits), 4 rounds, 8 registers/thread [copy %R -> %A in @narrowed]
// REMARK:      {{^  }}narrowed: 4-wide refused: column offset %col (provably a multiple of 2) is not a multiple of 4; for 128-bit transfers, wrap it: %col_4 = regcopy.multiple_of %col, 4 : index
// REMARK-NEXT: {{^  }}bounds-checked: one predicate per vector (extents 0, 1 of %A)
// REMARK: remark: vec 1 × f32 (32 bits), 8 rounds, 8 registers/thread [copy %A -> %R in @narrowed]
// REMARK:      {{^  }}narrowed: 4-wide refused: column offset %c (provably a multiple of 1) is not a multiple of 4; for 128-bit transfers, add {regcopy.divisibility = 4 : i64} to kernel argument %c
