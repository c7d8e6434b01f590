// -t cuda on ops it cannot print: one diagnostic naming the op (and why), exit 1.
// RUN: not regcopy-opt %s -t cuda 2>&1 | filecheck %s --check-prefix=VEC
// RUN: sed -n '/^\/\/ HALF$/,$p' %s | not regcopy-opt -t cuda 2>&1 | filecheck %s --check-prefix=HALF
// RUN: sed -n '/^\/\/ MATH$/,$p' %s | not regcopy-opt -t cuda 2>&1 | filecheck %s --check-prefix=MATH

func.func @vec12(%a: memref<8xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %c0 = arith.constant 0 : index
  %v = vector.load %a[%c0] : memref<8xf32, #regcopy.mem<global>>, vector<3xf32>
  vector.store %v, %a[%c0] : memref<8xf32, #regcopy.mem<global>>, vector<3xf32>
  func.return
}
// VEC: error: 'vector.load' op vector<3xf32> is 12 bytes; a vector transfer must be 16, 8, 4, 2 or 1 bytes

// HALF
func.func @half_add(%a: memref<8xf16, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<8xf16, #regcopy.mem<global>>
  %w = arith.addf %v, %v : f16
  memref.store %w, %a[%c0] : memref<8xf16, #regcopy.mem<global>>
  func.return
}
// HALF: error: 'arith.addf' op arithmetic on f16 is not supported

// MATH
func.func @sin(%a: memref<8xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<8xf32, #regcopy.mem<global>>
  %w = math.sin %v : f32
  memref.store %w, %a[%c0] : memref<8xf32, #regcopy.mem<global>>
  func.return
}
// MATH: error: 'math.sin' op is not supported by the CUDA target
