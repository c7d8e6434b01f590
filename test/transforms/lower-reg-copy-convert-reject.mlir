// Register <-> register conversions the pass refuses, each with its reason (an error under
// strict, a remark under remarks; the copy stays in the IR otherwise).
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{strict=true}' --verify-diagnostics | filecheck %s
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{remarks=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

// A register slot is fixed at compile time: a dynamic region offset is refused.
func.func @dynamic_offset(%i: index) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %a = memref.alloca() : memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  %b = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %a[0, %i] [32, 8] -> %b : memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: rejected by lower-reg-copy: the source region of a register tile has a dynamic offset
// REMARK: remark: not lowered: the source region of a register tile has a dynamic offset

// -----

// The destination's threads lie outside the CTA of 64 threads.
func.func @outside_the_cta() attributes {regcopy.launch = #regcopy.launch<block = 64, grid = [1]>} {
  %a = memref.alloca() : memref<64x8xf32, #regcopy.layout<(64,8):(1@tx,1)>, #regcopy.mem<local>>
  %b = memref.alloca() : memref<64x8xf32, #regcopy.layout<(64,8):(2@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %a -> %b : memref<64x8xf32, #regcopy.layout<(64,8):(1@tx,1)>, #regcopy.mem<local>> -> memref<64x8xf32, #regcopy.layout<(64,8):(2@tx,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: rejected by lower-reg-copy: destination layout (64,8):(2@tx,1) puts element 256 on thread 64, outside the scope's 64 threads
// REMARK: remark: not lowered: destination layout (64,8):(2@tx,1) puts element 256 on thread 64, outside the scope's 64 threads

