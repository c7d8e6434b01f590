// Row padding for a GEMM of any K: Y[r, c] = X[r, c] for c < K, 0 for K <= c < K8, where K8
// is K rounded up to a multiple of 8 (promised on Y). With K odd no row of X starts 16-byte
// aligned and cp.async cannot read it; after this copy every row of Y does, and the GEMM of
// examples/gemm.mlir runs on the padded A and B (the zero columns add nothing). regcopy
// lowers the copy with its ragged-edge machinery: the read is bounds-checked against K
// (zeros past it) and versioned on K % 8 (128-bit loads when the rows are aligned, 16-bit
// ones otherwise, which the L1 merges per line), the write is 128-bit. @pad_rows (f16) and
// @pad_rows_bf16; launch with ceil(K8 / 256) x ceil(R / 32) CTAs:
//   regcopy-run --check examples/pad_rows.mlir --arg X=40x37 --arg Y=40x40 --grid 1,2
func.func @pad_rows(%X: memref<?x?xf16, #regcopy.mem<global>>,
    %Y: memref<?x?xf16, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>})
    attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [1, 1]>} {
  %R = memref.alloca() : memref<32x256xf16, #regcopy.layout<(4,8,32,8):(8,32@tx,1@tx,1)>, #regcopy.mem<local>>
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
  %r0 = arith.muli %by, %c32 : index
  %k0 = arith.muli %bx, %c256 : index
  regcopy.copy cta %X[%r0, %k0] [32, 256] -> %R : memref<?x?xf16, #regcopy.mem<global>> -> memref<32x256xf16, #regcopy.layout<(4,8,32,8):(8,32@tx,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %R -> %Y[%r0, %k0] [32, 256] : memref<32x256xf16, #regcopy.layout<(4,8,32,8):(8,32@tx,1@tx,1)>, #regcopy.mem<local>> -> memref<?x?xf16, #regcopy.mem<global>>
  func.return
}

func.func @pad_rows_bf16(%X: memref<?x?xbf16, #regcopy.mem<global>>,
    %Y: memref<?x?xbf16, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>})
    attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [1, 1]>} {
  %R = memref.alloca() : memref<32x256xbf16, #regcopy.layout<(4,8,32,8):(8,32@tx,1@tx,1)>, #regcopy.mem<local>>
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
  %r0 = arith.muli %by, %c32 : index
  %k0 = arith.muli %bx, %c256 : index
  regcopy.copy cta %X[%r0, %k0] [32, 256] -> %R : memref<?x?xbf16, #regcopy.mem<global>> -> memref<32x256xbf16, #regcopy.layout<(4,8,32,8):(8,32@tx,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %R -> %Y[%r0, %k0] [32, 256] : memref<32x256xbf16, #regcopy.layout<(4,8,32,8):(8,32@tx,1@tx,1)>, #regcopy.mem<local>> -> memref<?x?xbf16, #regcopy.mem<global>>
  func.return
}
