// Static shared memory over 48 KiB is one diagnostic naming the buffers and suggesting
// shared.dyn, never a ptxas failure ("uses too much shared data"), for every CUDA target.
// RUN: not regcopy-opt %s -t cuda 2>&1 | filecheck %s
// RUN: not regcopy-opt %s -t sass 2>&1 | filecheck %s

// CHECK:      error: 'func.func' op kernel big_static: static shared memory is 65536 bytes (%A (32768 bytes), %B (32768 bytes)), over the 49152-byte (48 KiB) limit of static __shared__ arrays; allocate the large buffers in #regcopy.mem<shared.dyn> (dynamic shared memory, up to 227 KiB per block on sm_90)
// CHECK-NOT:  Traceback
// CHECK-NOT:  ptxas

func.func @big_static(%g: memref<128x64xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %A = memref.alloca() : memref<128x64xf32, #regcopy.mem<shared>>
  %B = memref.alloca() : memref<128x64xf32, #regcopy.mem<shared>>
  %c0 = arith.constant 0 : index
  %v = memref.load %g[%c0, %c0] : memref<128x64xf32, #regcopy.mem<global>>
  memref.store %v, %A[%c0, %c0] : memref<128x64xf32, #regcopy.mem<shared>>
  memref.store %v, %B[%c0, %c0] : memref<128x64xf32, #regcopy.mem<shared>>
  func.return
}
