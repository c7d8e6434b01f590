// The ragged tile copy of bench_ragged (runtime M, N; tile 8 x 1024 f32, 256 threads), for
// regcopy-run --check on the GPU: --arg X=MxN --arg Y=MxN --grid ceil(M/8),ceil(N/1024).
func.func @ragged(%X: memref<?x?xf32, #regcopy.mem<global>>, %Y: memref<?x?xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [1, 1]>} {
  %R = memref.alloca() : memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>>
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
  %cr = arith.constant 8 : index
  %cc = arith.constant 1024 : index
  %row = arith.muli %bx, %cr : index
  %col = arith.muli %by, %cc : index
  regcopy.copy cta %X[%row, %col] [8, 1024] -> %R : memref<?x?xf32, #regcopy.mem<global>> -> memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %R -> %Y[%row, %col] [8, 1024] : memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>> -> memref<?x?xf32, #regcopy.mem<global>>
  func.return
}
