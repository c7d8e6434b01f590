// Static + dynamic shared memory over sm_90's per-block opt-in limit (227 KiB = 232448 bytes)
// is one diagnostic naming every shared buffer: T (4 bytes) at byte 0, S at the next 128-byte
// boundary (128 + 229376 bytes of shared.dyn), U static (4096 bytes): 233600 bytes.
// RUN: not regcopy-opt %s -t cuda 2>&1 | filecheck %s
// RUN: not regcopy-opt %s -t ptx 2>&1 | filecheck %s

// CHECK:      error: 'func.func' op kernel too_big: shared memory is 233600 bytes (%T (4 bytes), %S (229376 bytes), %U (4096 bytes); shared.dyn buffers are 128-byte aligned), over the 232448-byte per-block limit of sm_90

func.func @too_big(%g: memref<8xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %T = memref.alloca() : memref<1xf32, #regcopy.mem<shared.dyn>>
  %S = memref.alloca() : memref<448x128xf32, #regcopy.mem<shared.dyn>>
  %U = memref.alloca() : memref<1024xf32, #regcopy.mem<shared>>
  %c0 = arith.constant 0 : index
  %v = memref.load %g[%c0] : memref<8xf32, #regcopy.mem<global>>
  memref.store %v, %S[%c0, %c0] : memref<448x128xf32, #regcopy.mem<shared.dyn>>
  memref.store %v, %T[%c0] : memref<1xf32, #regcopy.mem<shared.dyn>>
  memref.store %v, %U[%c0] : memref<1024xf32, #regcopy.mem<shared>>
  func.return
}
