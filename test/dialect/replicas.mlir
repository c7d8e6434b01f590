// Round trip of replicated register layouts: replicate<extents:strides>, iters on thread axes
// only, in the notation of the main list (one iter may drop the parentheses).
//
// RUN: regcopy-opt %s | regcopy-opt | filecheck %s
// RUN: REGCOPY_ROUNDTRIP
// RUN: REGCOPY_GENERIC_ROUNDTRIP

"test.op"() {
  a = #regcopy.layout<(16,8):(1@laneid,1), replicate<2:16@laneid>>,
  b = #regcopy.layout<(16,8):(1@laneid,1), replicate<(2):(16@laneid)>>,
  c = #regcopy.layout<(16,8):(1@laneid,1), replicate<(2,2):(16@laneid,1@warpid)>>,
  d = #regcopy.layout<(2,2,8,2,4,2):(2@warpid,2,4@laneid,4,1@laneid,1), replicate<2:1@warpid>>,
  e = #regcopy.layout<(16,8):(1@laneid,1), replicate<(4):(1@wid_in_wg)>>
} : () -> ()
// CHECK:      a = #regcopy.layout<(16,8):(1@laneid,1), replicate<2:16@laneid>>
// CHECK-SAME: b = #regcopy.layout<(16,8):(1@laneid,1), replicate<2:16@laneid>>
// CHECK-SAME: c = #regcopy.layout<(16,8):(1@laneid,1), replicate<(2,2):(16@laneid,1@warpid)>>
// CHECK-SAME: d = #regcopy.layout<(2,2,8,2,4,2):(2@warpid,2,4@laneid,4,1@laneid,1), replicate<2:1@warpid>>
// CHECK-SAME: e = #regcopy.layout<(16,8):(1@laneid,1), replicate<4:1@wid_in_wg>>

// A replicated register tile is a buffer type like any other.
func.func @f() {
  %R = memref.alloca() : memref<16x8xf32, #regcopy.layout<(16,8):(1@laneid,1), replicate<2:16@laneid>>, #regcopy.mem<local>>
  func.return
}
// CHECK: memref.alloca() : memref<16x8xf32, #regcopy.layout<(16,8):(1@laneid,1), replicate<2:16@laneid>>, #regcopy.mem<local>>

// CHECK-GENERIC: #regcopy.layout<(16,8):(1@laneid,1), replicate<(2,2):(16@laneid,1@warpid)>>
