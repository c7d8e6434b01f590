// RUN: regcopy-opt %s --lower-reg-copy | filecheck %s
// RUN: regcopy-opt %s -p 'lower-reg-copy{transfer=vector}' | filecheck %s --check-prefix=VEC
// RUN: regcopy-opt %s -p 'lower-reg-copy{remarks}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: regcopy-opt %s --lower-reg-copy -t cuda | filecheck %s --check-prefix=CUDA
// RUN: xdsl-opt %s -p lower-reg-copy | filecheck %s

// A warp's m16n8k16 A fragment (a{2h+p} = A[g+8h][2c+p], a{4+2h+p} = A[g+8h][2c+8+p],
// g = lane/4, c = lane%4) read from a swizzled 64-column f16 tile at column 16: one
// ldmatrix.x4 (rows conflict-free, same wavefronts as four 32-bit rounds); written back at
// column 4, whose rows start 8 bytes off 16-byte alignment: the per-thread path, with the reason.
func.func @frag(%out: memref<32x8xf16, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<16x64xf16, #regcopy.layout<(16,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S[0, 16] [16, 16] -> %R : memref<16x64xf16, #regcopy.layout<(16,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>> -> memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %S[0, 4] [16, 16] : memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<16x64xf16, #regcopy.layout<(16,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
  func.return
}
// CHECK-LABEL: func.func @frag
// CHECK:         %[[LANE:.*]] = "gpu.lane_id"() : () -> index
// CHECK:         %[[S:.*]] = regcopy.storage %S {{.*}} -> memref<1024xf16, #regcopy.mem<shared>>
// CHECK-NEXT:    %[[R:.*]] = regcopy.storage %R {{.*}} -> memref<8xf16, #regcopy.mem<local>>
// CHECK-NOT:     scf.if
// CHECK:         regcopy.ldmatrix %[[S]][%{{.*}}] -> %[[R]][0, 2, 4, 6] : memref<1024xf16, #regcopy.mem<shared>> -> memref<8xf16, #regcopy.mem<local>>
// CHECK-NOT:     regcopy.stmatrix
// CHECK:         vector.store {{.*}} vector<2xf16>
// CHECK-NOT:     regcopy.copy

// VEC-NOT:       regcopy.ldmatrix
// VEC:           vector.load {{.*}} vector<2xf16>
// VEC-NOT:       regcopy.ldmatrix

// REMARK: remark: ldmatrix.x4 (1 instruction a warp, 16 bytes a lane), 4 registers/thread (8 × f16) [copy %S -> %R in @frag]
// REMARK:      the per-thread path (vec 2) needs 4 shared instructions a warp and 4 wavefronts, ldmatrix 1 and 4
// REMARK: remark: vec 2 × f16 (32 bits), 4 rounds, 4 registers/thread (8 × f16) [copy %R -> %S in @frag]
// REMARK: stmatrix not used: the S slice base is provably a multiple of 8 bytes only, not of 16 (a matrix row must start 16-byte aligned)

// CUDA: asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CUDA-SAME: __cvta_generic_to_shared
