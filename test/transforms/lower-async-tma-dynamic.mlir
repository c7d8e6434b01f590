// transfer=tma on a global buffer with runtime extents: the tensor map takes the argument's
// shape at launch (the remark prints ?), and the global row stride must be provably a
// multiple of 16 bytes: rows promised a multiple of 8 f16 are; rows promised 4 are not, so
// that kernel is lowered with cp.async (versioned on the row length, zero-filled at the edge).
// RUN: regcopy-opt %s -p 'lower-reg-copy{transfer=tma remarks}' 2>&1 >/dev/null | filecheck %s

func.func @promised(%X: memref<?x?xf16, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>}, %i: index {regcopy.divisibility = 32}) attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %S = memref.alloca() : memref<32x64xf16, #regcopy.mem<shared>>
  %t = regcopy.copy_async cta %X[%i, 0] [32, 64] -> %S : memref<?x?xf16, #regcopy.mem<global>> -> memref<32x64xf16, #regcopy.mem<shared>>
  %g = regcopy.async_group %t
  regcopy.async_wait %g {pending = 0 : i64}
  func.return
}
// CHECK: lower-async-tma-dynamic.mlir:[[# @LINE - 5]]:3: remark: lowered: TMA box 32x64 of ?x? (4096 bytes, swizzle none, shared aligned to 128), mbarrier ring of 1 [copy_async]

func.func @short_rows(%X: memref<?x?xf16, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 4>}, %i: index {regcopy.divisibility = 32}) attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %S = memref.alloca() : memref<32x64xf16, #regcopy.mem<shared>>
  %t = regcopy.copy_async cta %X[%i, 0] [32, 64] -> %S : memref<?x?xf16, #regcopy.mem<global>> -> memref<32x64xf16, #regcopy.mem<shared>>
  %g = regcopy.async_group %t
  regcopy.async_wait %g {pending = 0 : i64}
  func.return
}
// CHECK: lower-async-tma-dynamic.mlir:[[# @LINE - 5]]:3: remark: transfer=tma: global stride not a multiple of 16 bytes: dim 0 steps a runtime extent product only provably a multiple of 8 bytes (promise regcopy.divisibility on the dynamic dims) [copy_async]
// CHECK:   lowered with cp.async instead
// CHECK: lower-async-tma-dynamic.mlir:[[# @LINE - 7]]:3: remark: cp.async.cg 16 bytes (8 × f16), 2 chunks/thread [copy_async %X -> %S]
// CHECK:   versioned on %X extent 1 % 8 == 0: 16 bytes else cp.async.ca 8 bytes (4 × f16), 4 chunks/thread (extent divisors [1, 4] prove 4 × f16)
