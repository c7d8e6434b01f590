// #regcopy.layout<auto>: choose-shared-layouts picks each shared buffer's physical layout from
// every copy that touches it, conflict-free at full width without lane rotation; lower-reg-copy
// runs it first. Each case's plain row-major tile is conflicted (noted per case).
// RUN: regcopy-opt -p 'choose-shared-layouts{remarks}' %s 2>&1 | filecheck %s
// RUN: regcopy-opt -p 'lower-reg-copy{remarks}' %s -o /dev/null 2>&1 | filecheck %s --check-prefix=LOWER

// 32 x 32 f32 transpose: 128-bit row writes (8-way conflicted row-major), column reads.
// CHECK: remark: layout chosen: #regcopy.layout<(32,32):(32,1), swizzle<2,3,3>> [alloca %T]
// CHECK-NEXT: %T = memref.alloca()
// CHECK-NEXT: ^
// CHECK-NEXT: candidates; XOR bases constructed from the lanes' address bits
// CHECK-NEXT: copy %Rrow -> %T in @transpose: vec 4 × f32 (128 bits): no bank conflict: 32 wavefronts, ideal 32
// CHECK-NEXT: copy %T -> %Rcol in @transpose: ldmatrix.x4: no bank conflict: 32 wavefronts, ideal 32
// LOWER: remark: vec 4 × f32 (128 bits), 8 rounds, 32 registers/thread [copy %Rrow -> %T in @transpose]
// LOWER-NOT: lane-rotated
// LOWER: no bank conflict: 4 wavefronts per round, ideal 4
func.func @transpose(%in: memref<32x32xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %T = memref.alloca() : memref<32x32xf32, #regcopy.layout<auto>, #regcopy.mem<shared>>
  %Rrow = memref.alloca() : memref<32x32xf32, #regcopy.layout<(32,32):(1@laneid,1)>, #regcopy.mem<local>>
  %Rcol = memref.alloca() : memref<32x32xf32, #regcopy.layout<(32,32):(1,1@laneid)>, #regcopy.mem<local>>
  regcopy.copy warp %in -> %Rrow : memref<32x32xf32, #regcopy.mem<global>> -> memref<32x32xf32, #regcopy.layout<(32,32):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %Rrow -> %T : memref<32x32xf32, #regcopy.layout<(32,32):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x32xf32, #regcopy.layout<auto>, #regcopy.mem<shared>>
  regcopy.copy warp %T -> %Rcol : memref<32x32xf32, #regcopy.layout<auto>, #regcopy.mem<shared>> -> memref<32x32xf32, #regcopy.layout<(32,32):(1,1@laneid)>, #regcopy.mem<local>>
  func.return
}

// GEMM A tile, 128 x 64 f16: 128-bit row-chunk writes (cta), ldmatrix.x4 fragment reads
// (8-way conflicted row-major): swizzle<3,3,3>, the layout CUTLASS hand-picks.
// CHECK: remark: layout chosen: #regcopy.layout<(128,64):(64,1), swizzle<3,3,3>> [alloca %SA]
// CHECK: copy %RA -> %SA in @gemm_a: vec 8 × f16 (128 bits): no bank conflict: 16 wavefronts, ideal 16
// CHECK-NEXT: copy %SA -> %FA in @gemm_a: ldmatrix.x4: no bank conflict: 64 wavefronts, ideal 64
// LOWER: remark: ldmatrix.x4 (16 instructions a warp, 256 bytes a lane), 64 registers/thread (128 × f16) [copy %SA -> %FA in @gemm_a]
// LOWER: no bank conflict: 4 wavefronts per instruction, ideal 4
func.func @gemm_a(%A: memref<128x64xf16, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [1]>} {
  %SA = memref.alloca() : memref<128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared>>
  %RA = memref.alloca() : memref<128x64xf16, #regcopy.layout<(4,32,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>>
  %FA = memref.alloca() : memref<64x64xf16, #regcopy.layout<(4,2,8,4,2,4,2):(32,2,4@laneid,8,4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy cta %A -> %RA : memref<128x64xf16, #regcopy.mem<global>> -> memref<128x64xf16, #regcopy.layout<(4,32,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %RA -> %SA : memref<128x64xf16, #regcopy.layout<(4,32,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>> -> memref<128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared>>
  "gpu.barrier"() : () -> ()
  regcopy.copy warp %SA[64, 0] [64, 64] -> %FA : memref<128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared>> -> memref<64x64xf16, #regcopy.layout<(4,2,8,4,2,4,2):(32,2,4@laneid,8,4,1@laneid,1)>, #regcopy.mem<local>>
  func.return
}

// A K x N (64 x 128) f16 B tile read as mma "col" fragments with ldmatrix.trans (8-way
// conflicted row-major): 256-byte rows, so the row bits start one bit higher.
// CHECK: remark: layout chosen: #regcopy.layout<(64,128):(128,1), swizzle<3,3,4>> [alloca %SB]
// CHECK: copy %RB -> %SB in @b_tile_trans: vec 8 × f16 (128 bits): no bank conflict: 32 wavefronts, ideal 32
// CHECK-NEXT: copy %SB -> %FB in @b_tile_trans: ldmatrix.x4.trans: no bank conflict: 32 wavefronts, ideal 32
// LOWER: remark: ldmatrix.x4.trans (8 instructions a warp, 128 bytes a lane), 32 registers/thread (64 × f16) [copy %SB -> %FB in @b_tile_trans]
// LOWER: no bank conflict: 4 wavefronts per instruction, ideal 4
func.func @b_tile_trans(%B: memref<64x128xf16, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %SB = memref.alloca() : memref<64x128xf16, #regcopy.layout<auto>, #regcopy.mem<shared>>
  %RB = memref.alloca() : memref<64x128xf16, #regcopy.layout<(8,8,16,8):(8,16@tx,1@tx,1)>, #regcopy.mem<local>>
  %FB = memref.alloca() : memref<64x32xf16, #regcopy.layout<(4,2,4,2,4,8):(4,2,1@laneid,1,16,4@laneid)>, #regcopy.mem<local>>
  regcopy.copy cta %B -> %RB : memref<64x128xf16, #regcopy.mem<global>> -> memref<64x128xf16, #regcopy.layout<(8,8,16,8):(8,16@tx,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %RB -> %SB : memref<64x128xf16, #regcopy.layout<(8,8,16,8):(8,16@tx,1@tx,1)>, #regcopy.mem<local>> -> memref<64x128xf16, #regcopy.layout<auto>, #regcopy.mem<shared>>
  "gpu.barrier"() : () -> ()
  regcopy.copy warp %SB[0, 32] [64, 32] -> %FB : memref<64x128xf16, #regcopy.layout<auto>, #regcopy.mem<shared>> -> memref<64x32xf16, #regcopy.layout<(4,2,4,2,4,8):(4,2,1@laneid,1,16,4@laneid)>, #regcopy.mem<local>>
  func.return
}

// The seed round trip, f32 k = 8: lane i owns row i (32 bytes), two 128-bit rounds a copy
// (2-way conflicted row-major: eight 32-byte rows span two bank lines).
// CHECK: remark: layout chosen: #regcopy.layout<(32,8):(8,1), swizzle<2,1,3>> [alloca %A]
// CHECK: copy %A -> %R in @seed_f32_k8: vec 4 × f32 (128 bits): no bank conflict: 8 wavefronts, ideal 8
// CHECK: remark: layout chosen: #regcopy.layout<(32,8):(8,1), swizzle<2,1,3>> [alloca %B]
// CHECK: copy %R -> %B in @seed_f32_k8: vec 4 × f32 (128 bits): no bank conflict: 8 wavefronts, ideal 8
// LOWER: remark: vec 4 × f32 (128 bits), 2 rounds, 8 registers/thread [copy %A -> %R in @seed_f32_k8]
// LOWER-NOT: lane-rotated
// LOWER: no bank conflict: 4 wavefronts per round, ideal 4
// LOWER: remark: vec 4 × f32 (128 bits), 2 rounds, 8 registers/thread [copy %R -> %B in @seed_f32_k8]
// LOWER-NOT: lane-rotated
// LOWER: no bank conflict: 4 wavefronts per round, ideal 4
func.func @seed_f32_k8() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %A = memref.alloca() : memref<32x8xf32, #regcopy.layout<auto>, #regcopy.mem<shared>>
  %B = memref.alloca() : memref<32x8xf32, #regcopy.layout<auto>, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %A -> %R : memref<32x8xf32, #regcopy.layout<auto>, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %B : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x8xf32, #regcopy.layout<auto>, #regcopy.mem<shared>>
  func.return
}

// A buffer no copy touches: row-major, and the remark says why.
// CHECK: remark: layout chosen: #regcopy.layout<(16,16):(16,1)> [alloca %U]
// CHECK: no copy reads or writes it: row-major
// CHECK: %U = memref.alloca() : memref<16x16xf32, #regcopy.layout<(16,16):(16,1)>, #regcopy.mem<shared.dyn>>
func.func @untouched() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %U = memref.alloca() : memref<16x16xf32, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  func.return
}
