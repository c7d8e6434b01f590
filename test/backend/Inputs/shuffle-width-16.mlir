// gpu.shuffle with width 16: the CUDA target and the interpreter refuse it (cuda-compute.mlir).
func.func @k(%a: memref<8xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %c0 = arith.constant 0 : index
  %o = arith.constant 1 : i32
  %w = arith.constant 16 : i32
  %v = memref.load %a[%c0] : memref<8xf32, #regcopy.mem<global>>
  %r, %ok = gpu.shuffle xor %v, %o, %w : f32
  memref.store %r, %a[%c0] : memref<8xf32, #regcopy.mem<global>>
  func.return
}
