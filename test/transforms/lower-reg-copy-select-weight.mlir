// The select-weight option sets what one select of a lane rotation costs (in wavefronts): at the
// default 0.25 the 4-way f32 k=16 layout takes a 2-bit rotation (a butterfly of 2 selects a word,
// the ideal 4 wavefronts), at 1 a 1-bit one (1 select a word, 8 wavefronts: both cost 48, and the
// fewer selects win the tie); a negative weight is an error.
// RUN: regcopy-opt -p 'lower-reg-copy{remarks}' %s -o /dev/null 2>&1 | filecheck %s --check-prefix=DEFAULT
// RUN: regcopy-opt -p 'lower-reg-copy{remarks select-weight=1}' %s -o /dev/null 2>&1 | filecheck %s --check-prefix=ONE
// RUN: not regcopy-opt -p 'lower-reg-copy{select-weight=-1}' %s 2>&1 | filecheck %s --check-prefix=BAD

func.func @seed(%S: memref<32x16xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %A = memref.alloca() : memref<32x16xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %A -> %R : memref<32x16xf32, #regcopy.mem<shared>> -> memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// DEFAULT: 4-way bank conflict: 16 wavefronts per round, ideal 4; lane-rotated rounds (lane bit 1 -> round ^ 1, lane bit 2 -> round ^ 2): 4 wavefronts per round, ideal 4, 2 selects per word
// ONE: 4-way bank conflict: 16 wavefronts per round, ideal 4; lane-rotated rounds (lane bit 1 -> round ^ 1): 8 wavefronts per round, ideal 4, 1 select per word
// BAD: select-weight must be a number >= 0
