// Round trip of the regcopy attributes: layouts, memory spaces, exec scopes and
// launch configurations, in custom and generic form, through regcopy-opt and stock xdsl-opt.
//
// RUN: regcopy-opt %s | regcopy-opt | filecheck %s
// RUN: REGCOPY_ROUNDTRIP
// RUN: REGCOPY_GENERIC_ROUNDTRIP
// RUN: xdsl-opt %s | xdsl-opt | filecheck %s

// A single iter may drop the parentheses; one written with them prints without.
"test.op"() {
  a = #regcopy.layout<256:1>,
  b = #regcopy.layout<(256):(1)>,
  c = #regcopy.layout<(32,8):(1@laneid,1)>,
  d = #regcopy.layout<(8,256,4):(4,1@tx,1)>,
  e = #regcopy.layout<(64,64):(64,1), swizzle<3,3,3>>,
  f = #regcopy.layout<(128,64):(64,1), swizzle<2,3,4>>,
  g = #regcopy.layout<(8,8):(8,1), swizzle<0,0,0>>,
  h = #regcopy.layout<(1,8):(0,1)>,
  i = #regcopy.layout<(2,1):(1,0@laneid)>,
  j = #regcopy.layout<(2,16,8):(16@laneid,1@laneid,1)>
} : () -> ()

// CHECK:      "test.op"() {
// CHECK-SAME: a = #regcopy.layout<256:1>
// CHECK-SAME: b = #regcopy.layout<256:1>
// CHECK-SAME: c = #regcopy.layout<(32,8):(1@laneid,1)>
// CHECK-SAME: d = #regcopy.layout<(8,256,4):(4,1@tx,1)>
// CHECK-SAME: e = #regcopy.layout<(64,64):(64,1), swizzle<3,3,3>>
// CHECK-SAME: f = #regcopy.layout<(128,64):(64,1), swizzle<2,3,4>>
// CHECK-SAME: g = #regcopy.layout<(8,8):(8,1), swizzle<0,0,0>>
// CHECK-SAME: h = #regcopy.layout<(1,8):(0,1)>
// CHECK-SAME: i = #regcopy.layout<(2,1):(1,0@laneid)>
// CHECK-SAME: j = #regcopy.layout<(2,16,8):(16@laneid,1@laneid,1)>
// CHECK-GENERIC:      "test.op"() {
// CHECK-GENERIC-SAME: a = #regcopy.layout<256:1>
// CHECK-GENERIC-SAME: c = #regcopy.layout<(32,8):(1@laneid,1)>
// CHECK-GENERIC-SAME: e = #regcopy.layout<(64,64):(64,1), swizzle<3,3,3>>

// The swizzle's keyword form (bits = B, base = M, shift = S, in any order) prints in the
// positional order swizzle<M,B,S>. CuTe writes the same swizzle Swizzle<B,M,S>: bits first.
"test.op"() {
  kw1 = #regcopy.layout<(64,64):(64,1), swizzle<bits = 3, base = 2, shift = 3>>,
  kw2 = #regcopy.layout<(128,64):(64,1), swizzle<shift = 4, base = 2, bits = 3>>,
  kw3 = #regcopy.layout<(64,64):(64,1), swizzle<base=3,bits=3,shift=3>>
} : () -> ()
// CHECK:      "test.op"() {
// CHECK-SAME: kw1 = #regcopy.layout<(64,64):(64,1), swizzle<2,3,3>>
// CHECK-SAME: kw2 = #regcopy.layout<(128,64):(64,1), swizzle<2,3,4>>
// CHECK-SAME: kw3 = #regcopy.layout<(64,64):(64,1), swizzle<3,3,3>>
// CHECK-GENERIC:      "test.op"() {
// CHECK-GENERIC-SAME: kw1 = #regcopy.layout<(64,64):(64,1), swizzle<2,3,3>>

// Every thread axis: laneid, tid_in_wg, wid_in_wg, tx, warpid, wgid.
"test.op"() {
  laneid = #regcopy.layout<(32,4):(1@laneid,1)>,
  tid_in_wg = #regcopy.layout<(128,2):(1@tid_in_wg,1)>,
  wid_in_wg = #regcopy.layout<(4,32,2):(1@wid_in_wg,1@laneid,1)>,
  tx = #regcopy.layout<(2,256):(1,1@tx)>,
  warpid = #regcopy.layout<(8,32,4):(1@warpid,1@laneid,1)>,
  wgid = #regcopy.layout<(2,128,8):(1@wgid,1@tid_in_wg,1)>,
  quoted = #regcopy.layout<(32,8):(1@"laneid",1)>
} : () -> ()

// CHECK:      "test.op"() {
// CHECK-SAME: laneid = #regcopy.layout<(32,4):(1@laneid,1)>
// CHECK-SAME: tid_in_wg = #regcopy.layout<(128,2):(1@tid_in_wg,1)>
// CHECK-SAME: wid_in_wg = #regcopy.layout<(4,32,2):(1@wid_in_wg,1@laneid,1)>
// CHECK-SAME: tx = #regcopy.layout<(2,256):(1,1@tx)>
// CHECK-SAME: warpid = #regcopy.layout<(8,32,4):(1@warpid,1@laneid,1)>
// CHECK-SAME: wgid = #regcopy.layout<(2,128,8):(1@wgid,1@tid_in_wg,1)>
// CHECK-SAME: quoted = #regcopy.layout<(32,8):(1@laneid,1)>
// CHECK-GENERIC:      "test.op"() {
// CHECK-GENERIC-SAME: wid_in_wg = #regcopy.layout<(4,32,2):(1@wid_in_wg,1@laneid,1)>
// CHECK-GENERIC-SAME: wgid = #regcopy.layout<(2,128,8):(1@wgid,1@tid_in_wg,1)>

// Memory spaces and exec scopes as plain attributes.
"test.op"() {
  m0 = #regcopy.mem<global>, m1 = #regcopy.mem<shared>, m2 = #regcopy.mem<shared.dyn>,
  m3 = #regcopy.mem<local>,
  s0 = #regcopy.exec<thread>, s1 = #regcopy.exec<warp>, s2 = #regcopy.exec<warpgroup>,
  s3 = #regcopy.exec<cta>
} : () -> ()

// CHECK:      "test.op"() {
// CHECK-SAME: m0 = #regcopy.mem<global>, m1 = #regcopy.mem<shared>, m2 = #regcopy.mem<shared.dyn>, m3 = #regcopy.mem<local>
// CHECK-SAME: s0 = #regcopy.exec<thread>, s1 = #regcopy.exec<warp>, s2 = #regcopy.exec<warpgroup>, s3 = #regcopy.exec<cta>
// CHECK-GENERIC:      "test.op"() {
// CHECK-GENERIC-SAME: m2 = #regcopy.mem<shared.dyn>
// CHECK-GENERIC-SAME: s3 = #regcopy.exec<cta>

// Buffers of every memory space; a kernel argument without a memory space is global.
func.func @buffers(%g: memref<64x64xf16, #regcopy.mem<global>>, %plain: memref<16x16xbf16>,
                   %s: memref<64x64xf16, #regcopy.layout<(64,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>,
                   %d: memref<32x8xf32, #regcopy.mem<shared.dyn>>) {
  %a = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared>>
  %r = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %t = memref.alloca() : memref<8x8xi8, #regcopy.layout<(8,8):(8,1)>, #regcopy.mem<local>>
  func.return
}

// CHECK-LABEL: func.func @buffers(
// CHECK-SAME:    %g: memref<64x64xf16, #regcopy.mem<global>>, %plain: memref<16x16xbf16>,
// CHECK-SAME:    %s: memref<64x64xf16, #regcopy.layout<(64,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>,
// CHECK-SAME:    %d: memref<32x8xf32, #regcopy.mem<shared.dyn>>)
// CHECK-NEXT:  %a = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared>>
// CHECK-NEXT:  %r = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
// CHECK-NEXT:  %t = memref.alloca() : memref<8x8xi8, #regcopy.layout<(8,8):(8,1)>, #regcopy.mem<local>>
// CHECK-GENERIC: "memref.alloca"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>

// Launch configurations with 1, 2 and 3 grid entries.
func.func @k1() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  func.return
}
func.func @k2() attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [8, 4]>} {
  func.return
}
func.func @k3() attributes {regcopy.launch = #regcopy.launch<block = 1024, grid = [2,3,4]>} {
  func.return
}
"test.op"() {l = #regcopy.launch<block = 1, grid = [1]>} : () -> ()

// CHECK-LABEL: func.func @k1() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
// CHECK-LABEL: func.func @k2() attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [8, 4]>} {
// CHECK-LABEL: func.func @k3() attributes {regcopy.launch = #regcopy.launch<block = 1024, grid = [2, 3, 4]>} {
// CHECK:       "test.op"() {l = #regcopy.launch<block = 1, grid = [1]>} : () -> ()
// CHECK-GENERIC: regcopy.launch = #regcopy.launch<block = 1024, grid = [2, 3, 4]>
