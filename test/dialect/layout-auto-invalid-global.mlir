// #regcopy.layout<auto> on a global buffer (a kernel argument) is an error too.
// RUN: not regcopy-opt %s 2>&1 | filecheck %s

func.func @auto_on_global(%G: memref<32x8xf32, #regcopy.layout<auto>, #regcopy.mem<global>>) {
  func.return
}
// CHECK: error: {{.*}}#regcopy.layout<auto> on a global buffer: the compiler chooses layouts of shared and shared.dyn buffers only
