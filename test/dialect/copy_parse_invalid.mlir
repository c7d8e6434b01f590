// Parse errors in the custom syntax of regcopy.copy: file:line:col and what
// would be accepted.
//
// RUN: regcopy-opt %s --parsing-diagnostics --split-input-file | filecheck %s

func.func @f(%A: memref<32x8xf32, #regcopy.mem<shared>>, %B: memref<32x8xf32, #regcopy.mem<shared>>) {
  regcopy.copy block %A -> %B : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.mem<shared>>
  func.return
}
// CHECK: copy_parse_invalid.mlir:[[# @LINE - 3]]:16
// CHECK: Expected `thread`, `warp`, `warpgroup`, or `cta`.

// -----

func.func @f(%A: memref<32x8xf32, #regcopy.mem<shared>>, %B: memref<32x8xf32, #regcopy.mem<shared>>) {
  regcopy.copy %A -> %B : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.mem<shared>>
  func.return
}
// CHECK: copy_parse_invalid.mlir:[[# @LINE - 3]]:16
// CHECK: Expected `thread`, `warp`, `warpgroup`, or `cta`.

// -----

// Sizes are integers; only offsets may be SSA values.
func.func @f(%A: memref<64x8xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>, %n: index) {
  regcopy.copy warp %A[0, 0] [%n, 8] -> %R : memref<64x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: copy_parse_invalid.mlir:[[# @LINE - 3]]:31
// CHECK: region sizes must be integer literals

// -----

// Dynamic offsets are `index` values.
func.func @f(%A: memref<64x8xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>, %i: i32) {
  regcopy.copy warp %A[%i, 0] [32, 8] -> %R : memref<64x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: copy_parse_invalid.mlir:[[# @LINE - 3]]:24
// CHECK: operand is used with type index, but has been previously used or defined with type i32

// -----

func.func @f(%A: memref<64x8xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A[0.5, 0] [32, 8] -> %R : memref<64x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: copy_parse_invalid.mlir:[[# @LINE - 3]]:24
// CHECK: Expected an operand.

// -----

// Offsets without sizes.
func.func @f(%A: memref<64x8xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A[0, 0] -> %R : memref<64x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: copy_parse_invalid.mlir:[[# @LINE - 3]]:30
// CHECK: expected the region sizes '[s0, s1, ...]' after the offsets

// -----

func.func @f(%A: memref<64x8xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A[0, 0] [32, 8] %R : memref<64x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: copy_parse_invalid.mlir:[[# @LINE - 3]]:38
// CHECK: Expected '->'

// -----

func.func @f(%A: memref<64x8xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A[] [] -> %R : memref<64x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: copy_parse_invalid.mlir:[[# @LINE - 3]]:24
// CHECK: Expected an operand.

// -----

// A bad layout inside the copy's types is reported where it is written.
func.func @f(%A: memref<32x8xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A -> %R : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@lane,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: copy_parse_invalid.mlir:[[# @LINE - 3]]:116
// CHECK: unknown thread axis '@lane'; expected one of laneid, tid_in_wg, wid_in_wg, tx, warpid, wgid

