// A mutation-fuzzer input (tools/fuzz_mutants.py) that raised a Python exception; now one
// diagnostic.
// RUN: not regcopy-opt %s --lower-reg-copy -t cuda 2>&1 | filecheck %s

// A huge swizzle shift (a MemoryError computing the layout's span).
func.func @huge_swizzle() {
  %S = memref.alloca() : memref<64x64xf16, #regcopy.layout<(64,64):(64,1), swizzle<3,3,18446744073709551616>>, #regcopy.mem<shared>>
  func.return
}
// CHECK: swizzle<3,3,18446744073709551616> needs M, B, S >= 0, S >= B and M + B + S <= 32
