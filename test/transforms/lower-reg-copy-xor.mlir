// General XOR bases: xor<5:4, 6:8, 7:16> is swizzle<2,3,3> written out (offset bit 5+j flips
// bit 2+j), and lowers to the same one-field XOR; xor<5:3> flips bits 0 and 1 (two fields).
// RUN: regcopy-opt --lower-reg-copy %s | filecheck %s
// RUN: regcopy-opt -p 'lower-reg-copy{remarks}' %s -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK

// CHECK-LABEL: func.func @bases
// CHECK:         %[[T:.*]] = arith.muli %lane, %{{.*}} : index
// CHECK:         %[[C5:.*]] = arith.constant 5 : index
// CHECK-NEXT:    %[[SH:.*]] = arith.shrsi %[[T]], %[[C5]] : index
// CHECK-NEXT:    %[[C7:.*]] = arith.constant 7 : index
// CHECK-NEXT:    %[[AND:.*]] = arith.andi %[[SH]], %[[C7]] : index
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[SHL:.*]] = arith.shli %[[AND]], %[[C2]] : index
// CHECK-NEXT:    arith.xori %[[T]], %[[SHL]] : index
// REMARK: no bank conflict: 4 wavefronts per round, ideal 4
func.func @bases() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<32x32xf32, #regcopy.layout<(32,32):(32,1), xor<5:4, 6:8, 7:16>>, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x32xf32, #regcopy.layout<(32,32):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S -> %R : memref<32x32xf32, #regcopy.layout<(32,32):(32,1), xor<5:4, 6:8, 7:16>>, #regcopy.mem<shared>> -> memref<32x32xf32, #regcopy.layout<(32,32):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}

// CHECK-LABEL: func.func @two_fields
// CHECK-COUNT-3: arith.xori
// CHECK:       func.return
func.func @two_fields() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<32x32xf32, #regcopy.layout<(32,32):(32,1), xor<5:3>>, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x32xf32, #regcopy.layout<(32,32):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S -> %R : memref<32x32xf32, #regcopy.layout<(32,32):(32,1), xor<5:3>>, #regcopy.mem<shared>> -> memref<32x32xf32, #regcopy.layout<(32,32):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
