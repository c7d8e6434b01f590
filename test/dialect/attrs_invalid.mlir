// Parse errors of the regcopy attributes: every rule is checked while parsing,
// so the diagnostic carries file:line:col and names what would be accepted.
//
// RUN: regcopy-opt %s --parsing-diagnostics --split-input-file | filecheck %s

"test.op"() {l = #regcopy.layout<(32,8):(1@lane,1)>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:43
// CHECK: unknown thread axis '@lane'; expected one of laneid, tid_in_wg, wid_in_wg, tx, warpid, wgid

// -----

func.func @f(%R: memref<32x8xf32, #regcopy.layout<(32,8):(1@threadIdx,1)>, #regcopy.mem<local>>) {
  func.return
}
// CHECK: attrs_invalid.mlir:[[# @LINE - 3]]:60
// CHECK: unknown thread axis '@threadIdx'; expected one of laneid, tid_in_wg, wid_in_wg, tx, warpid, wgid

// -----

"test.op"() {l = #regcopy.layout<(32,8):(-1,1)>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:42
// CHECK: layout stride must be >= 0, got -1

// -----

"test.op"() {l = #regcopy.layout<(32,8):(1,-8@laneid)>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:44
// CHECK: layout stride must be >= 0, got -8

// -----

"test.op"() {l = #regcopy.layout<(0,8):(1,1)>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:35
// CHECK: layout extent must be >= 1, got 0

// -----

"test.op"() {l = #regcopy.layout<-4:1>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:34
// CHECK: layout extent must be >= 1, got -4

// -----

"test.op"() {l = #regcopy.layout<(32,8):(1)>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:34
// CHECK: layout has 2 extents but 1 strides

// -----

"test.op"() {l = #regcopy.layout<256:(1,1)>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:34
// CHECK: layout has 1 extents but 2 strides

// -----

"test.op"() {l = #regcopy.layout<(32,8)>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:40
// CHECK: Expected ':' between layout extents and strides

// -----

"test.op"() {l = #regcopy.layout<(64,64):(64,1), swizzle<3,3,2>>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:50
// CHECK: swizzle<3,3,2> needs M, B, S >= 0, S >= B and M + B + S <= 32

// -----

"test.op"() {l = #regcopy.layout<(64,64):(64,1), swizzle<-1,0,0>>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:50
// CHECK: swizzle<-1,0,0> needs M, B, S >= 0, S >= B and M + B + S <= 32

// -----

// TIRx's replica suffix is not the notation: replicas are written replicate<extents:strides>.
"test.op"() {l = #regcopy.layout<(32,8):(1@laneid,1), replica<2>>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:55
// CHECK: expected 'swizzle<M,B,S>', 'xor<bit:mask, ...>' or 'replicate<extents:strides>' after the layout iters

// -----

"test.op"() {l = #regcopy.layout<(32,8):(8,1), offset<4>>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:48
// CHECK: expected 'swizzle<M,B,S>', 'xor<bit:mask, ...>' or 'replicate<extents:strides>' after the layout iters

// -----

"test.op"() {l = #regcopy.layout<(64,64):(64,1), swizzle<3,3,3>, swizzle<3,3,3>>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:64
// CHECK: '>' expected

// -----

// Two elements with the same owner thread and no other thread axis: a replica in disguise.
"test.op"() {l = #regcopy.layout<32:0@laneid>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:34
// CHECK: layout 32:0@laneid is not injective: two elements have the same owner threads

// -----

"test.op"() {l = #regcopy.layout<(2,32,8):(32@laneid,1@laneid,1)>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:34
// CHECK: thread axis 'laneid' reaches 63 but ranges over 0..31

// -----

"test.op"() {l = #regcopy.layout<(2,2):(1@warpid,1@warpid)>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:34
// CHECK: layout (2,2):(1@warpid,1@warpid) is not injective: two elements have the same owner threads

// -----

"test.op"() {l = #regcopy.layout<(32,8):(1,1)>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:34
// CHECK: layout (32,8):(1,1) is not injective: two elements share a memory offset

// -----

"test.op"() {l = #regcopy.layout<(32,8):(1@laneid,0)>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:34
// CHECK: layout (32,8):(1@laneid,0) is not injective: two elements share a memory offset

// -----

"test.op"() {l = #regcopy.layout<(64,64):(64,1), swizzle<3,3,3>>, m = #regcopy.layout<(64,64):(32,1), swizzle<3,3,3>>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:87
// CHECK: layout (64,64):(32,1), swizzle<3,3,3> is not injective: two elements share a memory offset

// -----

// Thread axis overflow: laneid ranges over 0..31, tid_in_wg over 0..127, wid_in_wg over 0..3.
"test.op"() {l = #regcopy.layout<(64,8):(1@laneid,1)>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:34
// CHECK: thread axis 'laneid' reaches 63 but ranges over 0..31

// -----

"test.op"() {l = #regcopy.layout<(16,8):(4@laneid,1)>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:34
// CHECK: thread axis 'laneid' reaches 60 but ranges over 0..31

// -----

"test.op"() {l = #regcopy.layout<(256,2):(1@tid_in_wg,1)>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:34
// CHECK: thread axis 'tid_in_wg' reaches 255 but ranges over 0..127

// -----

"test.op"() {l = #regcopy.layout<(5,32,2):(1@wid_in_wg,1@laneid,1)>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:34
// CHECK: thread axis 'wid_in_wg' reaches 4 but ranges over 0..3

// -----

"test.op"() {l = #regcopy.mem<register>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:31
// CHECK: Expected `global`, `shared`, `shared.dyn`, or `local`.

// -----

"test.op"() {l = #regcopy.exec<block>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:32
// CHECK: Expected `thread`, `warp`, `warpgroup`, or `cta`.

// -----

func.func @k() attributes {regcopy.launch = #regcopy.launch<block = 0, grid = [1]>} {
  func.return
}
// CHECK: attrs_invalid.mlir:[[# @LINE - 3]]:69
// CHECK: block must be 1..1024 threads, got 0

// -----

func.func @k() attributes {regcopy.launch = #regcopy.launch<block = 2048, grid = [1]>} {
  func.return
}
// CHECK: attrs_invalid.mlir:[[# @LINE - 3]]:69
// CHECK: block must be 1..1024 threads, got 2048

// -----

func.func @k() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1, 1, 1, 1]>} {
  func.return
}
// CHECK: attrs_invalid.mlir:[[# @LINE - 3]]:80
// CHECK: grid must have 1 to 3 entries, each >= 1, got [1, 1, 1, 1]

// -----

"test.op"() {l = #regcopy.launch<block = 32, grid = []>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:53
// CHECK: grid must have 1 to 3 entries, each >= 1, got []

// -----

"test.op"() {l = #regcopy.launch<block = 32, grid = [4, 0]>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:53
// CHECK: grid must have 1 to 3 entries, each >= 1, got [4, 0]

// -----

"test.op"() {l = #regcopy.launch<grid = [1], block = 32>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:34
// CHECK: Expected 'block'

// -----

"test.op"() {l = #regcopy.launch<block = 32>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:44
// CHECK: Expected ','

// -----

"test.op"() {l = #regcopy.layout<(64,64):(64,1), swizzle<3,3>>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:50
// CHECK: swizzle takes three parameters <M,B,S>, got 2

// -----

"test.op"() {l = #regcopy.layout<(64,64):(64,1), swizzle<1,2,3,4>>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:50
// CHECK: swizzle takes three parameters <M,B,S>, got 4

// -----

// The keyword form swizzle<bits = B, base = M, shift = S>: all three keywords, once each,
// not mixed with positional parameters.
"test.op"() {l = #regcopy.layout<(64,64):(64,1), swizzle<bits = 3, base = 3>>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:50
// CHECK: swizzle is missing 'shift'; all three keywords are required: swizzle<bits = B, base = M, shift = S>

// -----

"test.op"() {l = #regcopy.layout<(64,64):(64,1), swizzle<bits = 3, mbase = 3, shift = 3>>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:68
// CHECK: unknown swizzle parameter 'mbase'; expected swizzle<bits = B, base = M, shift = S>

// -----

"test.op"() {l = #regcopy.layout<(64,64):(64,1), swizzle<bits = 3, bits = 3, shift = 3>>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:68
// CHECK: swizzle parameter 'bits' is given twice

// -----

"test.op"() {l = #regcopy.layout<(64,64):(64,1), swizzle<3, bits = 3, shift = 3>>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:50
// CHECK: swizzle parameters are all positional <M,B,S> or all keywords swizzle<bits = B, base = M, shift = S>, not a mix

// -----

"test.op"() {l = #regcopy.layout<(64,64):(64,1), swizzle<bits 3, base = 3, shift = 3>>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:63
// CHECK: Expected '=' after swizzle parameter 'bits'

// -----

// The keyword form is checked like the positional one (here S < B).
"test.op"() {l = #regcopy.layout<(64,64):(64,1), swizzle<bits = 3, base = 0, shift = 2>>} : () -> ()
// CHECK: attrs_invalid.mlir:[[# @LINE - 1]]:50
// CHECK: swizzle<0,3,2> needs M, B, S >= 0, S >= B and M + B + S <= 32
