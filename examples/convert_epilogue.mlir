// The GEMM epilogue's layout change: a warp's mma.sync m16n8 accumulators (four of them side by
// side: a 16x32 tile; lane 4g+q holds rows g and g+8, columns 8n+2q and 8n+2q+1 of tile n) become
// rows of 128-bit chunks (lane 2r+h holds row r, columns 16h..16h+15), which then leave with
// 128-bit stores. One regcopy.copy between the two register tiles does it; lower-reg-copy picks
// the movement (with remarks it says which): warp shuffles or the shared round trip for f32, a
// round trip with one stmatrix for bf16, whose pairs of columns travel as one 32-bit word.
func.func @acc_to_rows_f32(%C: memref<16x32xf32, #regcopy.mem<global>>,
                           %out: memref<16x32xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %acc = memref.alloca() : memref<16x32xf32, #regcopy.layout<(2,8,4,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %rows = memref.alloca() : memref<16x32xf32, #regcopy.layout<(16,2,4,4):(2@laneid,1@laneid,4,1)>, #regcopy.mem<local>>
  regcopy.copy warp %C -> %acc : memref<16x32xf32, #regcopy.mem<global>> -> memref<16x32xf32, #regcopy.layout<(2,8,4,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %acc -> %rows : memref<16x32xf32, #regcopy.layout<(2,8,4,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<16x32xf32, #regcopy.layout<(16,2,4,4):(2@laneid,1@laneid,4,1)>, #regcopy.mem<local>>
  regcopy.copy warp %rows -> %out : memref<16x32xf32, #regcopy.layout<(16,2,4,4):(2@laneid,1@laneid,4,1)>, #regcopy.mem<local>> -> memref<16x32xf32, #regcopy.mem<global>>
  func.return
}

func.func @acc_to_rows_bf16(%C: memref<16x32xbf16, #regcopy.mem<global>>,
                            %out: memref<16x32xbf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %acc = memref.alloca() : memref<16x32xbf16, #regcopy.layout<(2,8,4,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %rows = memref.alloca() : memref<16x32xbf16, #regcopy.layout<(16,2,2,8):(2@laneid,1@laneid,8,1)>, #regcopy.mem<local>>
  regcopy.copy warp %C -> %acc : memref<16x32xbf16, #regcopy.mem<global>> -> memref<16x32xbf16, #regcopy.layout<(2,8,4,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %acc -> %rows : memref<16x32xbf16, #regcopy.layout<(2,8,4,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<16x32xbf16, #regcopy.layout<(16,2,2,8):(2@laneid,1@laneid,8,1)>, #regcopy.mem<local>>
  regcopy.copy warp %rows -> %out : memref<16x32xbf16, #regcopy.layout<(16,2,2,8):(2@laneid,1@laneid,8,1)>, #regcopy.mem<local>> -> memref<16x32xbf16, #regcopy.mem<global>>
  func.return
}
