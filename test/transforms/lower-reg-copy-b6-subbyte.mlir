// B6, one of the places where TIRx mis-lowers: sub-byte element types crash TIRx. Here they are rejected clearly:
// the verifier refuses a sub-byte buffer before any pass runs, with one diagnostic.
// RUN: not regcopy-opt %s --lower-reg-copy 2>&1 | filecheck %s
func.func @b6_sub_byte() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<32x8xi4, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xi4, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S -> %R : memref<32x8xi4, #regcopy.mem<shared>> -> memref<32x8xi4, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK-NOT: Traceback
// CHECK: error: 'memref.alloca' op does not verify: buffer memref<32x8xi4, #regcopy.mem<shared>>: element type i4 is not supported (sub-byte element types are not supported)
