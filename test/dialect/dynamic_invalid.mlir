// Verifier errors of copies on runtime shapes: regions of dynamic buffers, padding, in_bounds.
// (The argument-level errors, dynamic shared buffers and extent promises, are in
// test/python/test_dynamic_shapes.py.)
//
// RUN: regcopy-opt %s --verify-diagnostics --split-input-file | filecheck %s

// A negative static offset into a dynamic dim.
func.func @f(%A: memref<?x?xf32, #regcopy.mem<global>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A[-1, 0] [32, 8] -> %R : memref<?x?xf32, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: src region offset -1 of dim 0 is negative; use offsets >= 0 (the dim's extent is a runtime value)

// -----

// A static dim of a dynamic buffer is still checked statically.
func.func @f(%A: memref<?x8xf32, #regcopy.mem<global>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A[0, 4] [32, 8] -> %R : memref<?x8xf32, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: src region [4, 12) is outside dim 1 of size 8; size 8 fits at offset 0

// -----

// The padding has the element type.
func.func @f(%A: memref<?x?xf32, #regcopy.mem<global>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A[0, 0] [32, 8] -> %R {padding = 1 : i32} : memref<?x?xf32, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: padding 1 : i32 must be a value of the element type f32, such as {padding = 0.0 : f32}

// -----

// padding and in_bounds together: nothing is outside to pad.
func.func @f(%A: memref<?x?xi32, #regcopy.mem<global>>, %R: memref<32x8xi32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A[0, 0] [32, 8] -> %R {padding = -1 : i32, in_bounds} : memref<?x?xi32, #regcopy.mem<global>> -> memref<32x8xi32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: padding has no effect with {in_bounds} (no element is outside the buffer); drop one of them

// -----

// A store has nothing to pad.
func.func @f(%A: memref<?x?xf32, #regcopy.mem<global>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %R -> %A[0, 0] [32, 8] {padding = 0.0 : f32} : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xf32, #regcopy.mem<global>>
  func.return
}
// CHECK: padding applies to a copy into registers (a local destination); a copy to memory writes nothing outside the buffer, so drop the padding

// -----

// in_bounds is a unit attribute.
func.func @f(%A: memref<?x?xf32, #regcopy.mem<global>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A[0, 0] [32, 8] -> %R {in_bounds = true} : memref<?x?xf32, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: in_bounds is a unit attribute (write {in_bounds}), got in_bounds = true
