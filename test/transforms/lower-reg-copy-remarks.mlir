// Remarks that say what the lowering does: registers counted as 32-bit registers (elements
// too when they are not 32-bit), singular and plural right, a forced ld/stmatrix described as
// forced, and the wavefronts against the ideal on every shared-side copy.
// RUN: regcopy-opt %s -p 'lower-reg-copy{remarks}' 2>&1 >/dev/null | filecheck %s
// RUN: regcopy-opt %s -p 'lower-reg-copy{remarks transfer=matrix}' 2>&1 >/dev/null | filecheck %s --check-prefix=MATRIX

// 64 i8 a thread are 16 registers (not 64).
func.func @thread_i8(%G: memref<16x64xi8, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<2x32xi8, #regcopy.mem<local>>
  regcopy.copy thread %G[4, 32] [2, 32] -> %R : memref<16x64xi8, #regcopy.mem<global>> -> memref<2x32xi8, #regcopy.mem<local>>
  func.return
}
// CHECK: remark: vec 16 × i8 (128 bits), 4 rounds, 16 registers/thread (64 × i8) [copy %G -> %R in @thread_i8]

// One thread reading shared memory: the bank verdict is stated too.
func.func @thread_shared() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<8xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<8xf32, #regcopy.mem<local>>
  regcopy.copy thread %S -> %R : memref<8xf32, #regcopy.mem<shared>> -> memref<8xf32, #regcopy.mem<local>>
  func.return
}
// CHECK: remark: vec 4 × f32 (128 bits), 2 rounds, 8 registers/thread [copy %S -> %R in @thread_shared]
// CHECK:      no bank conflict: 1 wavefront per round, ideal 1

// One 8x8 f16 matrix: ldmatrix.x1 is no fewer instructions than one 32-bit round, so auto
// keeps the per-thread path; transfer=matrix takes ldmatrix and says why auto would not.
func.func @one_matrix() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<8x8xf16, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<8x8xf16, #regcopy.layout<(8,4,2):(4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S -> %R : memref<8x8xf16, #regcopy.mem<shared>> -> memref<8x8xf16, #regcopy.layout<(8,4,2):(4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: remark: vec 2 × f16 (32 bits), 1 round, 1 register/thread (2 × f16) [copy %S -> %R in @one_matrix]
// CHECK: ldmatrix not used: ldmatrix.x1 (1 instruction a warp, 4 bytes a lane) is no fewer instructions; the per-thread path (vec 2) needs 1 shared instruction a warp
// CHECK:      no bank conflict: 1 wavefront per round, ideal 1
// MATRIX: remark: ldmatrix.x1 (1 instruction a warp, 4 bytes a lane), 1 register/thread (2 × f16) [copy %S -> %R in @one_matrix]
// MATRIX:      ldmatrix taken as transfer=matrix asks; transfer=auto would take the per-thread path (ldmatrix is no fewer instructions); the per-thread path (vec 2) needs 1 shared instruction a warp and 1 wavefront, ldmatrix 1 and 1
// MATRIX:      no bank conflict: 1 wavefront per instruction, ideal 1
// MATRIX-NOT: not used

// The m16n8k16 A fragment from an unswizzled 16-column tile: ldmatrix's rows are 32 bytes
// apart (2-way conflicts) while lane-rotated 32-bit rounds are conflict-free.
func.func @conflicted_rows() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<16x16xf16, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S -> %R : memref<16x16xf16, #regcopy.mem<shared>> -> memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: remark: vec 2 × f16 (32 bits), 4 rounds, 4 registers/thread (8 × f16) [copy %S -> %R in @conflicted_rows]
// CHECK: ldmatrix not used: ldmatrix.x4 (1 instruction a warp, 16 bytes a lane) needs 8 wavefronts (bank conflicts between its rows); the per-thread path (vec 2) needs 4 shared instructions a warp and 4 wavefronts
// CHECK:      2-way bank conflict: 2 wavefronts per round, ideal 1; lane-rotated rounds ({{.*}}): 1 wavefront per round, ideal 1, 1 swap per word
// MATRIX: remark: ldmatrix.x4 (1 instruction a warp, 16 bytes a lane), 4 registers/thread (8 × f16) [copy %S -> %R in @conflicted_rows]
// MATRIX:      ldmatrix taken as transfer=matrix asks; transfer=auto would take the per-thread path (ldmatrix needs more wavefronts: bank conflicts between its rows); the per-thread path (vec 2) needs 4 shared instructions a warp and 4 wavefronts, ldmatrix 1 and 8
// MATRIX:      2-way bank conflict: 8 wavefronts per instruction, ideal 4
