// An empty async_group prints as a bare name; the line after it may begin with `%` (a result
// definition), and the printed IR must parse again: print, re-parse, print.
//
// RUN: regcopy-opt %s | regcopy-opt | filecheck %s
// RUN: regcopy-opt %s --lower-reg-copy | regcopy-opt | filecheck %s --check-prefix=LOWERED

func.func @ring(%G: memref<64x64xf16, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<32x64xf16, #regcopy.mem<shared>>
  %empty = regcopy.async_group
  %t = regcopy.copy_async warp %G[0, 0] [32, 64] -> %S : memref<64x64xf16, #regcopy.mem<global>> -> memref<32x64xf16, #regcopy.mem<shared>>
  %g = regcopy.async_group %t
  %none = regcopy.async_group {note}
  %braces = regcopy.async_group {}
  %again = regcopy.async_group
  regcopy.async_wait %g {pending = 0 : i64}
  func.return
}
// CHECK:      %empty = regcopy.async_group
// CHECK-NEXT: %t = regcopy.copy_async warp %G[0, 0] [32, 64] -> %S
// CHECK-NEXT: %g = regcopy.async_group %t
// CHECK-NEXT: %none = regcopy.async_group {note}
// CHECK-NEXT: %braces = regcopy.async_group{{$}}
// CHECK-NEXT: %again = regcopy.async_group
// CHECK-NEXT: regcopy.async_wait %g {pending = 0 : i64}

// LOWERED: func.func @ring
// LOWERED-NOT: regcopy.copy_async
// LOWERED: func.return
