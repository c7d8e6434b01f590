// The buffer rules hold for every regcopy memref, not only copy operands: the driver
// checks the buffers each op defines (allocas, function arguments).
// RUN: not regcopy-opt %s --split-input-file 2>&1 | filecheck %s

func.func @thread_axes_on_shared() {
  %A = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<shared>>
  func.return
}
// CHECK: error: 'memref.alloca' op does not verify: buffer {{.*}}: layout (32,8):(1@laneid,1) of a shared buffer has thread axes; only local buffers are distributed over threads
// CHECK-NEXT: {{^ *}}%A = memref.alloca()
