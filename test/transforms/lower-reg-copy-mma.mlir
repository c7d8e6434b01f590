// RUN: regcopy-opt %s --lower-reg-copy | filecheck %s
// RUN: regcopy-opt %s -p 'lower-reg-copy{remarks}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: regcopy-opt %s --lower-reg-copy -t cuda | filecheck %s --check-prefix=CUDA

// regcopy.mma lowered to regcopy.mma_sync: the flat storages of the three register tiles and,
// per instruction in issue order (K steps outermost, then M tiles, then N tiles in a
// serpentine), the element offsets of its operand words. @mma: a 32x16 A (2 m16 tiles,
// register 8 * mi + fragment element), a 16x16 N x K B ({transpose_b}: 2 n8 tiles, register
// 4 * ni + element) and a 32x16 f32 C in a permuted register order (fragment element
// 2h + e of tile (mi, ni) in register mi + 4h + 8ni + 2e: the match reads each word's
// register off the layout). @mma_i8: one m16n8k32 (s8, 4 elements a word). @mma_tf32: two
// m16n8k8 K steps into one accumulator.

func.func @mma(%X: memref<32x16xf16, #regcopy.mem<global>>, %Y: memref<16x16xf16, #regcopy.mem<global>>, %Z: memref<32x16xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %A = memref.alloca() : memref<32x16xf16, #regcopy.layout<(2,2,8,2,4,2):(8,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %B = memref.alloca() : memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(4,4@laneid,2,1@laneid,1)>, #regcopy.mem<local>>
  %C = memref.alloca() : memref<32x16xf32, #regcopy.layout<(2,2,8,2,4,2):(1,4,4@laneid,8,1@laneid,2)>, #regcopy.mem<local>>
  regcopy.copy warp %X -> %A : memref<32x16xf16, #regcopy.mem<global>> -> memref<32x16xf16, #regcopy.layout<(2,2,8,2,4,2):(8,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %Y -> %B : memref<16x16xf16, #regcopy.mem<global>> -> memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(4,4@laneid,2,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %Z -> %C : memref<32x16xf32, #regcopy.mem<global>> -> memref<32x16xf32, #regcopy.layout<(2,2,8,2,4,2):(1,4,4@laneid,8,1@laneid,2)>, #regcopy.mem<local>>
  regcopy.mma warp %A, %B, %C {transpose_b} : memref<32x16xf16, #regcopy.layout<(2,2,8,2,4,2):(8,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>, memref<16x16xf16, #regcopy.layout<(2,8,2,4,2):(4,4@laneid,2,1@laneid,1)>, #regcopy.mem<local>>, memref<32x16xf32, #regcopy.layout<(2,2,8,2,4,2):(1,4,4@laneid,8,1@laneid,2)>, #regcopy.mem<local>>
  regcopy.copy warp %C -> %Z : memref<32x16xf32, #regcopy.layout<(2,2,8,2,4,2):(1,4,4@laneid,8,1@laneid,2)>, #regcopy.mem<local>> -> memref<32x16xf32, #regcopy.mem<global>>
  func.return
}

func.func @mma_i8(%X: memref<16x32xi8, #regcopy.mem<global>>, %Y: memref<32x8xi8, #regcopy.mem<global>>, %Z: memref<16x8xi32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %A = memref.alloca() : memref<16x32xi8, #regcopy.layout<(2,8,2,4,4):(4,4@laneid,8,1@laneid,1)>, #regcopy.mem<local>>
  %B = memref.alloca() : memref<32x8xi8, #regcopy.layout<(2,4,4,8):(4,1@laneid,1,4@laneid)>, #regcopy.mem<local>>
  %C = memref.alloca() : memref<16x8xi32, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %X -> %A : memref<16x32xi8, #regcopy.mem<global>> -> memref<16x32xi8, #regcopy.layout<(2,8,2,4,4):(4,4@laneid,8,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %Y -> %B : memref<32x8xi8, #regcopy.mem<global>> -> memref<32x8xi8, #regcopy.layout<(2,4,4,8):(4,1@laneid,1,4@laneid)>, #regcopy.mem<local>>
  regcopy.copy warp %Z -> %C : memref<16x8xi32, #regcopy.mem<global>> -> memref<16x8xi32, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.mma warp %A, %B, %C : memref<16x32xi8, #regcopy.layout<(2,8,2,4,4):(4,4@laneid,8,1@laneid,1)>, #regcopy.mem<local>>, memref<32x8xi8, #regcopy.layout<(2,4,4,8):(4,1@laneid,1,4@laneid)>, #regcopy.mem<local>>, memref<16x8xi32, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %C -> %Z : memref<16x8xi32, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>> -> memref<16x8xi32, #regcopy.mem<global>>
  func.return
}

func.func @mma_tf32(%X: memref<16x16xf32, #regcopy.mem<global>>, %Y: memref<8x16xf32, #regcopy.mem<global>>, %Z: memref<16x8xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %A = memref.alloca() : memref<16x16xf32, #regcopy.layout<(2,8,2,2,4):(1,4@laneid,4,2,1@laneid)>, #regcopy.mem<local>>
  %B = memref.alloca() : memref<8x16xf32, #regcopy.layout<(8,2,2,4):(4@laneid,2,1,1@laneid)>, #regcopy.mem<local>>
  %C = memref.alloca() : memref<16x8xf32, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %X -> %A : memref<16x16xf32, #regcopy.mem<global>> -> memref<16x16xf32, #regcopy.layout<(2,8,2,2,4):(1,4@laneid,4,2,1@laneid)>, #regcopy.mem<local>>
  regcopy.copy warp %Y -> %B : memref<8x16xf32, #regcopy.mem<global>> -> memref<8x16xf32, #regcopy.layout<(8,2,2,4):(4@laneid,2,1,1@laneid)>, #regcopy.mem<local>>
  regcopy.copy warp %Z -> %C : memref<16x8xf32, #regcopy.mem<global>> -> memref<16x8xf32, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.mma warp %A, %B, %C {transpose_b, precision = tf32} : memref<16x16xf32, #regcopy.layout<(2,8,2,2,4):(1,4@laneid,4,2,1@laneid)>, #regcopy.mem<local>>, memref<8x16xf32, #regcopy.layout<(8,2,2,4):(4@laneid,2,1,1@laneid)>, #regcopy.mem<local>>, memref<16x8xf32, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %C -> %Z : memref<16x8xf32, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>> -> memref<16x8xf32, #regcopy.mem<global>>
  func.return
}

// CHECK-LABEL: func.func @mma(
// CHECK:       regcopy.mma_sync %{{.*}}, %{{.*}}, %{{.*}} {a_regs = array<i64: 0, 2, 4, 6, 0, 2, 4, 6, 8, 10, 12, 14, 8, 10, 12, 14>, b_regs = array<i64: 0, 2, 4, 6, 4, 6, 0, 2>, c_regs = array<i64: 0, 2, 4, 6, 8, 10, 12, 14, 9, 11, 13, 15, 1, 3, 5, 7>} : memref<16xf16, #regcopy.mem<local>>, memref<8xf16, #regcopy.mem<local>>, memref<16xf32, #regcopy.mem<local>>
// CHECK-NOT:   regcopy.mma warp
// CHECK-LABEL: func.func @mma_i8(
// CHECK:       regcopy.mma_sync %{{.*}}, %{{.*}}, %{{.*}} {a_regs = array<i64: 0, 4, 8, 12>, b_regs = array<i64: 0, 4>, c_regs = array<i64: 0, 1, 2, 3>} : memref<16xi8, #regcopy.mem<local>>, memref<8xi8, #regcopy.mem<local>>, memref<4xi32, #regcopy.mem<local>>
// CHECK-LABEL: func.func @mma_tf32(
// CHECK:       regcopy.mma_sync %{{.*}}, %{{.*}}, %{{.*}} {a_regs = array<i64: 0, 1, 2, 3, 4, 5, 6, 7>, b_regs = array<i64: 0, 1, 2, 3>, c_regs = array<i64: 0, 1, 2, 3, 0, 1, 2, 3>}

// REMARK: remark: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32: 4 instructions, registers A 8, B 4, C 16 (32-bit words a lane) [mma %A, %B, %C in @mma]
// REMARK: tiles: A 2x1, B 2x1, C 2x2 instruction tiles; first instruction's words: A [0, 2, 4, 6], B [0, 2], C [0, 2, 4, 6]
// REMARK: remark: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32: 1 instructions, registers A 4, B 2, C 4 (32-bit words a lane) [mma %A, %B, %C in @mma_i8]
// REMARK: remark: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32: 2 instructions, registers A 8, B 4, C 4 (32-bit words a lane) [mma %A, %B, %C in @mma_tf32]

// CUDA-LABEL: void __launch_bounds__(32) mma(
// CUDA: asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};" : "+f"([[C:[A-Za-z_0-9]+]][0]), "+f"([[C]][2]), "+f"([[C]][4]), "+f"([[C]][6]) : "r"(*reinterpret_cast<uint32_t*>(&[[A:[A-Za-z_0-9]+]][0])), "r"(*reinterpret_cast<uint32_t*>(&[[A]][2])), "r"(*reinterpret_cast<uint32_t*>(&[[A]][4])), "r"(*reinterpret_cast<uint32_t*>(&[[A]][6])), "r"(*reinterpret_cast<uint32_t*>(&[[B:[A-Za-z_0-9]+]][0])), "r"(*reinterpret_cast<uint32_t*>(&[[B]][2])));
// CUDA-COUNT-3: asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CUDA-LABEL: mma_i8(
// CUDA: asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};" : "+r"({{.*}}[0]), "+r"({{.*}}[1]), "+r"({{.*}}[2]), "+r"({{.*}}[3])
// CUDA-LABEL: mma_tf32(
// CUDA-COUNT-2: asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
