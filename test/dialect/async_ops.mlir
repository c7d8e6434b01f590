// Round trip of the asynchronous copy ops (copy_async, async_group, async_wait) and of their
// lowered per-thread form (cp_async, cp_async_commit, cp_async_wait), custom and generic.
//
// RUN: regcopy-opt %s --split-input-file | regcopy-opt --split-input-file | filecheck %s
// RUN: REGCOPY_ROUNDTRIP
// RUN: REGCOPY_GENERIC_ROUNDTRIP
// RUN: xdsl-opt %s --split-input-file | xdsl-opt --split-input-file | filecheck %s

func.func @pipeline(%G: memref<128x64xf16, #regcopy.mem<global>>,
                    %S: memref<2x32x64xf16, #regcopy.mem<shared.dyn>>, %i: index) {
  %t0 = regcopy.copy_async cta %G[%i, 0] [32, 64] -> %S[0, 0, 0] [1, 32, 64] : memref<128x64xf16, #regcopy.mem<global>> -> memref<2x32x64xf16, #regcopy.mem<shared.dyn>>
  %t1 = regcopy.copy_async warp %G[0, 0] [32, 64] -> %S[1, 0, 0] [1, 32, 64] {note = "kept"} : memref<128x64xf16, #regcopy.mem<global>> -> memref<2x32x64xf16, #regcopy.mem<shared.dyn>>
  %g0 = regcopy.async_group %t0, %t1
  %g1 = regcopy.async_group
  regcopy.async_wait %g0 {pending = 1 : i64}
  regcopy.async_wait %g1 {pending = 0 : i64}
  func.return
}

// CHECK-LABEL: func.func @pipeline(
// CHECK:       %t0 = regcopy.copy_async cta %G[%i, 0] [32, 64] -> %S[0, 0, 0] [1, 32, 64] : memref<128x64xf16, #regcopy.mem<global>> -> memref<2x32x64xf16, #regcopy.mem<shared.dyn>>
// CHECK-NEXT:  %t1 = regcopy.copy_async warp %G[0, 0] [32, 64] -> %S[1, 0, 0] [1, 32, 64] {note = "kept"} : memref<128x64xf16, #regcopy.mem<global>> -> memref<2x32x64xf16, #regcopy.mem<shared.dyn>>
// CHECK-NEXT:  %g0 = regcopy.async_group %t0, %t1
// CHECK-NEXT:  %g1 = regcopy.async_group
// CHECK-NEXT:  regcopy.async_wait %g0 {pending = 1 : i64}
// CHECK-NEXT:  regcopy.async_wait %g1 {pending = 0 : i64}

// -----

func.func @lowered(%G: memref<8192xf16, #regcopy.mem<global>>, %S: memref<4096xf16, #regcopy.mem<shared>>,
                   %i: index, %j: index, %n: index) {
  regcopy.cp_async %S[%i], %G[%j], 16, %n : memref<4096xf16, #regcopy.mem<shared>> -> memref<8192xf16, #regcopy.mem<global>>
  regcopy.cp_async_commit
  regcopy.cp_async_wait 1
  func.return
}

// CHECK-LABEL: func.func @lowered(
// CHECK:       regcopy.cp_async %S[%i], %G[%j], 16, %n : memref<4096xf16, #regcopy.mem<shared>> -> memref<8192xf16, #regcopy.mem<global>>
// CHECK-NEXT:  regcopy.cp_async_commit
// CHECK-NEXT:  regcopy.cp_async_wait 1

// CHECK-GENERIC: "regcopy.copy_async"(%G, %S, %i) <{scope = #regcopy.exec<cta>, src_static_offsets = array<i64: -9223372036854775808, 0>, src_sizes = array<i64: 32, 64>, dst_static_offsets = array<i64: 0, 0, 0>, dst_sizes = array<i64: 1, 32, 64>, operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (memref<128x64xf16, #regcopy.mem<global>>, memref<2x32x64xf16, #regcopy.mem<shared.dyn>>, index) -> !regcopy.token
// CHECK-GENERIC: "regcopy.async_group"(%t0, %t1) : (!regcopy.token, !regcopy.token) -> !regcopy.token
// CHECK-GENERIC: "regcopy.async_wait"(%g0) <{pending = 1 : i64}> : (!regcopy.token) -> ()
// CHECK-GENERIC: "regcopy.cp_async"(%S, %i, %G, %j, %n) <{bytes = #builtin.int<16>}>
// CHECK-GENERIC: "regcopy.cp_async_wait"() <{pending = #builtin.int<1>}> : () -> ()
