// A replicated layout is for register tiles: a shared (or global) buffer may not carry one.
// RUN: not regcopy-opt %s --split-input-file 2>&1 | filecheck %s

func.func @f() {
  %S = memref.alloca() : memref<16x8xf32, #regcopy.layout<(16,8):(8,1), replicate<2:16@laneid>>, #regcopy.mem<shared>>
  func.return
}
// CHECK: error: 'memref.alloca' op does not verify: buffer {{.*}}: layout (16,8):(8,1), replicate<2:16@laneid> of a shared buffer has replicas; only local buffers (register tiles) may be replicated

