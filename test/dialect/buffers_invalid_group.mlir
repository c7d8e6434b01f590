// RUN: not regcopy-opt %s 2>&1 | filecheck %s
func.func @ungroupable() {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: error: 'memref.alloca' op does not verify: buffer {{.*}}: layout (32,4):(1@laneid,1) does not fit buffer shape [32, 8]: layout (32,4):(1@laneid,1) has 128 elements, shape [32, 8] has 256
