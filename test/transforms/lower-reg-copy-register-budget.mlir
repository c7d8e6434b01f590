// A thread holds at most 255 32-bit registers: a register tile that needs more is refused
// (a warning, an error under strict), saying the count and the fix, instead of lowering to a
// kernel ptxas cannot compile.
// RUN: regcopy-opt %s --lower-reg-copy 2>&1 | filecheck %s
// RUN: not regcopy-opt %s -p 'lower-reg-copy{strict}' 2>&1 | filecheck %s --check-prefix=STRICT

// 1024 x 1024 f32 over a warp: 32768 registers a lane.
func.func @huge(%in: memref<1024x1024xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<1024x1024xf32, #regcopy.layout<(1024,32,32):(32,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %in -> %R : memref<1024x1024xf32, #regcopy.mem<global>> -> memref<1024x1024xf32, #regcopy.layout<(1024,32,32):(32,1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: warning: not lowered: the register tile needs 32768 32-bit registers per thread (32768 × f32), more than the 255 a thread can hold [copy %in -> %R in @huge]
// CHECK:      spread the tile over more threads (thread axes over a wider exec scope, or a larger block), or split it into copies of at most 255 × f32 per thread
// STRICT: error: 'regcopy.copy' op rejected by lower-reg-copy: the register tile needs 32768 32-bit registers per thread

// 512 f16 a lane are 256 registers: one too many.
func.func @just_over(%in: memref<32x512xf16, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x512xf16, #regcopy.layout<(32,512):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %in -> %R : memref<32x512xf16, #regcopy.mem<global>> -> memref<32x512xf16, #regcopy.layout<(32,512):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: warning: not lowered: the register tile needs 256 32-bit registers per thread (512 × f16), more than the 255 a thread can hold [copy %in -> %R in @just_over]
// CHECK:      or split it into copies of at most 510 × f16 per thread

// 510 f16 a lane are 255 registers: lowered.
func.func @at_limit(%in: memref<32x510xf16, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x510xf16, #regcopy.layout<(32,510):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %in -> %R : memref<32x510xf16, #regcopy.mem<global>> -> memref<32x510xf16, #regcopy.layout<(32,510):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK-LABEL: func.func @at_limit
// CHECK-NOT: regcopy.copy
// CHECK: func.return
