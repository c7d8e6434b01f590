// im2col of a 3x3 convolution, f32: out[3*ky + kx, y, x] = img[y + ky, x + kx] for the 64 x 128
// output positions. Each of the 8 CTAs (128 threads) takes 8 output rows from y0 = 8 * block x:
//   1. the threads stage the CTA's 10 x 136 halo of the image in shared memory (a scalar loop,
//      element e = tx, tx + 128, ...), then wait at a barrier;
//   2. for each of the 9 window offsets (ky, kx) the CTA gathers the overlapping 8 x 128 window
//      %S[ky, kx] into registers (dynamic offsets: each window overlaps the previous one) and
//      stores it to %out[3*ky + kx, y0, 0] (dynamic offsets in global memory).
// Register tile: thread tx = 32*b + t owns rows 4*a + b (a < 2) and columns 4*t .. 4*t+3:
// (2,4,32,4):(4,32@tx,1@tx,1), 8 registers.
func.func @im2col(%img: memref<66x136xf32, #regcopy.mem<global>>,
                  %out: memref<9x64x128xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [8]>} {
  %S = memref.alloca() : memref<10x136xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<8x128xf32, #regcopy.layout<(2,4,32,4):(4,32@tx,1@tx,1)>, #regcopy.mem<local>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c136 = arith.constant 136 : index
  %c1360 = arith.constant 1360 : index
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %y0 = arith.muli %bx, %c8 : index
  scf.for %e = %tid to %c1360 step %c128 {
    %r = arith.divui %e, %c136 : index
    %c = arith.remui %e, %c136 : index
    %y = arith.addi %y0, %r : index
    %v = memref.load %img[%y, %c] : memref<66x136xf32, #regcopy.mem<global>>
    memref.store %v, %S[%r, %c] : memref<10x136xf32, #regcopy.mem<shared>>
  }
  "gpu.barrier"() : () -> ()
  scf.for %ky = %c0 to %c3 step %c1 {
    scf.for %kx = %c0 to %c3 step %c1 {
      %k3 = arith.muli %ky, %c3 : index
      %k = arith.addi %k3, %kx : index
      regcopy.copy cta %S[%ky, %kx] [8, 128] -> %R : memref<10x136xf32, #regcopy.mem<shared>> -> memref<8x128xf32, #regcopy.layout<(2,4,32,4):(4,32@tx,1@tx,1)>, #regcopy.mem<local>>
      regcopy.copy cta %R -> %out[%k, %y0, 0] [1, 8, 128] : memref<8x128xf32, #regcopy.layout<(2,4,32,4):(4,32@tx,1@tx,1)>, #regcopy.mem<local>> -> memref<9x64x128xf32, #regcopy.mem<global>>
    }
  }
  func.return
}
