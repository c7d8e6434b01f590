// RUN: regcopy-opt %s --lower-reg-copy | filecheck %s
// RUN: regcopy-opt %s --lower-reg-copy -t cuda | filecheck %s --check-prefix=CUDA

// regcopy.wgmma lowered to regcopy.wgmma_async. Each kernel reads a 64x32 A (K-major, 64B
// swizzle: LBO 16, SBO 8 rows x 64 B = 512) and a B in one of wgmma's canonical layouts; the
// expected descriptor constant is written out by hand from the PTX ISA's fields: layout type
// in bits 62-63 (128B 1, 64B 2, 32B 3, none 0), SBO >> 4 in bits 32-45, LBO >> 4 in bits
// 16-29 (as a signed i64). K-major swizzled: rows W bytes apart, 8-row groups SBO = 8 W apart,
// LBO unused (16); k16 steps 32 bytes apart inside a row (or the next K panel). K-major
// without swizzle: core matrices of 8 rows x 16 B, LBO along K, SBO along N. MN-major
// swizzled: 8 K-rows of W bytes of N, SBO = 8 W between 8-row K groups; without swizzle
// 8 K-rows x 16 B core matrices, LBO along K and SBO along N.

// k128: type 1, LBO 16, SBO 1024 -> 4611686293305360384
// CHECK-LABEL: func.func @k128
// CHECK:       regcopy.wgmma_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], %{{.*}} {{.*}}b_desc = 4611686293305360384 : i64, b_starts = array<i64: 0, 32>
func.func @k128() attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %As = memref.alloca() : memref<64x32xf16, #regcopy.layout<(64,32):(32,1), swizzle<3,2,3>>, #regcopy.mem<shared>>
  %Bs = memref.alloca() : memref<64x64xf16, #regcopy.layout<(64,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
  %C = memref.alloca() : memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.wgmma warpgroup %As[0, 0] [64, 32], %Bs[0, 0] [64, 32], %C {transpose_b} : memref<64x32xf16, #regcopy.layout<(64,32):(32,1), swizzle<3,2,3>>, #regcopy.mem<shared>>, memref<64x64xf16, #regcopy.layout<(64,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>, memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  func.return
}

// k64: type 2, LBO 16, SBO 512 -> -9223371899415756800
// CHECK-LABEL: func.func @k64
// CHECK:       regcopy.wgmma_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], %{{.*}} {{.*}}b_desc = -9223371899415756800 : i64, b_starts = array<i64: 0, 32>
func.func @k64() attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %As = memref.alloca() : memref<64x32xf16, #regcopy.layout<(64,32):(32,1), swizzle<3,2,3>>, #regcopy.mem<shared>>
  %Bs = memref.alloca() : memref<64x32xf16, #regcopy.layout<(64,32):(32,1), swizzle<3,2,3>>, #regcopy.mem<shared>>
  %C = memref.alloca() : memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.wgmma warpgroup %As[0, 0] [64, 32], %Bs[0, 0] [64, 32], %C {transpose_b} : memref<64x32xf16, #regcopy.layout<(64,32):(32,1), swizzle<3,2,3>>, #regcopy.mem<shared>>, memref<64x32xf16, #regcopy.layout<(64,32):(32,1), swizzle<3,2,3>>, #regcopy.mem<shared>>, memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  func.return
}

// k32: type 3, LBO 16, SBO 256 -> -4611685949707845632
// CHECK-LABEL: func.func @k32
// CHECK:       regcopy.wgmma_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], %{{.*}} {{.*}}b_desc = -4611685949707845632 : i64, b_starts = array<i64: 0, 2048>
func.func @k32() attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %As = memref.alloca() : memref<64x32xf16, #regcopy.layout<(64,32):(32,1), swizzle<3,2,3>>, #regcopy.mem<shared>>
  %Bs = memref.alloca() : memref<64x32xf16, #regcopy.layout<(64,2,16):(16,1024,1), swizzle<3,1,3>>, #regcopy.mem<shared>>
  %C = memref.alloca() : memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.wgmma warpgroup %As[0, 0] [64, 32], %Bs[0, 0] [64, 32], %C {transpose_b} : memref<64x32xf16, #regcopy.layout<(64,32):(32,1), swizzle<3,2,3>>, #regcopy.mem<shared>>, memref<64x32xf16, #regcopy.layout<(64,2,16):(16,1024,1), swizzle<3,1,3>>, #regcopy.mem<shared>>, memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  func.return
}

// knone: type 0, LBO 128, SBO 512 -> 137439477760
// CHECK-LABEL: func.func @knone
// CHECK:       regcopy.wgmma_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], %{{.*}} {{.*}}b_desc = 137439477760 : i64, b_starts = array<i64: 0, 256>
func.func @knone() attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %As = memref.alloca() : memref<64x32xf16, #regcopy.layout<(64,32):(32,1), swizzle<3,2,3>>, #regcopy.mem<shared>>
  %Bs = memref.alloca() : memref<64x32xf16, #regcopy.layout<(8,8,4,8):(256,8,64,1)>, #regcopy.mem<shared>>
  %C = memref.alloca() : memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.wgmma warpgroup %As[0, 0] [64, 32], %Bs[0, 0] [64, 32], %C {transpose_b} : memref<64x32xf16, #regcopy.layout<(64,32):(32,1), swizzle<3,2,3>>, #regcopy.mem<shared>>, memref<64x32xf16, #regcopy.layout<(8,8,4,8):(256,8,64,1)>, #regcopy.mem<shared>>, memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  func.return
}

// mn128: type 1, LBO 16, SBO 1024 -> 4611686293305360384
// CHECK-LABEL: func.func @mn128
// CHECK:       regcopy.wgmma_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], %{{.*}} {{.*}}b_desc = 4611686293305360384 : i64, b_starts = array<i64: 0, 2048>
func.func @mn128() attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %As = memref.alloca() : memref<64x32xf16, #regcopy.layout<(64,32):(32,1), swizzle<3,2,3>>, #regcopy.mem<shared>>
  %Bs = memref.alloca() : memref<32x64xf16, #regcopy.layout<(32,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
  %C = memref.alloca() : memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.wgmma warpgroup %As[0, 0] [64, 32], %Bs[0, 0] [32, 64], %C : memref<64x32xf16, #regcopy.layout<(64,32):(32,1), swizzle<3,2,3>>, #regcopy.mem<shared>>, memref<32x64xf16, #regcopy.layout<(32,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>, memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  func.return
}

// mnnone: type 0, LBO 1024, SBO 128 -> 34363932672
// CHECK-LABEL: func.func @mnnone
// CHECK:       regcopy.wgmma_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], %{{.*}} {{.*}}b_desc = 34363932672 : i64, b_starts = array<i64: 0, 2048>
func.func @mnnone() attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %As = memref.alloca() : memref<64x32xf16, #regcopy.layout<(64,32):(32,1), swizzle<3,2,3>>, #regcopy.mem<shared>>
  %Bs = memref.alloca() : memref<32x64xf16, #regcopy.layout<(4,8,8,8):(512,8,64,1)>, #regcopy.mem<shared>>
  %C = memref.alloca() : memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.wgmma warpgroup %As[0, 0] [64, 32], %Bs[0, 0] [32, 64], %C : memref<64x32xf16, #regcopy.layout<(64,32):(32,1), swizzle<3,2,3>>, #regcopy.mem<shared>>, memref<32x64xf16, #regcopy.layout<(4,8,8,8):(512,8,64,1)>, #regcopy.mem<shared>>, memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  func.return
}

// regs: A from registers (k16 steps' words 0,2,4,6 then 8,...), {async}, then a wait.
// CHECK-LABEL: func.func @regs
// CHECK:       regcopy.wgmma_async %{{.*}}, %{{.*}}[%{{.*}}], %{{.*}} {async, {{.*}}a_regs = array<i64: 0, 2, 4, 6, 8, 10, 12, 14>}
// CHECK-NEXT:  regcopy.wgmma_wait {pending = 0 : i64}
// CUDA-LABEL: void __launch_bounds__(128) regs(
// CUDA:        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
// CUDA:        wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, {{.*}}, %31}, {%32, %33, %34, %35}, %36, p, 1, 1, 0;
// CUDA-SAME:   (0x8000002000010000ull | (((unsigned long long)__cvta_generic_to_shared(&{{.*}}) & 0x3FFFFull) >> 4))
// CUDA:        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
// CUDA-NEXT:   asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
// CUDA-NEXT:   asm volatile("" : "+f"(C[0]) :: "memory");
func.func @regs(%X: memref<64x32xf16, #regcopy.mem<global>>, %Z: memref<64x64xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %A = memref.alloca() : memref<64x32xf16, #regcopy.layout<(4,2,8,2,2,4,2):(1@wid_in_wg,2,4@laneid,8,4,1@laneid,1)>, #regcopy.mem<local>>
  %Bs = memref.alloca() : memref<64x32xf16, #regcopy.layout<(64,32):(32,1), swizzle<3,2,3>>, #regcopy.mem<shared>>
  %C = memref.alloca() : memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warpgroup %X -> %A : memref<64x32xf16, #regcopy.mem<global>> -> memref<64x32xf16, #regcopy.layout<(4,2,8,2,2,4,2):(1@wid_in_wg,2,4@laneid,8,4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.wgmma warpgroup %A, %Bs[0, 0] [64, 32], %C {transpose_b, async} : memref<64x32xf16, #regcopy.layout<(4,2,8,2,2,4,2):(1@wid_in_wg,2,4@laneid,8,4,1@laneid,1)>, #regcopy.mem<local>>, memref<64x32xf16, #regcopy.layout<(64,32):(32,1), swizzle<3,2,3>>, #regcopy.mem<shared>>, memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.wgmma_wait {pending = 0 : i64}
  regcopy.copy warpgroup %C -> %Z : memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<64x64xf32, #regcopy.mem<global>>
  func.return
}
