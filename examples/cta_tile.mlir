// A CTA-scope tile program: each of the 8 blocks of 256 threads moves an 8x1024 f32 row
// block global -> registers -> global. The row offset is dynamic (block id x 8 rows).
// Thread tx owns 4 contiguous floats of each of the 8 rows: columns 4*tx .. 4*tx+3;
// register slot 4*r + c holds row r, column 4*tx + c (32 registers per thread).
func.func @cta_tile(%B: memref<64x1024xf32, #regcopy.mem<global>>,
                    %C: memref<64x1024xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [8]>} {
  %R = memref.alloca() : memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>>
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c8 = arith.constant 8 : index
  %row = arith.muli %bx, %c8 : index
  regcopy.copy cta %B[%row, 0] [8, 1024] -> %R : memref<64x1024xf32, #regcopy.mem<global>> -> memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %R -> %C[%row, 0] [8, 1024] : memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>> -> memref<64x1024xf32, #regcopy.mem<global>>
  func.return
}
