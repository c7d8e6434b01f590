// A mutation-fuzzer input (tools/fuzz_mutants.py) that raised a Python exception; now one
// diagnostic.
// RUN: not regcopy-opt %s --lower-reg-copy -t cuda 2>&1 | filecheck %s

// An empty buffer (a ZeroDivisionError in the layout grouping under -t cuda).
func.func @empty(%a: memref<0x16xf16, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  func.return
}
// CHECK: buffer sizes must be >= 1 (empty buffers are not supported), got shape [0, 16]
