// A mutation-fuzzer input (tools/fuzz_mutants.py) that raised a Python exception; now one
// diagnostic.
// RUN: not regcopy-opt %s --lower-reg-copy -t cuda 2>&1 | filecheck %s

// A literal offset equal to the dynamic marker -2^63 (it must not be read as dynamic).
func.func @marker_offset() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S[-9223372036854775808, 0] [32, 8] -> %R : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: region offset -9223372036854775808 is out of range (a 64-bit integer above -2^63)
