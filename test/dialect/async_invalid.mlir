// Verifier and parser errors of the asynchronous copy ops: one line each.
//
// RUN: regcopy-opt %s --verify-diagnostics --split-input-file | filecheck %s

func.func @f(%G: memref<64x64xf16, #regcopy.mem<global>>, %R: memref<32x64xf16, #regcopy.layout<(32,64):(1@laneid,1)>, #regcopy.mem<local>>) {
  %t = regcopy.copy_async warp %G[0, 0] [32, 64] -> %R : memref<64x64xf16, #regcopy.mem<global>> -> memref<32x64xf16, #regcopy.layout<(32,64):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: Operation does not verify: copy_async writes a shared or shared.dyn buffer, got a local one; copy into registers with regcopy.copy

// -----

func.func @f(%G: memref<64x64xf16, #regcopy.mem<global>>, %S: memref<32x64xf16, #regcopy.mem<shared>>) {
  %t = regcopy.copy_async warp %S -> %S : memref<32x64xf16, #regcopy.mem<shared>> -> memref<32x64xf16, #regcopy.mem<shared>>
  func.return
}
// CHECK: Operation does not verify: copy_async reads a global buffer, got a shared one; copy shared or local data with regcopy.copy

// -----

func.func @f(%G: memref<64x64xf16, #regcopy.mem<global>>, %S: memref<32x64xf16, #regcopy.mem<shared>>) {
  %t = regcopy.copy_async warp %G[40, 0] [32, 64] -> %S : memref<64x64xf16, #regcopy.mem<global>> -> memref<32x64xf16, #regcopy.mem<shared>>
  func.return
}
// CHECK: Operation does not verify: src region [40, 72) is outside dim 0 of size 64; size 32 fits at an offset in [0, 32]

// -----

func.func @f(%G: memref<64x64xf16, #regcopy.mem<global>>, %S: memref<32x64xf16, #regcopy.mem<shared>>) {
  %t = regcopy.copy_async warp %G[0, 0] [32, 64] -> %S : memref<64x64xf16, #regcopy.mem<global>> -> memref<32x64xf16, #regcopy.mem<shared>>
  %g0 = regcopy.async_group %t
  %g1 = regcopy.async_group %t
  func.return
}
// CHECK: Operation does not verify: the copy's token is closed by 2 regcopy.async_group ops; a copy belongs to exactly one group

// -----

func.func @f(%G: memref<64x64xf16, #regcopy.mem<global>>, %S: memref<32x64xf16, #regcopy.mem<shared>>) {
  %t = regcopy.copy_async warp %G[0, 0] [32, 64] -> %S : memref<64x64xf16, #regcopy.mem<global>> -> memref<32x64xf16, #regcopy.mem<shared>>
  %g = regcopy.async_group %t
  regcopy.async_wait %g {pending = -1 : i64}
  func.return
}
// CHECK: Operation does not verify: pending = -1 must be >= 0 (the groups closed after this one that may stay in flight)

// -----

func.func @f(%G: memref<64x64xf16, #regcopy.mem<global>>, %S: memref<32x64xf16, #regcopy.mem<shared>>) {
  %t = regcopy.copy_async warp %G[0, 0] [32, 64] -> %S : memref<64x64xf16, #regcopy.mem<global>> -> memref<32x64xf16, #regcopy.mem<shared>>
  %g = regcopy.async_group %t
  %h = regcopy.async_group %g
  func.return
}
// CHECK: Operation does not verify: async_group closes copy_async tokens; got a value defined by regcopy.async_group

// -----

func.func @f(%G: memref<64x64xf16, #regcopy.mem<global>>, %S: memref<32x64xf16, #regcopy.mem<shared>>) {
  %t = regcopy.copy_async warp %G[0, 0] [32, 64] -> %S : memref<64x64xf16, #regcopy.mem<global>> -> memref<32x64xf16, #regcopy.mem<shared>>
  regcopy.async_wait %t {pending = 0 : i64}
  func.return
}
// CHECK: Operation does not verify: a copy_async token may only be closed by regcopy.async_group, not used by regcopy.async_wait

// -----

func.func @f(%G: memref<8192xf16, #regcopy.mem<global>>, %S: memref<4096xf16, #regcopy.mem<shared>>, %i: index) {
  regcopy.cp_async %S[%i], %G[%i], 12, %i : memref<4096xf16, #regcopy.mem<shared>> -> memref<8192xf16, #regcopy.mem<global>>
  func.return
}
// CHECK: Operation does not verify: cp_async moves 4, 8 or 16 bytes, got 12
