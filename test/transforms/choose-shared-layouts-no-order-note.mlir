// A layout the compiler chose (#regcopy.layout<auto>) gets no note on how to write its
// swizzle's parameters: nobody wrote them. Here the chosen swizzle<2,3,3> would read as
// another valid swizzle in CuTe's order; the same swizzle written by hand gets the note.
//
// RUN: regcopy-opt -p 'lower-reg-copy{remarks}' %s -o /dev/null 2>&1 | filecheck %s

func.func @chosen(%in: memref<32x32xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %T = memref.alloca() : memref<32x32xf32, #regcopy.layout<auto>, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x32xf32, #regcopy.layout<(32,32):(1@laneid,1)>, #regcopy.mem<local>>
  %C = memref.alloca() : memref<32x32xf32, #regcopy.layout<(32,32):(1,1@laneid)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %T : memref<32x32xf32, #regcopy.layout<(32,32):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x32xf32, #regcopy.layout<auto>, #regcopy.mem<shared>>
  regcopy.copy warp %T -> %C : memref<32x32xf32, #regcopy.layout<auto>, #regcopy.mem<shared>> -> memref<32x32xf32, #regcopy.layout<(32,32):(1,1@laneid)>, #regcopy.mem<local>>
  func.return
}
// CHECK:     remark: layout chosen: #regcopy.layout<(32,32):(32,1), swizzle<2,3,3>> [alloca %T]
// CHECK:     remark: vec 4 × f32 (128 bits), 8 rounds, 32 registers/thread [copy %R -> %T in @chosen]
// CHECK-NOT: CuTe's
// CHECK:     remark: ldmatrix.x4 {{.*}}[copy %T -> %C in @chosen]
// CHECK-NOT: CuTe's
// CHECK:     remark: {{.*}}[copy %R -> %S in @written]
// CHECK:     CuTe's Swizzle<2,3,3> would be bits 2, base 3

func.func @written(%in: memref<32x32xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<32x32xf32, #regcopy.layout<(32,32):(32,1), swizzle<2,3,3>>, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x32xf32, #regcopy.layout<(32,32):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %S : memref<32x32xf32, #regcopy.layout<(32,32):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x32xf32, #regcopy.layout<(32,32):(32,1), swizzle<2,3,3>>, #regcopy.mem<shared>>
  func.return
}
