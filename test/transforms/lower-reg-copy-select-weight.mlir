// The select-weight option sets what one integer-pipe instruction of a lane rotation's butterfly
// costs (in wavefronts; a select, or the subtraction of a multiply-add swap): at the default 0.25
// the 4-way f32 k=16 layout takes a 2-bit rotation (a butterfly of 2 swaps a word, 1 of its 4
// chunk swaps a multiply-add: 28 integer instructions, the ideal 4 wavefronts a round), at 1 a
// 1-bit one (12 instructions, 8 wavefronts a round: both cost 44, and the fewer stages win the
// tie); a negative weight is an error, and so is an fma-swap-share outside [0, 1].
// RUN: regcopy-opt -p 'lower-reg-copy{remarks}' %s -o /dev/null 2>&1 | filecheck %s --check-prefix=DEFAULT
// RUN: regcopy-opt -p 'lower-reg-copy{remarks select-weight=1}' %s -o /dev/null 2>&1 | filecheck %s --check-prefix=ONE
// RUN: not regcopy-opt -p 'lower-reg-copy{select-weight=-1}' %s 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not regcopy-opt -p 'lower-reg-copy{fma-swap-share=2}' %s 2>&1 | filecheck %s --check-prefix=BADSHARE

func.func @seed(%S: memref<32x16xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %A = memref.alloca() : memref<32x16xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %A -> %R : memref<32x16xf32, #regcopy.mem<shared>> -> memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// DEFAULT: 4-way bank conflict: 16 wavefronts per round, ideal 4; lane-rotated rounds (lane bit 1 -> round ^ 1, lane bit 2 -> round ^ 2): 4 wavefronts per round, ideal 4, 2 swaps per word, 1 of 4 chunk swaps multiply-add
// ONE: 4-way bank conflict: 16 wavefronts per round, ideal 4; lane-rotated rounds (lane bit 1 -> round ^ 1): 8 wavefronts per round, ideal 4, 1 swap per word, 1 of 2 chunk swaps multiply-add
// BAD: select-weight must be a number >= 0
// BADSHARE: fma-swap-share must be a number from 0 to 1
