// Row-wise layer norm on runtime shapes: Y[r, :] = (X[r, :] - mean) * rsqrt(var + 1e-5) * G + B
// for every row r of an M x N bf16 matrix (G and B: bf16 vectors of N), M and N known only at
// launch; the math is f32. One warp per row (4 rows a CTA of 128 threads), chunks of 512
// elements as in softmax.mlir (layout (2,32,8):(8,1@laneid,1): two 128-bit loads a lane when
// the row is 16-byte aligned).
//
//   1. for each chunk: the lane's sum and sum of squares, carried by scf.for iter_args (the
//      padding past N is 0.0, which adds nothing); after the row, both summed over the warp
//      by gpu.shuffle xor; mean = sum / N, var = sumsq / N - mean^2, rstd = math.rsqrt(var + eps);
//   2. for each chunk: y = fma((x - mean) * rstd, g, b), rounded to bf16, stored.
//
// Launch it with ceil(M / 4) CTAs, e.g.
//   regcopy-run --check --arg X=3x300 --arg G=300 --arg B=300 --arg Y=3x300 --grid 1 examples/layernorm.mlir
func.func @layernorm(%X: memref<?x?xbf16, #regcopy.mem<global>>,
                     %G: memref<?xbf16, #regcopy.mem<global>>,
                     %B: memref<?xbf16, #regcopy.mem<global>>,
                     %Y: memref<?x?xbf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %R = memref.alloca() : memref<512xbf16, #regcopy.layout<(2,32,8):(8,1@laneid,1)>, #regcopy.mem<local>>
  %RG = memref.alloca() : memref<512xbf16, #regcopy.layout<(2,32,8):(8,1@laneid,1)>, #regcopy.mem<local>>
  %RB = memref.alloca() : memref<512xbf16, #regcopy.layout<(2,32,8):(8,1@laneid,1)>, #regcopy.mem<local>>
  %r = regcopy.storage %R : memref<512xbf16, #regcopy.layout<(2,32,8):(8,1@laneid,1)>, #regcopy.mem<local>> -> memref<16xbf16, #regcopy.mem<local>>
  %rg = regcopy.storage %RG : memref<512xbf16, #regcopy.layout<(2,32,8):(8,1@laneid,1)>, #regcopy.mem<local>> -> memref<16xbf16, #regcopy.mem<local>>
  %rb = regcopy.storage %RB : memref<512xbf16, #regcopy.layout<(2,32,8):(8,1@laneid,1)>, #regcopy.mem<local>> -> memref<16xbf16, #regcopy.mem<local>>
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
  %zero = arith.constant 0.0 : f32
  %eps = arith.constant 1.0e-05 : f32
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %warp = arith.divui %tid, %c32 : index
  %rows = arith.muli %bx, %c4 : index
  %row = arith.addi %rows, %warp : index
  %N = memref.dim %X, %c1 : memref<?x?xbf16, #regcopy.mem<global>>
  // Pass 1: this lane's sum and sum of squares.
  %s, %q = scf.for %col = %c0 to %N step %c512 iter_args(%s0 = %zero, %q0 = %zero) -> (f32, f32) {
    regcopy.copy warp %X[%row, %col] [1, 512] -> %R : memref<?x?xbf16, #regcopy.mem<global>> -> memref<512xbf16, #regcopy.layout<(2,32,8):(8,1@laneid,1)>, #regcopy.mem<local>>
    %s1, %q1 = scf.for %j = %c0 to %c16 step %c1 iter_args(%a = %s0, %b = %q0) -> (f32, f32) {
      %h = memref.load %r[%j] : memref<16xbf16, #regcopy.mem<local>>
      %x = arith.extf %h : bf16 to f32
      %a1 = arith.addf %a, %x : f32
      %b1 = math.fma %x, %x, %b : f32
      scf.yield %a1, %b1 : f32, f32
    }
    scf.yield %s1, %q1 : f32, f32
  }
  // The warp's sums: 5 butterfly steps, both sums at once.
  %sum, %sumsq, %last = scf.for %k = %c0 to %c5 step %c1 iter_args(%a = %s, %b = %q, %off = %i16) -> (f32, f32, i32) {
    %oa, %va = gpu.shuffle xor %a, %off, %width : f32
    %ob, %vb = gpu.shuffle xor %b, %off, %width : f32
    %a1 = arith.addf %a, %oa : f32
    %b1 = arith.addf %b, %ob : f32
    %off1 = arith.shrui %off, %i1 : i32
    scf.yield %a1, %b1, %off1 : f32, f32, i32
  }
  %n32 = arith.index_cast %N : index to i32
  %nf = arith.sitofp %n32 : i32 to f32
  %mean = arith.divf %sum, %nf : f32
  %ex2 = arith.divf %sumsq, %nf : f32
  %mm = arith.mulf %mean, %mean : f32
  %var = arith.subf %ex2, %mm : f32
  %ve = arith.addf %var, %eps : f32
  %rstd = math.rsqrt %ve : f32
  // Pass 2: y = (x - mean) * rstd * g + b.
  scf.for %col = %c0 to %N step %c512 {
    regcopy.copy warp %X[%row, %col] [1, 512] -> %R : memref<?x?xbf16, #regcopy.mem<global>> -> memref<512xbf16, #regcopy.layout<(2,32,8):(8,1@laneid,1)>, #regcopy.mem<local>>
    regcopy.copy warp %G[%col] [512] -> %RG : memref<?xbf16, #regcopy.mem<global>> -> memref<512xbf16, #regcopy.layout<(2,32,8):(8,1@laneid,1)>, #regcopy.mem<local>>
    regcopy.copy warp %B[%col] [512] -> %RB : memref<?xbf16, #regcopy.mem<global>> -> memref<512xbf16, #regcopy.layout<(2,32,8):(8,1@laneid,1)>, #regcopy.mem<local>>
    scf.for %j = %c0 to %c16 step %c1 {
      %h = memref.load %r[%j] : memref<16xbf16, #regcopy.mem<local>>
      %x = arith.extf %h : bf16 to f32
      %hg = memref.load %rg[%j] : memref<16xbf16, #regcopy.mem<local>>
      %g = arith.extf %hg : bf16 to f32
      %hb = memref.load %rb[%j] : memref<16xbf16, #regcopy.mem<local>>
      %b = arith.extf %hb : bf16 to f32
      %xc = arith.subf %x, %mean : f32
      %xn = arith.mulf %xc, %rstd : f32
      %y = math.fma %xn, %g, %b : f32
      %yh = arith.truncf %y : f32 to bf16
      memref.store %yh, %r[%j] : memref<16xbf16, #regcopy.mem<local>>
    }
    regcopy.copy warp %R -> %Y[%row, %col] [1, 512] : memref<512xbf16, #regcopy.layout<(2,32,8):(8,1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xbf16, #regcopy.mem<global>>
  }
  func.return
}
