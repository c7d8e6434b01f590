// Accesses by logical indices to a buffer with runtime extents: the row-major offset with the
// strides read by memref.dim (the outermost extent is not needed), once per block.
// RUN: regcopy-opt %s -p lower-layout-access | filecheck %s

func.func @frag(%F: memref<?x?x128xf16, #regcopy.mem<global>>, %v: vector<8xf16>, %a: index, %b: index, %i: index) {
  vector.store %v, %F[%a, %b, %i] : memref<?x?x128xf16, #regcopy.mem<global>>, vector<8xf16>
  %w = vector.load %F[%b, %a, %i] : memref<?x?x128xf16, #regcopy.mem<global>>, vector<8xf16>
  func.return
}
// CHECK-LABEL: func.func @frag
// CHECK-NEXT:    %[[FLAT:.*]] = regcopy.storage %F : memref<?x?x128xf16, #regcopy.mem<global>> -> memref<?xf16, #regcopy.mem<global>>
// CHECK-NEXT:    %[[C128:.*]] = arith.constant 128 : index
// CHECK-NEXT:    %[[B:.*]] = arith.muli %b, %[[C128]] : index
// CHECK-NEXT:    %[[IB:.*]] = arith.addi %i, %[[B]] : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[E1:.*]] = memref.dim %F, %[[C1]] : memref<?x?x128xf16, #regcopy.mem<global>>
// CHECK-NEXT:    %[[S0:.*]] = arith.muli %[[E1]], %[[C128]] : index
// CHECK-NEXT:    %[[A:.*]] = arith.muli %a, %[[S0]] : index
// CHECK-NEXT:    %[[OFF:.*]] = arith.addi %[[IB]], %[[A]] : index
// CHECK-NEXT:    vector.store %v, %[[FLAT]][%[[OFF]]] : memref<?xf16, #regcopy.mem<global>>, vector<8xf16>
// CHECK-NOT:     memref.dim
// CHECK:         %{{.*}} = vector.load %[[FLAT]][%{{.*}}] : memref<?xf16, #regcopy.mem<global>>, vector<8xf16>
