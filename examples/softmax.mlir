// Row-wise softmax on runtime shapes: Y[r, :] = softmax(X[r, :]) for every row r of an M x N
// bf16 matrix, M and N known only at launch; the math is f32. One warp per row (4 rows a CTA
// of 128 threads); the warp walks its row in chunks of 512 elements: two halves of 256, each
// 8 consecutive elements a lane (layout (2,32,8):(8,1@laneid,1)), so each lane has two
// independent 128-bit loads in flight when the row is 16-byte aligned (N a multiple of 8,
// tested at run time; otherwise narrower transfers).
//
// Two passes over the row (the "online softmax"):
//   1. for each chunk: the warp's maximum c of the chunk (each lane's 16, then 5 xor-shuffles),
//      m' = max(m, c), s = s * 2^((m - m') log2 e) + sum over the chunk of 2^((x - m') log2 e);
//      m and s are loop-carried (scf.for iter_args). After the row: s summed over the warp.
//   2. for each chunk: y = 2^((x - m) log2 e) / s, rounded to bf16, stored.
// Elements past N are never read: the copy gives them the padding -inf (0xFF80 in bf16), whose
// exponential is 0, so the ragged last chunk needs no mask. Rows past M (the last CTA's) are
// off the matrix: their copies read and write nothing.
//
// Launch it with ceil(M / 4) CTAs, e.g.
//   regcopy-run --check --arg X=6x300 --arg Y=6x300 --grid 2 examples/softmax.mlir
func.func @softmax(%X: memref<?x?xbf16, #regcopy.mem<global>>,
                   %Y: memref<?x?xbf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [2]>} {
  %R = memref.alloca() : memref<512xbf16, #regcopy.layout<(2,32,8):(8,1@laneid,1)>, #regcopy.mem<local>>
  %r = regcopy.storage %R : memref<512xbf16, #regcopy.layout<(2,32,8):(8,1@laneid,1)>, #regcopy.mem<local>> -> memref<16xbf16, #regcopy.mem<local>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c512 = arith.constant 512 : index
  %i1 = arith.constant 1 : i32
  %i16 = arith.constant 16 : i32
  %width = arith.constant 32 : i32
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %log2e = arith.constant 1.44269504 : f32
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %warp = arith.divui %tid, %c32 : index
  %rows = arith.muli %bx, %c4 : index
  %row = arith.addi %rows, %warp : index
  %N = memref.dim %X, %c1 : memref<?x?xbf16, #regcopy.mem<global>>
  // Pass 1: the row's maximum m and sum s of 2^((x - m) log2 e), chunk by chunk.
  %m, %s = scf.for %col = %c0 to %N step %c512 iter_args(%m0 = %ninf, %s0 = %zero) -> (f32, f32) {
    regcopy.copy warp %X[%row, %col] [1, 512] -> %R {padding = 0xFF80 : bf16} : memref<?x?xbf16, #regcopy.mem<global>> -> memref<512xbf16, #regcopy.layout<(2,32,8):(8,1@laneid,1)>, #regcopy.mem<local>>
    %lane_max = scf.for %j = %c0 to %c16 step %c1 iter_args(%a = %ninf) -> (f32) {
      %h = memref.load %r[%j] : memref<16xbf16, #regcopy.mem<local>>
      %x = arith.extf %h : bf16 to f32
      %a1 = arith.maximumf %a, %x : f32
      scf.yield %a1 : f32
    }
    %chunk_max, %last = scf.for %k = %c0 to %c5 step %c1 iter_args(%a = %lane_max, %off = %i16) -> (f32, i32) {
      %other, %valid = gpu.shuffle xor %a, %off, %width : f32
      %a1 = arith.maximumf %a, %other : f32
      %off1 = arith.shrui %off, %i1 : i32
      scf.yield %a1, %off1 : f32, i32
    }
    %m1 = arith.maximumf %m0, %chunk_max : f32
    %dm = arith.subf %m0, %m1 : f32
    %dml = arith.mulf %dm, %log2e : f32
    %scale = math.exp2 %dml : f32
    %s1 = arith.mulf %s0, %scale : f32
    %mlog = arith.mulf %m1, %log2e : f32
    %nmlog = arith.negf %mlog : f32
    %s2 = scf.for %j = %c0 to %c16 step %c1 iter_args(%a = %s1) -> (f32) {
      %h = memref.load %r[%j] : memref<16xbf16, #regcopy.mem<local>>
      %x = arith.extf %h : bf16 to f32
      %t = math.fma %x, %log2e, %nmlog : f32
      %e = math.exp2 %t : f32
      %a1 = arith.addf %a, %e : f32
      scf.yield %a1 : f32
    }
    scf.yield %m1, %s2 : f32, f32
  }
  %total, %last2 = scf.for %k = %c0 to %c5 step %c1 iter_args(%a = %s, %off = %i16) -> (f32, i32) {
    %other, %valid = gpu.shuffle xor %a, %off, %width : f32
    %a1 = arith.addf %a, %other : f32
    %off1 = arith.shrui %off, %i1 : i32
    scf.yield %a1, %off1 : f32, i32
  }
  %inv = arith.divf %one, %total : f32
  %mlog = arith.mulf %m, %log2e : f32
  %nmlog = arith.negf %mlog : f32
  // Pass 2: y = 2^((x - m) log2 e) / s, in bf16.
  scf.for %col = %c0 to %N step %c512 {
    regcopy.copy warp %X[%row, %col] [1, 512] -> %R {padding = 0xFF80 : bf16} : memref<?x?xbf16, #regcopy.mem<global>> -> memref<512xbf16, #regcopy.layout<(2,32,8):(8,1@laneid,1)>, #regcopy.mem<local>>
    scf.for %j = %c0 to %c16 step %c1 {
      %h = memref.load %r[%j] : memref<16xbf16, #regcopy.mem<local>>
      %x = arith.extf %h : bf16 to f32
      %t = math.fma %x, %log2e, %nmlog : f32
      %e = math.exp2 %t : f32
      %y = arith.mulf %e, %inv : f32
      %yh = arith.truncf %y : f32 to bf16
      memref.store %yh, %r[%j] : memref<16xbf16, #regcopy.mem<local>>
    }
    regcopy.copy warp %R -> %Y[%row, %col] [1, 512] : memref<512xbf16, #regcopy.layout<(2,32,8):(8,1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xbf16, #regcopy.mem<global>>
  }
  func.return
}
