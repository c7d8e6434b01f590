// An 8-way conflict (32 floats a lane, 8 rounds of 128 bits: 32 wavefronts a round where 4 would
// do) reaches the ideal with a 3-bit rotation, a butterfly of 3 conditional swaps per word: 12
// swaps of chunk pairs, 4 of them multiply-adds (the last stage, next to S: 4 subtractions and 8
// multiplies of vector<4xi32>), the others 16 selects (the values viewed as vector<4xi32>).
// With every swap in selects (fma-swap-share=0), at select-weight 1 a third bit costs as much as
// it saves (both 128), and the fewer stages win: 2 bits; with the default share the third bit
// costs less (80 integer instructions against 52, 32 wavefronts against 64) and still pays.
// RUN: regcopy-opt -p 'lower-reg-copy{remarks}' %s 2>&1 | filecheck %s
// RUN: regcopy-opt -p 'lower-reg-copy' %s | filecheck %s --check-prefix=SEL
// RUN: regcopy-opt -p 'lower-reg-copy' %s | filecheck %s --check-prefix=FMA
// RUN: regcopy-opt -p 'lower-reg-copy{remarks select-weight=1 fma-swap-share=0}' %s -o /dev/null 2>&1 | filecheck %s --check-prefix=ONE
// RUN: regcopy-opt -p 'lower-reg-copy{remarks select-weight=1}' %s -o /dev/null 2>&1 | filecheck %s --check-prefix=ONEFMA

func.func @rows32(%S: memref<32x32xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %A = memref.alloca() : memref<32x32xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x32xf32, #regcopy.layout<(32,32):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %A -> %R : memref<32x32xf32, #regcopy.mem<shared>> -> memref<32x32xf32, #regcopy.layout<(32,32):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK:      vec 4 × f32 (128 bits), 8 rounds
// CHECK:      8-way bank conflict: 32 wavefronts per round, ideal 4; lane-rotated rounds (lane bit 0 -> round ^ 1, lane bit 1 -> round ^ 2, lane bit 2 -> round ^ 4): 4 wavefronts per round, ideal 4, 3 swaps per word, 4 of 12 chunk swaps multiply-add
// SEL-COUNT-16: arith.select {{.*}} : vector<4xi32>
// SEL-NOT:      arith.select {{.*}} : vector<4x
// FMA-COUNT-4:  arith.subi {{.*}} : vector<4xi32>
// FMA-NOT:      arith.subi {{.*}} : vector<4x
// ONE:        8-way bank conflict: 32 wavefronts per round, ideal 4; lane-rotated rounds (lane bit 0 -> round ^ 1, lane bit 1 -> round ^ 2): 8 wavefronts per round, ideal 4, 2 swaps per word
// ONEFMA:     8-way bank conflict: 32 wavefronts per round, ideal 4; lane-rotated rounds (lane bit 0 -> round ^ 1, lane bit 1 -> round ^ 2, lane bit 2 -> round ^ 4): 4 wavefronts per round, ideal 4, 3 swaps per word, 4 of 12 chunk swaps multiply-add
