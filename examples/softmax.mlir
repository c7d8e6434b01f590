// Row-wise softmax on runtime shapes: Y[r, :] = softmax(X[r, :]) for every row r of an M x N
// bf16 matrix, M and N known only at launch; the math is f32. A family of kernels, picked by
// the row length N (python -m regcopy_bench.bench_softmax does; each is compiled once for
// every N of its class):
//
//   kernel        rows       threads a row   CTA         grid
//   softmax_1k    N <= 1024     32 (a warp)  128 (4 rows) ceil(M / 4)
//   softmax_4k    N <= 4096    128            128          M
//   softmax_8k    N <= 8192    256            256          M
//   softmax_16k   N <= 16384   512            512          M
//   softmax       any N         32 (a warp)  128 (4 rows) ceil(M / 4)
//
// The first four hold the whole row in registers: one read, one write. Each thread owns 32
// elements of its row, four pieces of 8 consecutive ones (layout (4,T,8):(8,1@laneid|tx,1):
// piece k of the row's 32 T elements is one coalesced access of all T threads), copied by ONE
// bounds-checked regcopy.copy of the tile [1, 32 T]: elements past N are not read and hold the
// padding -inf (0xFF80 in bf16), whose exponential is 0 and which never wins a maximum; rows
// past M (the 4-row CTA's last warps) read and write nothing. Each piece is one 128-bit load
// when the row is 16-byte aligned (N a multiple of 8, tested at run time), so a thread has
// four independent loads in flight. Then:
//   1. the thread's maximum of its 32, the row's maximum m over the warp (5 gpu.shuffle xor)
//      and, with several warps a row, over the warps (each warp's lane 0 stores its maximum
//      in shared memory, gpu.barrier, every thread reads them all);
//   2. e = 2^((x - m) log2 e) (math.fma + math.exp2), kept in 32 f32 registers; their sum s,
//      over the warp and the warps as the maximum;
//   3. y = e * (1 / s), rounded to bf16 in the register tile, stored by one bounds-checked
//      copy (elements past N are not written).
//
// `softmax` takes any N: the warp walks its row in chunks of 512 elements, in two passes (the
// "online softmax"), so it reads each row twice:
//   1. for each chunk: the warp's maximum c of the chunk (each lane's 16, then 5 xor-shuffles),
//      m' = max(m, c), s = s * 2^((m - m') log2 e) + sum over the chunk of 2^((x - m') log2 e);
//      m and s are loop-carried (scf.for iter_args). After the row: s summed over the warp.
//   2. for each chunk: y = 2^((x - m) log2 e) / s, rounded to bf16, stored.
// Its chunks are two halves of 256, each 8 consecutive elements a lane (layout
// (2,32,8):(8,1@laneid,1)).
//
// A kernel given a row longer than its class computes a wrong softmax (the row's tail is
// neither read nor written): pick by N as in the table. regcopy-run runs every kernel of the
// file with the same grid; a grid of M covers every row for all of them (the 4-row kernels'
// extra CTAs are past M and touch nothing), e.g. (N = 300: every kernel's class)
//   regcopy-run --check --arg X=3x300 --arg Y=3x300 --grid 3 examples/softmax.mlir
func.func @softmax_1k(%X: memref<?x?xbf16, #regcopy.mem<global>>,
                     %Y: memref<?x?xbf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [2]>} {
  %R = memref.alloca() : memref<1024xbf16, #regcopy.layout<(4,32,8):(8,1@laneid,1)>, #regcopy.mem<local>>
  %r = regcopy.storage %R : memref<1024xbf16, #regcopy.layout<(4,32,8):(8,1@laneid,1)>, #regcopy.mem<local>> -> memref<32xbf16, #regcopy.mem<local>>
  %E = memref.alloca() : memref<32xf32, #regcopy.mem<local>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c32 = arith.constant 32 : index
  %i1 = arith.constant 1 : i32
  %i16 = arith.constant 16 : i32
  %width = arith.constant 32 : i32
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %log2e = arith.constant 1.44269504 : f32
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c4 = arith.constant 4 : index
  %warp = arith.divui %tid, %c32 : index
  %rows = arith.muli %bx, %c4 : index
  %row = arith.addi %rows, %warp : index
  // The whole row, once: elements past N are not read and hold -inf.
  regcopy.copy warp %X[%row, %c0] [1, 1024] -> %R {padding = 0xFF80 : bf16} : memref<?x?xbf16, #regcopy.mem<global>> -> memref<1024xbf16, #regcopy.layout<(4,32,8):(8,1@laneid,1)>, #regcopy.mem<local>>
  %tmax = scf.for %j = %c0 to %c32 step %c1 iter_args(%a = %ninf) -> (f32) {
    %h = memref.load %r[%j] : memref<32xbf16, #regcopy.mem<local>>
    %x = arith.extf %h : bf16 to f32
    %a1 = arith.maximumf %a, %x : f32
    scf.yield %a1 : f32
  }
  %m, %m_off = scf.for %k = %c0 to %c5 step %c1 iter_args(%a = %tmax, %off = %i16) -> (f32, i32) {
    %other, %valid = gpu.shuffle xor %a, %off, %width : f32
    %a1 = arith.maximumf %a, %other : f32
    %off1 = arith.shrui %off, %i1 : i32
    scf.yield %a1, %off1 : f32, i32
  }
  %mlog = arith.mulf %m, %log2e : f32
  %nmlog = arith.negf %mlog : f32
  // e = 2^((x - m) log2 e), kept in f32 registers; this thread's sum of them.
  %tsum = scf.for %j = %c0 to %c32 step %c1 iter_args(%a = %zero) -> (f32) {
    %h = memref.load %r[%j] : memref<32xbf16, #regcopy.mem<local>>
    %x = arith.extf %h : bf16 to f32
    %t = math.fma %x, %log2e, %nmlog : f32
    %e = math.exp2 %t : f32
    memref.store %e, %E[%j] : memref<32xf32, #regcopy.mem<local>>
    %a1 = arith.addf %a, %e : f32
    scf.yield %a1 : f32
  }
  %s, %s_off = scf.for %k = %c0 to %c5 step %c1 iter_args(%a = %tsum, %off = %i16) -> (f32, i32) {
    %other, %valid = gpu.shuffle xor %a, %off, %width : f32
    %a1 = arith.addf %a, %other : f32
    %off1 = arith.shrui %off, %i1 : i32
    scf.yield %a1, %off1 : f32, i32
  }
  %inv = arith.divf %one, %s : f32
  scf.for %j = %c0 to %c32 step %c1 {
    %e = memref.load %E[%j] : memref<32xf32, #regcopy.mem<local>>
    %y = arith.mulf %e, %inv : f32
    %yh = arith.truncf %y : f32 to bf16
    memref.store %yh, %r[%j] : memref<32xbf16, #regcopy.mem<local>>
  }
  regcopy.copy warp %R -> %Y[%row, %c0] [1, 1024] : memref<1024xbf16, #regcopy.layout<(4,32,8):(8,1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xbf16, #regcopy.mem<global>>
  func.return
}
func.func @softmax_4k(%X: memref<?x?xbf16, #regcopy.mem<global>>,
                     %Y: memref<?x?xbf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [2]>} {
  %R = memref.alloca() : memref<4096xbf16, #regcopy.layout<(4,128,8):(8,1@tx,1)>, #regcopy.mem<local>>
  %r = regcopy.storage %R : memref<4096xbf16, #regcopy.layout<(4,128,8):(8,1@tx,1)>, #regcopy.mem<local>> -> memref<32xbf16, #regcopy.mem<local>>
  %E = memref.alloca() : memref<32xf32, #regcopy.mem<local>>
  %SM = memref.alloca() : memref<4xf32, #regcopy.mem<shared>>
  %SS = memref.alloca() : memref<4xf32, #regcopy.mem<shared>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c32 = arith.constant 32 : index
  %i1 = arith.constant 1 : i32
  %i16 = arith.constant 16 : i32
  %width = arith.constant 32 : i32
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %log2e = arith.constant 1.44269504 : f32
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %cw = arith.constant 4 : index
  %warp = arith.divui %tid, %c32 : index
  %lane = arith.remui %tid, %c32 : index
  %lead = arith.cmpi eq, %lane, %c0 : index
  %row = arith.addi %bx, %c0 : index
  // The whole row, once: elements past N are not read and hold -inf.
  regcopy.copy cta %X[%row, %c0] [1, 4096] -> %R {padding = 0xFF80 : bf16} : memref<?x?xbf16, #regcopy.mem<global>> -> memref<4096xbf16, #regcopy.layout<(4,128,8):(8,1@tx,1)>, #regcopy.mem<local>>
  %tmax = scf.for %j = %c0 to %c32 step %c1 iter_args(%a = %ninf) -> (f32) {
    %h = memref.load %r[%j] : memref<32xbf16, #regcopy.mem<local>>
    %x = arith.extf %h : bf16 to f32
    %a1 = arith.maximumf %a, %x : f32
    scf.yield %a1 : f32
  }
  %wmax, %wmax_off = scf.for %k = %c0 to %c5 step %c1 iter_args(%a = %tmax, %off = %i16) -> (f32, i32) {
    %other, %valid = gpu.shuffle xor %a, %off, %width : f32
    %a1 = arith.maximumf %a, %other : f32
    %off1 = arith.shrui %off, %i1 : i32
    scf.yield %a1, %off1 : f32, i32
  }
  scf.if %lead {
    memref.store %wmax, %SM[%warp] : memref<4xf32, #regcopy.mem<shared>>
  }
  "gpu.barrier"() : () -> ()
  %m = scf.for %w = %c0 to %cw step %c1 iter_args(%a = %ninf) -> (f32) {
    %v = memref.load %SM[%w] : memref<4xf32, #regcopy.mem<shared>>
    %a1 = arith.maximumf %a, %v : f32
    scf.yield %a1 : f32
  }
  %mlog = arith.mulf %m, %log2e : f32
  %nmlog = arith.negf %mlog : f32
  // e = 2^((x - m) log2 e), kept in f32 registers; this thread's sum of them.
  %tsum = scf.for %j = %c0 to %c32 step %c1 iter_args(%a = %zero) -> (f32) {
    %h = memref.load %r[%j] : memref<32xbf16, #regcopy.mem<local>>
    %x = arith.extf %h : bf16 to f32
    %t = math.fma %x, %log2e, %nmlog : f32
    %e = math.exp2 %t : f32
    memref.store %e, %E[%j] : memref<32xf32, #regcopy.mem<local>>
    %a1 = arith.addf %a, %e : f32
    scf.yield %a1 : f32
  }
  %wsum, %wsum_off = scf.for %k = %c0 to %c5 step %c1 iter_args(%a = %tsum, %off = %i16) -> (f32, i32) {
    %other, %valid = gpu.shuffle xor %a, %off, %width : f32
    %a1 = arith.addf %a, %other : f32
    %off1 = arith.shrui %off, %i1 : i32
    scf.yield %a1, %off1 : f32, i32
  }
  scf.if %lead {
    memref.store %wsum, %SS[%warp] : memref<4xf32, #regcopy.mem<shared>>
  }
  "gpu.barrier"() : () -> ()
  %s = scf.for %w = %c0 to %cw step %c1 iter_args(%a = %zero) -> (f32) {
    %v = memref.load %SS[%w] : memref<4xf32, #regcopy.mem<shared>>
    %a1 = arith.addf %a, %v : f32
    scf.yield %a1 : f32
  }
  %inv = arith.divf %one, %s : f32
  scf.for %j = %c0 to %c32 step %c1 {
    %e = memref.load %E[%j] : memref<32xf32, #regcopy.mem<local>>
    %y = arith.mulf %e, %inv : f32
    %yh = arith.truncf %y : f32 to bf16
    memref.store %yh, %r[%j] : memref<32xbf16, #regcopy.mem<local>>
  }
  regcopy.copy cta %R -> %Y[%row, %c0] [1, 4096] : memref<4096xbf16, #regcopy.layout<(4,128,8):(8,1@tx,1)>, #regcopy.mem<local>> -> memref<?x?xbf16, #regcopy.mem<global>>
  func.return
}
func.func @softmax_8k(%X: memref<?x?xbf16, #regcopy.mem<global>>,
                     %Y: memref<?x?xbf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [2]>} {
  %R = memref.alloca() : memref<8192xbf16, #regcopy.layout<(4,256,8):(8,1@tx,1)>, #regcopy.mem<local>>
  %r = regcopy.storage %R : memref<8192xbf16, #regcopy.layout<(4,256,8):(8,1@tx,1)>, #regcopy.mem<local>> -> memref<32xbf16, #regcopy.mem<local>>
  %E = memref.alloca() : memref<32xf32, #regcopy.mem<local>>
  %SM = memref.alloca() : memref<8xf32, #regcopy.mem<shared>>
  %SS = memref.alloca() : memref<8xf32, #regcopy.mem<shared>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c32 = arith.constant 32 : index
  %i1 = arith.constant 1 : i32
  %i16 = arith.constant 16 : i32
  %width = arith.constant 32 : i32
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %log2e = arith.constant 1.44269504 : f32
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %cw = arith.constant 8 : index
  %warp = arith.divui %tid, %c32 : index
  %lane = arith.remui %tid, %c32 : index
  %lead = arith.cmpi eq, %lane, %c0 : index
  %row = arith.addi %bx, %c0 : index
  // The whole row, once: elements past N are not read and hold -inf.
  regcopy.copy cta %X[%row, %c0] [1, 8192] -> %R {padding = 0xFF80 : bf16} : memref<?x?xbf16, #regcopy.mem<global>> -> memref<8192xbf16, #regcopy.layout<(4,256,8):(8,1@tx,1)>, #regcopy.mem<local>>
  %tmax = scf.for %j = %c0 to %c32 step %c1 iter_args(%a = %ninf) -> (f32) {
    %h = memref.load %r[%j] : memref<32xbf16, #regcopy.mem<local>>
    %x = arith.extf %h : bf16 to f32
    %a1 = arith.maximumf %a, %x : f32
    scf.yield %a1 : f32
  }
  %wmax, %wmax_off = scf.for %k = %c0 to %c5 step %c1 iter_args(%a = %tmax, %off = %i16) -> (f32, i32) {
    %other, %valid = gpu.shuffle xor %a, %off, %width : f32
    %a1 = arith.maximumf %a, %other : f32
    %off1 = arith.shrui %off, %i1 : i32
    scf.yield %a1, %off1 : f32, i32
  }
  scf.if %lead {
    memref.store %wmax, %SM[%warp] : memref<8xf32, #regcopy.mem<shared>>
  }
  "gpu.barrier"() : () -> ()
  %m = scf.for %w = %c0 to %cw step %c1 iter_args(%a = %ninf) -> (f32) {
    %v = memref.load %SM[%w] : memref<8xf32, #regcopy.mem<shared>>
    %a1 = arith.maximumf %a, %v : f32
    scf.yield %a1 : f32
  }
  %mlog = arith.mulf %m, %log2e : f32
  %nmlog = arith.negf %mlog : f32
  // e = 2^((x - m) log2 e), kept in f32 registers; this thread's sum of them.
  %tsum = scf.for %j = %c0 to %c32 step %c1 iter_args(%a = %zero) -> (f32) {
    %h = memref.load %r[%j] : memref<32xbf16, #regcopy.mem<local>>
    %x = arith.extf %h : bf16 to f32
    %t = math.fma %x, %log2e, %nmlog : f32
    %e = math.exp2 %t : f32
    memref.store %e, %E[%j] : memref<32xf32, #regcopy.mem<local>>
    %a1 = arith.addf %a, %e : f32
    scf.yield %a1 : f32
  }
  %wsum, %wsum_off = scf.for %k = %c0 to %c5 step %c1 iter_args(%a = %tsum, %off = %i16) -> (f32, i32) {
    %other, %valid = gpu.shuffle xor %a, %off, %width : f32
    %a1 = arith.addf %a, %other : f32
    %off1 = arith.shrui %off, %i1 : i32
    scf.yield %a1, %off1 : f32, i32
  }
  scf.if %lead {
    memref.store %wsum, %SS[%warp] : memref<8xf32, #regcopy.mem<shared>>
  }
  "gpu.barrier"() : () -> ()
  %s = scf.for %w = %c0 to %cw step %c1 iter_args(%a = %zero) -> (f32) {
    %v = memref.load %SS[%w] : memref<8xf32, #regcopy.mem<shared>>
    %a1 = arith.addf %a, %v : f32
    scf.yield %a1 : f32
  }
  %inv = arith.divf %one, %s : f32
  scf.for %j = %c0 to %c32 step %c1 {
    %e = memref.load %E[%j] : memref<32xf32, #regcopy.mem<local>>
    %y = arith.mulf %e, %inv : f32
    %yh = arith.truncf %y : f32 to bf16
    memref.store %yh, %r[%j] : memref<32xbf16, #regcopy.mem<local>>
  }
  regcopy.copy cta %R -> %Y[%row, %c0] [1, 8192] : memref<8192xbf16, #regcopy.layout<(4,256,8):(8,1@tx,1)>, #regcopy.mem<local>> -> memref<?x?xbf16, #regcopy.mem<global>>
  func.return
}
func.func @softmax_16k(%X: memref<?x?xbf16, #regcopy.mem<global>>,
                      %Y: memref<?x?xbf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 512, grid = [2]>} {
  %R = memref.alloca() : memref<16384xbf16, #regcopy.layout<(4,512,8):(8,1@tx,1)>, #regcopy.mem<local>>
  %r = regcopy.storage %R : memref<16384xbf16, #regcopy.layout<(4,512,8):(8,1@tx,1)>, #regcopy.mem<local>> -> memref<32xbf16, #regcopy.mem<local>>
  %E = memref.alloca() : memref<32xf32, #regcopy.mem<local>>
  %SM = memref.alloca() : memref<16xf32, #regcopy.mem<shared>>
  %SS = memref.alloca() : memref<16xf32, #regcopy.mem<shared>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c32 = arith.constant 32 : index
  %i1 = arith.constant 1 : i32
  %i16 = arith.constant 16 : i32
  %width = arith.constant 32 : i32
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %log2e = arith.constant 1.44269504 : f32
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %cw = arith.constant 16 : index
  %warp = arith.divui %tid, %c32 : index
  %lane = arith.remui %tid, %c32 : index
  %lead = arith.cmpi eq, %lane, %c0 : index
  %row = arith.addi %bx, %c0 : index
  // The whole row, once: elements past N are not read and hold -inf.
  regcopy.copy cta %X[%row, %c0] [1, 16384] -> %R {padding = 0xFF80 : bf16} : memref<?x?xbf16, #regcopy.mem<global>> -> memref<16384xbf16, #regcopy.layout<(4,512,8):(8,1@tx,1)>, #regcopy.mem<local>>
  %tmax = scf.for %j = %c0 to %c32 step %c1 iter_args(%a = %ninf) -> (f32) {
    %h = memref.load %r[%j] : memref<32xbf16, #regcopy.mem<local>>
    %x = arith.extf %h : bf16 to f32
    %a1 = arith.maximumf %a, %x : f32
    scf.yield %a1 : f32
  }
  %wmax, %wmax_off = scf.for %k = %c0 to %c5 step %c1 iter_args(%a = %tmax, %off = %i16) -> (f32, i32) {
    %other, %valid = gpu.shuffle xor %a, %off, %width : f32
    %a1 = arith.maximumf %a, %other : f32
    %off1 = arith.shrui %off, %i1 : i32
    scf.yield %a1, %off1 : f32, i32
  }
  scf.if %lead {
    memref.store %wmax, %SM[%warp] : memref<16xf32, #regcopy.mem<shared>>
  }
  "gpu.barrier"() : () -> ()
  %m = scf.for %w = %c0 to %cw step %c1 iter_args(%a = %ninf) -> (f32) {
    %v = memref.load %SM[%w] : memref<16xf32, #regcopy.mem<shared>>
    %a1 = arith.maximumf %a, %v : f32
    scf.yield %a1 : f32
  }
  %mlog = arith.mulf %m, %log2e : f32
  %nmlog = arith.negf %mlog : f32
  // e = 2^((x - m) log2 e), kept in f32 registers; this thread's sum of them.
  %tsum = scf.for %j = %c0 to %c32 step %c1 iter_args(%a = %zero) -> (f32) {
    %h = memref.load %r[%j] : memref<32xbf16, #regcopy.mem<local>>
    %x = arith.extf %h : bf16 to f32
    %t = math.fma %x, %log2e, %nmlog : f32
    %e = math.exp2 %t : f32
    memref.store %e, %E[%j] : memref<32xf32, #regcopy.mem<local>>
    %a1 = arith.addf %a, %e : f32
    scf.yield %a1 : f32
  }
  %wsum, %wsum_off = scf.for %k = %c0 to %c5 step %c1 iter_args(%a = %tsum, %off = %i16) -> (f32, i32) {
    %other, %valid = gpu.shuffle xor %a, %off, %width : f32
    %a1 = arith.addf %a, %other : f32
    %off1 = arith.shrui %off, %i1 : i32
    scf.yield %a1, %off1 : f32, i32
  }
  scf.if %lead {
    memref.store %wsum, %SS[%warp] : memref<16xf32, #regcopy.mem<shared>>
  }
  "gpu.barrier"() : () -> ()
  %s = scf.for %w = %c0 to %cw step %c1 iter_args(%a = %zero) -> (f32) {
    %v = memref.load %SS[%w] : memref<16xf32, #regcopy.mem<shared>>
    %a1 = arith.addf %a, %v : f32
    scf.yield %a1 : f32
  }
  %inv = arith.divf %one, %s : f32
  scf.for %j = %c0 to %c32 step %c1 {
    %e = memref.load %E[%j] : memref<32xf32, #regcopy.mem<local>>
    %y = arith.mulf %e, %inv : f32
    %yh = arith.truncf %y : f32 to bf16
    memref.store %yh, %r[%j] : memref<32xbf16, #regcopy.mem<local>>
  }
  regcopy.copy cta %R -> %Y[%row, %c0] [1, 16384] : memref<16384xbf16, #regcopy.layout<(4,512,8):(8,1@tx,1)>, #regcopy.mem<local>> -> memref<?x?xbf16, #regcopy.mem<global>>
  func.return
}
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
