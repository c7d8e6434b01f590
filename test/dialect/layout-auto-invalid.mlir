// #regcopy.layout<auto> asks the compiler for a shared buffer's physical layout; a local or
// global buffer's layout is the user's to write.
// RUN: not regcopy-opt %s 2>&1 | filecheck %s

func.func @auto_on_local() {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<auto>, #regcopy.mem<local>>
  func.return
}
// CHECK: error: 'memref.alloca' op does not verify: buffer {{.*}}: #regcopy.layout<auto> on a local buffer: the compiler chooses layouts of shared and shared.dyn buffers only; write this buffer's layout

