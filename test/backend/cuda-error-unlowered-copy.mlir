// -t cuda/ptx/sass on a copy that was not lowered: one diagnostic naming the op, exit 1, no traceback.
// RUN: not regcopy-opt %s -t cuda 2>&1 | filecheck %s
// RUN: not regcopy-opt %s -t ptx 2>&1 | filecheck %s
// RUN: not regcopy-opt %s -t sass 2>&1 | filecheck %s

func.func @k() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S -> %R : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}

// CHECK:      error: 'regcopy.copy' op is not lowered; run lower-reg-copy before -t cuda
// CHECK-NEXT:   regcopy.copy warp %S -> %R
// CHECK-NOT:  Traceback
