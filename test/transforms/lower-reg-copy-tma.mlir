// lower-reg-copy{transfer=tma}: a kernel's async copies become TMA loads on an mbarrier ring
// of 1 + max pending slots (here 2); the group counters pick slot k % 2 and parity (k / 2) % 2;
// loop-carried group tokens are dropped. A kernel with a copy TMA cannot do keeps cp.async,
// with the reason in a remark (an error under strict).
// RUN: regcopy-opt %s -p 'lower-reg-copy{transfer=tma}' --split-input-file 2>/dev/null | filecheck %s
// RUN: regcopy-opt %s -p 'lower-reg-copy{transfer=tma remarks}' --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: not regcopy-opt %s -p 'lower-reg-copy{transfer=tma strict}' --split-input-file 2>&1 | filecheck %s --check-prefix=STRICT

!S = memref<2x64x64xf16, #regcopy.layout<(2,64,64):(4096,64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
func.func @ring(%G: memref<512x64xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  %c64 = arith.constant 64 : index
  %S = memref.alloca() : !S
  %t0 = regcopy.copy_async cta %G[0, 0] [64, 64] -> %S[0, 0, 0] [1, 64, 64] : memref<512x64xf16, #regcopy.mem<global>> -> !S
  %g0 = regcopy.async_group %t0
  %last = scf.for %k = %c0 to %c7 step %c1 iter_args(%ga = %g0) -> (!regcopy.token) {
    %k1 = arith.addi %k, %c1 : index
    %s = arith.remui %k1, %c2 : index
    %row = arith.muli %k1, %c64 : index
    %t = regcopy.copy_async cta %G[%row, 0] [64, 64] -> %S[%s, 0, 0] [1, 64, 64] : memref<512x64xf16, #regcopy.mem<global>> -> !S
    %g = regcopy.async_group %t
    regcopy.async_wait %ga {pending = 1 : i64}
    "gpu.barrier"() : () -> ()
    scf.yield %g : !regcopy.token
  }
  func.return
}

// REMARK:     remark: lowered: TMA box 64x64 of 512x64 (8192 bytes, swizzle 128B, shared aligned to 1024), mbarrier ring of 2 [copy_async]
// REMARK:     remark: lowered: TMA box 64x64 of 512x64 (8192 bytes, swizzle 128B, shared aligned to 1024), mbarrier ring of 2 [copy_async]
// CHECK:      func.func @ring(%G: memref<512x64xf16, #regcopy.mem<global>>)
// CHECK-NOT:  regcopy.copy_async
// CHECK:      %tma_bar = memref.alloca() : memref<2xi64, #regcopy.mem<shared>>
// CHECK:      %tma_groups = memref.alloca() : memref<2xindex, #regcopy.mem<local>>
// CHECK:      regcopy.mbarrier_init %tma_bar[%{{.*}}] {count = 1 : i64}
// CHECK:      regcopy.mbarrier_init %tma_bar[%{{.*}}] {count = 1 : i64}
// CHECK-NEXT: regcopy.fence_barrier_init
// CHECK:      "gpu.barrier"() : () -> ()
// CHECK-NEXT: %G_tmap = regcopy.tensor_map %G {box = array<i64: 64, 64>, swizzle = 128 : i64}
// CHECK:      %S = memref.alloca() {alignment = 1024 : i64}
// CHECK:      regcopy.tma_load %G_tmap[%{{.*}}, %{{.*}}] -> %{{.*}}[%{{.*}}], %tma_bar[%{{.*}}] : memref<8192xf16, #regcopy.mem<shared>>, memref<2xi64, #regcopy.mem<shared>>
// CHECK:      regcopy.mbarrier_arrive_expect_tx %tma_bar[%{{.*}}] {bytes = 8192 : i64}
// CHECK:      scf.for %k = %c0 to %c7 step %c1 {
// CHECK:        regcopy.tma_load %G_tmap
// CHECK:        regcopy.mbarrier_arrive_expect_tx
// CHECK:        scf.for
// CHECK:          regcopy.mbarrier_try_wait_parity %tma_bar[%{{.*}}], %{{.*}} : memref<2xi64, #regcopy.mem<shared>>
// CHECK-NOT:  regcopy.async_group
// CHECK-NOT:  !regcopy.token

// -----

func.func @not_a_tma_swizzle(%G: memref<512x64xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %S = memref.alloca() : memref<64x64xf16, #regcopy.layout<(64,64):(64,1), swizzle<3,3,4>>, #regcopy.mem<shared>>
  %t = regcopy.copy_async cta %G[0, 0] [64, 64] -> %S : memref<512x64xf16, #regcopy.mem<global>> -> memref<64x64xf16, #regcopy.layout<(64,64):(64,1), swizzle<3,3,4>>, #regcopy.mem<shared>>
  %g = regcopy.async_group %t
  regcopy.async_wait %g {pending = 0 : i64}
  func.return
}

// REMARK:      remark: transfer=tma: layout is not a TMA swizzle: swizzle<3,3,4> on 2-byte elements XORs bytes bits [4, 7) with bits [8, 11) [copy_async]
// REMARK-NEXT: %t = regcopy.copy_async
// REMARK-NEXT: ^
// REMARK-NEXT:   TMA swizzles are swizzle<3,1,3> (32B), swizzle<3,2,3> (64B), swizzle<3,3,3> (128B)
// REMARK-NEXT:   lowered with cp.async instead
// REMARK-NEXT: remark: cp.async.cg 16 bytes

// CHECK:      func.func @not_a_tma_swizzle
// CHECK-NOT:  regcopy.tma_load
// CHECK:      regcopy.cp_async

// STRICT:     error: 'regcopy.copy_async' op rejected by lower-reg-copy: transfer=tma: layout is not a TMA swizzle: swizzle<3,3,4>
