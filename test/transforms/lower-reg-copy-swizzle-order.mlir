// A swizzle whose positional text reads as another valid swizzle in CuTe's order
// (Swizzle<B,M,S>) gets a note in the copy's remark; one that reads the same does not.
// RUN: regcopy-opt -p 'lower-reg-copy{remarks}' %s -o /dev/null 2>&1 | filecheck %s

func.func @ambiguous(%A: memref<64x64xf16, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<64x64xf16, #regcopy.layout<(64,64):(64,1), swizzle<3,2,3>>, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xf16, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S[0, 0] [32, 8] -> %R : memref<64x64xf16, #regcopy.layout<(64,64):(64,1), swizzle<3,2,3>>, #regcopy.mem<shared>> -> memref<32x8xf16, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK-LABEL: remark: vec 8 × f16 (128 bits), 1 round, 4 registers/thread (8 × f16) [copy %S -> %R in @ambiguous]
// CHECK: swizzle<3,2,3> is base M = 3, bits B = 2, shift S = 3 (regcopy's order swizzle<M,B,S>); CuTe's Swizzle<3,2,3> would be bits 3, base 2, i.e. swizzle<2,3,3>. Write swizzle<bits = 2, base = 3, shift = 3> to make the order explicit

func.func @same_reading(%A: memref<64x64xf16, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<64x64xf16, #regcopy.layout<(64,64):(64,1), swizzle<bits = 3, base = 3, shift = 3>>, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xf16, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S[0, 0] [32, 8] -> %R : memref<64x64xf16, #regcopy.layout<(64,64):(64,1), swizzle<bits = 3, base = 3, shift = 3>>, #regcopy.mem<shared>> -> memref<32x8xf16, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK-LABEL: remark: {{.*}}[copy %S -> %R in @same_reading]
// CHECK-NOT: CuTe's
