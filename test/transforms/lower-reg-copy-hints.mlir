// Refusals say how to fix them (issue 9): a narrowed width names the change that would allow
// the wider transfer; a rejection names the change that would make the copy acceptable.
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{remarks=true}' 2>&1 >/dev/null | filecheck %s

// A row pitch of 65 f16 elements: lane i's row starts at 130 i bytes. A pitch of 72 would
// allow 128-bit transfers.
func.func @pitch_65(%S: memref<32x65xf16, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf16, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S[0, 0] [32, 8] -> %R : memref<32x65xf16, #regcopy.mem<global>> -> memref<32x8xf16, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: remark: vec 1 × f16 (16 bits), 8 rounds, 4 registers/thread (8 × f16) [copy %S -> %R in @pitch_65]
// CHECK:      narrowed: 8-wide refused: S stride 65 multiplied by a thread coordinate is not a multiple of 8; an S stride of 72 there (a padded row pitch) would allow 128-bit transfers

// -----

// Register gaps (every other register slot): contiguous registers would allow 128 bits.
func.func @register_gaps(%S: memref<32x4xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x4xf32, #regcopy.layout<(32,4):(1@laneid,2)>, #regcopy.mem<local>>
  regcopy.copy warp %S -> %R : memref<32x4xf32, #regcopy.mem<global>> -> memref<32x4xf32, #regcopy.layout<(32,4):(1@laneid,2)>, #regcopy.mem<local>>
  func.return
}
// CHECK: remark: vec 1 × f32 (32 bits), 4 rounds, 7 registers/thread [copy %S -> %R in @register_gaps]
// CHECK:      narrowed: 4-wide refused: R registers are not contiguous over 4 elements (register gaps); a register tile whose innermost register stride is 1 would allow 128-bit transfers

// -----

// A static region offset of 2 f32 columns: a region starting at a multiple of 4 would allow
// 128-bit transfers.
func.func @column_offset() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %S = memref.alloca() : memref<32x16xf32, #regcopy.mem<shared>>
  regcopy.copy warp %S[0, 2] [32, 8] -> %R : memref<32x16xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: remark: vec 2 × f32 (64 bits), 4 rounds, 8 registers/thread [copy %S -> %R in @column_offset]
// CHECK:      narrowed: 4-wide refused: S base offset 2 is not a multiple of 4; a region starting at a multiple of 4 elements would allow 128-bit transfers

// -----

// A thread axis wider than the exec scope: the reason names the scope that would work.
func.func @wide_axis(%S: memref<128x4xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %R = memref.alloca() : memref<128x4xf32, #regcopy.layout<(128,4):(1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S -> %R : memref<128x4xf32, #regcopy.mem<global>> -> memref<128x4xf32, #regcopy.layout<(128,4):(1@tx,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: remark: not lowered: R thread axis 'tx' has scope cta, wider than exec scope warp [copy %S -> %R in @wide_axis]
// CHECK:      run the copy at exec scope cta

// -----

// A missing launch attribute: the reason shows the attribute to add.
func.func @no_launch(%S: memref<32x4xf32, #regcopy.mem<global>>) {
  %R = memref.alloca() : memref<32x4xf32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S -> %R : memref<32x4xf32, #regcopy.mem<global>> -> memref<32x4xf32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: remark: not lowered: the enclosing func.func has no regcopy.launch, so the active threads are unknown [copy %S -> %R in @no_launch]
// CHECK:      add attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} (your block and grid) to the kernel

// -----

// A layout with no warp axis under warpgroup scope is a true replica: the reason says how to
// give each element one owner.
func.func @replica(%S: memref<32x4xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %R = memref.alloca() : memref<32x4xf32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warpgroup %S -> %R : memref<32x4xf32, #regcopy.mem<global>> -> memref<32x4xf32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: remark: not lowered: R layout (32,4):(1@laneid,1) is replicated: 4 threads of the warpgroup own the same element [copy %S -> %R in @replica]
// CHECK:      give each element one owner (add the missing thread axis to the register tile, or use a narrower exec scope)
