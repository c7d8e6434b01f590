// The strided view copy of lab/gpu/strided.sh: X, Y are views with runtime row strides (no
// promise: versioned on stride % 4). regcopy-run --arg X=MxN:LD.
func.func @view(%X: memref<?x?xf32, strided<[?, 1]>, #regcopy.mem<global>>, %Y: memref<?x?xf32, strided<[?, 1]>, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1, 1]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
  %c32 = arith.constant 32 : index
  %ck = arith.constant 8 : index
  %r = arith.muli %bx, %c32 : index
  %c = arith.muli %by, %ck : index
  regcopy.copy warp %X[%r, %c] [32, 8] -> %R : memref<?x?xf32, strided<[?, 1]>, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %Y[%r, %c] [32, 8] : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xf32, strided<[?, 1]>, #regcopy.mem<global>>
  func.return
}
