// An 8-way conflict (32 floats a lane, 8 rounds of 128 bits: 32 wavefronts a round where 4 would
// do) reaches the ideal with a 3-bit rotation, a butterfly of 3 selects per word; at select-weight
// 1 a third bit costs as much as it saves (both 128), and the fewer selects win: 2 bits.
// RUN: regcopy-opt -p 'lower-reg-copy{remarks}' %s 2>&1 | filecheck %s
// RUN: regcopy-opt -p 'lower-reg-copy{remarks select-weight=1}' %s -o /dev/null 2>&1 | filecheck %s --check-prefix=ONE

func.func @rows32(%S: memref<32x32xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %A = memref.alloca() : memref<32x32xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x32xf32, #regcopy.layout<(32,32):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %A -> %R : memref<32x32xf32, #regcopy.mem<shared>> -> memref<32x32xf32, #regcopy.layout<(32,32):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK:      vec 4 × f32 (128 bits), 8 rounds
// CHECK:      8-way bank conflict: 32 wavefronts per round, ideal 4; lane-rotated rounds (lane bit 0 -> round ^ 1, lane bit 1 -> round ^ 2, lane bit 2 -> round ^ 4): 4 wavefronts per round, ideal 4, 3 selects per word
// CHECK-COUNT-24: arith.select {{.*}} : vector<4xf32>
// CHECK-NOT:  arith.select {{.*}} : vector<4xf32>
// ONE:        8-way bank conflict: 32 wavefronts per round, ideal 4; lane-rotated rounds (lane bit 0 -> round ^ 1, lane bit 1 -> round ^ 2): 8 wavefronts per round, ideal 4, 2 selects per word
