// Dynamic region offsets (docs/pass.md): a block-indexed row offset keeps 128 bits; an
// offset of unknown divisibility narrows the width, and the remark names it.
// RUN: regcopy-opt %s --split-input-file --lower-reg-copy | filecheck %s
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{remarks=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

func.func @block_row(%B: memref<64x1024xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [8]>} {
  %R = memref.alloca() : memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>>
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c8 = arith.constant 8 : index
  %row = arith.muli %bx, %c8 : index
  regcopy.copy cta %B[%row, 0] [8, 1024] -> %R : memref<64x1024xf32, #regcopy.mem<global>> -> memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK-LABEL: func.func @block_row
// CHECK:         %[[TID:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[T:.*]] = arith.muli %[[TID]], %[[C4]] : index
// CHECK-NEXT:    %[[C1024:.*]] = arith.constant 1024 : index
// CHECK-NEXT:    %[[ROWOFF:.*]] = arith.muli %row, %[[C1024]] : index
// CHECK-NEXT:    %[[BASE:.*]] = arith.addi %[[ROWOFF]], %[[T]] : index
// CHECK:         scf.for %[[F:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[DS:.*]] = arith.muli %[[F]], %[[C1024]] : index
// CHECK-NEXT:      %[[DR:.*]] = arith.muli %[[F]], %[[C4]] : index
// CHECK-NEXT:      %[[OFF:.*]] = arith.addi %[[BASE]], %[[DS]] : index
// CHECK-NEXT:      %[[V:.*]] = vector.load %{{.*}}[%[[OFF]]] : memref<65536xf32, #regcopy.mem<global>>, vector<4xf32>
// CHECK-NEXT:      vector.store %[[V]], %{{.*}}[%[[DR]]] : memref<32xf32, #regcopy.mem<local>>, vector<4xf32>
// REMARK: remark: vec 4 × f32 (128 bits), 8 rounds, 32 registers/thread

// -----

// A column offset of unknown divisibility: the width narrows to 1 element.
func.func @unknown_col(%B: memref<64x1024xf32, #regcopy.mem<global>>, %k: index) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %B[0, %k] [32, 8] -> %R : memref<64x1024xf32, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK-LABEL: func.func @unknown_col
// CHECK:         %[[LANE:.*]] = "gpu.lane_id"() : () -> index
// CHECK-NEXT:    %[[C1024:.*]] = arith.constant 1024 : index
// CHECK-NEXT:    %[[T:.*]] = arith.muli %[[LANE]], %[[C1024]] : index
// CHECK-NEXT:    %[[BASE:.*]] = arith.addi %k, %[[T]] : index
// CHECK:         vector.load {{.*}} vector<1xf32>
// REMARK: remark: vec 1 × f32 (32 bits), 8 rounds, 8 registers/thread
// REMARK:      {{^  }}narrowed: 4-wide refused: S offset %k (provably a multiple of 1) times stride 1 is not a multiple of 4

// -----

// A column offset that is a multiple of 2 (k * 2 + 4): 64-bit transfers.
func.func @even_col(%B: memref<64x1024xf32, #regcopy.mem<global>>, %k: index) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %k2 = arith.muli %k, %c2 : index
  %col = arith.addi %k2, %c4 : index
  regcopy.copy warp %B[0, %col] [32, 8] -> %R : memref<64x1024xf32, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK-LABEL: func.func @even_col
// CHECK:         vector.load {{.*}} vector<2xf32>
// REMARK: remark: vec 2 × f32 (64 bits), 4 rounds, 8 registers/thread
// REMARK:      {{^  }}narrowed: 4-wide refused: S offset %col (provably a multiple of 2) times stride 1 is not a multiple of 4

// -----

// A shifted offset (k << 2) is a multiple of 4: 128 bits.
func.func @shifted_col(%B: memref<64x1024xf32, #regcopy.mem<global>>, %k: index) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %c2 = arith.constant 2 : index
  %col = arith.shli %k, %c2 : index
  regcopy.copy warp %B[0, %col] [32, 8] -> %R : memref<64x1024xf32, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK-LABEL: func.func @shifted_col
// CHECK:         vector.load {{.*}} vector<4xf32>
// REMARK: remark: vec 4 × f32 (128 bits), 2 rounds, 8 registers/thread
