// Local-memory traffic is warned about. Each of 256 threads holds 128 f32 of a 32x1024 tile,
// all loaded before the barrier and stored after it. Under __launch_bounds__(256, 2) ptxas
// may give a thread 128 registers: it spills (LDL/STL), and -t sass says so on stderr, with
// the fix; under min_blocks = 1 the tile fits in registers and nothing is said.
// RUN: regcopy-opt %s | filecheck %s --check-prefix=IR
// RUN: regcopy-opt %s --lower-reg-copy -t cuda | filecheck %s --check-prefix=CUDA
// RUN: regcopy-opt %s --lower-reg-copy -t sass 2>&1 >/dev/null | filecheck %s --check-prefix=WARN

// IR:    #regcopy.launch<block = 256, grid = [1], min_blocks = 2>
// IR:    #regcopy.launch<block = 256, grid = [1], min_blocks = 1>
// CUDA:  void __launch_bounds__(256, 2) spill_tile(
// CUDA:  void __launch_bounds__(256, 1) fits(
// WARN:      warning: kernel spill_tile uses local memory: {{[0-9]+}} LDL/STL in its SASS ({{[0-9]+}} LDL, {{[0-9]+}} STL) with {{[0-9]+}} registers under __launch_bounds__(256, 2); set min_blocks = 1 in its #regcopy.launch (up to 255 registers a thread) or use a smaller register tile
// WARN-NOT:  fits

func.func @spill_tile(%B: memref<64x1024xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [1], min_blocks = 2>} {
  %R = memref.alloca() : memref<32x1024xf32, #regcopy.layout<(32,256,4):(4,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %B[0, 0] [32, 1024] -> %R : memref<64x1024xf32, #regcopy.mem<global>> -> memref<32x1024xf32, #regcopy.layout<(32,256,4):(4,1@tx,1)>, #regcopy.mem<local>>
  "gpu.barrier"() : () -> ()
  regcopy.copy cta %R -> %B[32, 0] [32, 1024] : memref<32x1024xf32, #regcopy.layout<(32,256,4):(4,1@tx,1)>, #regcopy.mem<local>> -> memref<64x1024xf32, #regcopy.mem<global>>
  func.return
}

func.func @fits(%B: memref<64x1024xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [1], min_blocks = 1>} {
  %R = memref.alloca() : memref<32x1024xf32, #regcopy.layout<(32,256,4):(4,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %B[0, 0] [32, 1024] -> %R : memref<64x1024xf32, #regcopy.mem<global>> -> memref<32x1024xf32, #regcopy.layout<(32,256,4):(4,1@tx,1)>, #regcopy.mem<local>>
  "gpu.barrier"() : () -> ()
  regcopy.copy cta %R -> %B[32, 0] [32, 1024] : memref<32x1024xf32, #regcopy.layout<(32,256,4):(4,1@tx,1)>, #regcopy.mem<local>> -> memref<64x1024xf32, #regcopy.mem<global>>
  func.return
}
