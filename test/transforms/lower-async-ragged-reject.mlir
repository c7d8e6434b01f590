// f16 rows of a runtime length with no divisibility promise: a row may start at any element,
// so no cp.async width is provable (a promise lifts it; a versioned copy needs a proven
// fallback, and cp.async has none below 4 bytes): refused with every width's reason.
// RUN: not regcopy-opt %s -p 'lower-reg-copy{strict}' 2>&1 | filecheck %s

func.func @unpromised(%X: memref<?x?xf16, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<8x16xf16, #regcopy.mem<shared>>
  %t = regcopy.copy_async warp %X[0, 0] [8, 16] -> %S : memref<?x?xf16, #regcopy.mem<global>> -> memref<8x16xf16, #regcopy.mem<shared>>
  %g = regcopy.async_group %t
  regcopy.async_wait %g {pending = 0 : i64}
  func.return
}
// CHECK: lower-async-ragged-reject.mlir:[[# @LINE - 5]]:3: error: 'regcopy.copy_async' op rejected by lower-reg-copy: no cp.async width fits (4, 8 or 16 bytes, contiguous and aligned on both sides): not 16 bytes: global side: chunk starts in %X are provably multiples of 1 element only, not of 8 (extent divisors [1, 1]: a regcopy.divisibility promise on the row length lifts this); not 8 bytes: {{.*}}; not 4 bytes: global side: chunk starts in %X are provably multiples of 1 element only, not of 2 {{.*}}
