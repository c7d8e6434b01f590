// A row-wise kernel on runtime shapes: Y[r, :] = 2 * X[r, :] + 1 for every row r of an M x N
// f32 matrix, M and N known only at launch. One warp per row (4 rows a CTA of 128 threads);
// the warp walks its row in chunks of 128 elements, 4 per lane. The last chunk is ragged
// (N need not be a multiple of 128), and rows past M (the last CTA's) are off the matrix:
// both copies are bounds-checked, so nothing outside X is read and nothing outside Y is
// written. N carries no divisibility promise, so a row starts 16-byte aligned only when N is
// a multiple of 4 at run time: the copies are versioned on that test (128-bit transfers),
// and otherwise load with 32-bit transfers and store the same 128-bit vectors realigned at
// run time (as aligned 32/64/128-bit pieces, one branch per misalignment).
//
// Launch it with the grid the sizes call for, ceil(M / 4) CTAs, e.g. on the GPU
//   regcopy-run --arg X=1000x4000 --arg Y=1000x4000 --grid 'cdiv(X[0], 4)' examples/rowwise.mlir
// and check it against the CPU interpreter (which runs every thread in Python: a few seconds
// for this size, minutes for the one above) with ragged rows and a misaligned N:
//   regcopy-run --check --arg X=37x1001 --arg Y=37x1001 --grid 'cdiv(X[0], 4)' examples/rowwise.mlir
func.func @rowwise(%X: memref<?x?xf32, #regcopy.mem<global>>,
                   %Y: memref<?x?xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [250]>} {
  %R = memref.alloca() : memref<128xf32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %two = arith.constant dense<2.0> : vector<4xf32>
  %one = arith.constant dense<1.0> : vector<4xf32>
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %warp = arith.divui %tid, %c32 : index
  %rows = arith.muli %bx, %c4 : index
  %row = arith.addi %rows, %warp : index
  %N = memref.dim %X, %c1 : memref<?x?xf32, #regcopy.mem<global>>
  %r = regcopy.storage %R : memref<128xf32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>> -> memref<4xf32, #regcopy.mem<local>>
  scf.for %col = %c0 to %N step %c128 {
    regcopy.copy warp %X[%row, %col] [1, 128] -> %R : memref<?x?xf32, #regcopy.mem<global>> -> memref<128xf32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>
    %x = vector.load %r[%c0] : memref<4xf32, #regcopy.mem<local>>, vector<4xf32>
    %x2 = arith.mulf %x, %two : vector<4xf32>
    %y = arith.addf %x2, %one : vector<4xf32>
    vector.store %y, %r[%c0] : memref<4xf32, #regcopy.mem<local>>, vector<4xf32>
    regcopy.copy warp %R -> %Y[%row, %col] [1, 128] : memref<128xf32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xf32, #regcopy.mem<global>>
  }
  func.return
}
