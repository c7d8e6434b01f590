// A generic copy missing a property: the verifier's message reaches the user (the op cannot
// be printed in custom form, so the diagnostic shows it generically).
// RUN: not regcopy-opt %s 2>&1 | filecheck %s
func.func @f(%A: memref<32x8xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  "regcopy.copy"(%A, %R) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (memref<32x8xf32, #regcopy.mem<shared>>, memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) -> ()
  func.return
}
// CHECK-NOT: Traceback
// CHECK: error: 'regcopy.copy' op does not verify: {{.*}}scope
// CHECK-NEXT: {{^  }}"regcopy.copy"(%A, %R)
// CHECK-NEXT: {{^  \^$}}
