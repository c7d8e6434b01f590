// The GEMM of examples/gemm.mlir for K of any length: @gemm_any_k (f16) and @gemm_any_k_bf16.
// With K odd no operand row starts 16-byte aligned, and cp.async has no width for such rows,
// so each 32-wide K tile goes global -> registers -> shared (two slots), its global loads
// issued one tile ahead so that they fly while the warps compute on the previous tile. The
// register tiles put a warp along a row (32 consecutive elements an instruction): 16-bit
// loads, the widest that rows of odd length allow, each warp instruction reading 64
// contiguous bytes, and 16-bit shared stores. Everything else (ldmatrix.x4
// fragments, regcopy.mma on 64 x 64 warp tiles, the stmatrix + 128-bit epilogue) is
// examples/gemm.mlir's. The other route for odd K pads the rows of A and B first
// (examples/pad_rows.mlir) and runs examples/gemm.mlir. Launch with ceil(N / 256) x
// ceil(M / 128) CTAs:
//   regcopy-run --check examples/gemm_any_k.mlir --arg A=40x37 --arg B=72x37 --arg D=40x72 --grid 1,1
func.func @gemm_any_k(%A: memref<?x?xf16, #regcopy.mem<global>>,
    %B: memref<?x?xf16, #regcopy.mem<global>>,
    %D: memref<?x?xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [1, 1], min_blocks = 1>} {
  %SA = memref.alloca() : memref<2x128x32xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %SB = memref.alloca() : memref<2x256x32xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %SC = memref.alloca() : memref<128x256xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %RC = memref.alloca() : memref<128x256xf16, #regcopy.layout<(16,8,32,8):(8,32@tx,1@tx,1)>, #regcopy.mem<local>>
  %FA = memref.alloca() : memref<64x16xf16, #regcopy.layout<(4,2,8,2,4,2):(8,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %FB = memref.alloca() : memref<64x16xf16, #regcopy.layout<(8,8,2,4,2):(4,4@laneid,2,1@laneid,1)>, #regcopy.mem<local>>
  %C = memref.alloca() : memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(32,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %CO = memref.alloca() : memref<64x64xf16, #regcopy.layout<(4,2,8,8,4,2):(32,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  %K = memref.dim %A, %c1 : memref<?x?xf16, #regcopy.mem<global>>
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
  // the CTA's tile (pm, pn), in groups of 8 M tiles that walk N together (their B tiles
  // and A row bands stay in L2): the linear block id p = by * gx + bx runs down a group's
  // 8 M tiles first, then across its N tiles
  %gx = "gpu.grid_dim"() <{dimension = #gpu<dim x>}> : () -> index
  %gy = "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
  %byx = arith.muli %by, %gx : index
  %pid = arith.addi %byx, %bx : index
  %width = arith.muli %gx, %c8 : index
  %group = arith.divui %pid, %width : index
  %first = arith.muli %group, %c8 : index
  %left = arith.subi %gy, %first : index
  %size = arith.minui %left, %c8 : index
  %inside = arith.remui %pid, %width : index
  %pmo = arith.remui %inside, %size : index
  %pm = arith.addi %first, %pmo : index
  %pn = arith.divui %inside, %size : index
  // the CTA's first rows of A (M) and B (N); the warp's 64 x 64 tile inside the CTA's
  %m0 = arith.muli %pm, %c128 : index
  %n0 = arith.muli %pn, %c256 : index
  %warp = arith.divui %tid, %c32 : index
  %wm = arith.divui %warp, %c4 : index
  %wn = arith.remui %warp, %c4 : index
  %am = arith.muli %wm, %c64 : index
  %bn = arith.muli %wn, %c64 : index
  // the accumulators start at zero
  %acc = regcopy.storage %C : memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(32,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<128xf32, #regcopy.mem<local>>
  scf.for %i = %c0 to %c128 step %c4 {
    vector.store %zero, %acc[%i] : memref<128xf32, #regcopy.mem<local>>, vector<4xf32>
  }
  %RA = memref.alloca() : memref<128x32xf16, #regcopy.layout<(16,8,32):(1,32@tx,1@tx)>, #regcopy.mem<local>>
  %RB = memref.alloca() : memref<256x32xf16, #regcopy.layout<(32,8,32):(1,32@tx,1@tx)>, #regcopy.mem<local>>
  // prologue: K tile 0 in registers
  regcopy.copy cta %A[%m0, %c0] [128, 32] -> %RA : memref<?x?xf16, #regcopy.mem<global>> -> memref<128x32xf16, #regcopy.layout<(16,8,32):(1,32@tx,1@tx)>, #regcopy.mem<local>>
  regcopy.copy cta %B[%n0, %c0] [256, 32] -> %RB : memref<?x?xf16, #regcopy.mem<global>> -> memref<256x32xf16, #regcopy.layout<(32,8,32):(1,32@tx,1@tx)>, #regcopy.mem<local>>
  scf.for %k = %c0 to %K step %c32 {
    %kt = arith.divui %k, %c32 : index
    %stage = arith.remui %kt, %c2 : index
    // 1. K tile k: registers -> shared slot k % 2 (every warp is done with tile k-2: it
    //    passed the barrier of iteration k-1 after computing on it)
    regcopy.copy cta %RA -> %SA[%stage, 0, 0] [1, 128, 32] : memref<128x32xf16, #regcopy.layout<(16,8,32):(1,32@tx,1@tx)>, #regcopy.mem<local>> -> memref<2x128x32xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    regcopy.copy cta %RB -> %SB[%stage, 0, 0] [1, 256, 32] : memref<256x32xf16, #regcopy.layout<(32,8,32):(1,32@tx,1@tx)>, #regcopy.mem<local>> -> memref<2x256x32xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    "gpu.barrier"() : () -> ()
    // 2. K tile k+1: global -> registers (zeros past K), in flight during step 3
    %k1 = arith.addi %k, %c32 : index
    regcopy.copy cta %A[%m0, %k1] [128, 32] -> %RA : memref<?x?xf16, #regcopy.mem<global>> -> memref<128x32xf16, #regcopy.layout<(16,8,32):(1,32@tx,1@tx)>, #regcopy.mem<local>>
    regcopy.copy cta %B[%n0, %k1] [256, 32] -> %RB : memref<?x?xf16, #regcopy.mem<global>> -> memref<256x32xf16, #regcopy.layout<(32,8,32):(1,32@tx,1@tx)>, #regcopy.mem<local>>
    // 3. two k16 steps: ldmatrix.x4 fragments of slot k % 2, then 32 mma.sync a warp
    regcopy.copy warp %SA[%stage, %am, 0] [1, 64, 16] -> %FA : memref<2x128x32xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>> -> memref<64x16xf16, #regcopy.layout<(4,2,8,2,4,2):(8,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
    regcopy.copy warp %SB[%stage, %bn, 0] [1, 64, 16] -> %FB : memref<2x256x32xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>> -> memref<64x16xf16, #regcopy.layout<(8,8,2,4,2):(4,4@laneid,2,1@laneid,1)>, #regcopy.mem<local>>
    regcopy.mma warp %FA, %FB, %C {transpose_b} : memref<64x16xf16, #regcopy.layout<(4,2,8,2,4,2):(8,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>, memref<64x16xf16, #regcopy.layout<(8,8,2,4,2):(4,4@laneid,2,1@laneid,1)>, #regcopy.mem<local>>, memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(32,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
    regcopy.copy warp %SA[%stage, %am, 16] [1, 64, 16] -> %FA : memref<2x128x32xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>> -> memref<64x16xf16, #regcopy.layout<(4,2,8,2,4,2):(8,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
    regcopy.copy warp %SB[%stage, %bn, 16] [1, 64, 16] -> %FB : memref<2x256x32xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>> -> memref<64x16xf16, #regcopy.layout<(8,8,2,4,2):(4,4@laneid,2,1@laneid,1)>, #regcopy.mem<local>>
    regcopy.mma warp %FA, %FB, %C {transpose_b} : memref<64x16xf16, #regcopy.layout<(4,2,8,2,4,2):(8,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>, memref<64x16xf16, #regcopy.layout<(8,8,2,4,2):(4,4@laneid,2,1@laneid,1)>, #regcopy.mem<local>>, memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(32,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  }
  // epilogue: round to f16 (cvt.rn, same fragment layout), stmatrix to shared, 128-bit rows out
  %out = regcopy.storage %CO : memref<64x64xf16, #regcopy.layout<(4,2,8,8,4,2):(32,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<128xf16, #regcopy.mem<local>>
  scf.for %i = %c0 to %c128 step %c4 {
    %v = vector.load %acc[%i] : memref<128xf32, #regcopy.mem<local>>, vector<4xf32>
    %h = arith.truncf %v : vector<4xf32> to vector<4xf16>
    vector.store %h, %out[%i] : memref<128xf16, #regcopy.mem<local>>, vector<4xf16>
  }
  regcopy.copy warp %CO -> %SC[%am, %bn] [64, 64] : memref<64x64xf16, #regcopy.layout<(4,2,8,8,4,2):(32,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<128x256xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  "gpu.barrier"() : () -> ()
  regcopy.copy cta %SC -> %RC : memref<128x256xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>> -> memref<128x256xf16, #regcopy.layout<(16,8,32,8):(8,32@tx,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %RC -> %D[%m0, %n0] [128, 256] {misaligned_stores = "realigned"} : memref<128x256xf16, #regcopy.layout<(16,8,32,8):(8,32@tx,1@tx,1)>, #regcopy.mem<local>> -> memref<?x?xf16, #regcopy.mem<global>>
  func.return
}

func.func @gemm_any_k_bf16(%A: memref<?x?xbf16, #regcopy.mem<global>>,
    %B: memref<?x?xbf16, #regcopy.mem<global>>,
    %D: memref<?x?xbf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [1, 1], min_blocks = 1>} {
  %SA = memref.alloca() : memref<2x128x32xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %SB = memref.alloca() : memref<2x256x32xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %SC = memref.alloca() : memref<128x256xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %RC = memref.alloca() : memref<128x256xbf16, #regcopy.layout<(16,8,32,8):(8,32@tx,1@tx,1)>, #regcopy.mem<local>>
  %FA = memref.alloca() : memref<64x16xbf16, #regcopy.layout<(4,2,8,2,4,2):(8,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %FB = memref.alloca() : memref<64x16xbf16, #regcopy.layout<(8,8,2,4,2):(4,4@laneid,2,1@laneid,1)>, #regcopy.mem<local>>
  %C = memref.alloca() : memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(32,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %CO = memref.alloca() : memref<64x64xbf16, #regcopy.layout<(4,2,8,8,4,2):(32,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  %K = memref.dim %A, %c1 : memref<?x?xbf16, #regcopy.mem<global>>
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
  // the CTA's tile (pm, pn), in groups of 8 M tiles that walk N together (their B tiles
  // and A row bands stay in L2): the linear block id p = by * gx + bx runs down a group's
  // 8 M tiles first, then across its N tiles
  %gx = "gpu.grid_dim"() <{dimension = #gpu<dim x>}> : () -> index
  %gy = "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
  %byx = arith.muli %by, %gx : index
  %pid = arith.addi %byx, %bx : index
  %width = arith.muli %gx, %c8 : index
  %group = arith.divui %pid, %width : index
  %first = arith.muli %group, %c8 : index
  %left = arith.subi %gy, %first : index
  %size = arith.minui %left, %c8 : index
  %inside = arith.remui %pid, %width : index
  %pmo = arith.remui %inside, %size : index
  %pm = arith.addi %first, %pmo : index
  %pn = arith.divui %inside, %size : index
  // the CTA's first rows of A (M) and B (N); the warp's 64 x 64 tile inside the CTA's
  %m0 = arith.muli %pm, %c128 : index
  %n0 = arith.muli %pn, %c256 : index
  %warp = arith.divui %tid, %c32 : index
  %wm = arith.divui %warp, %c4 : index
  %wn = arith.remui %warp, %c4 : index
  %am = arith.muli %wm, %c64 : index
  %bn = arith.muli %wn, %c64 : index
  // the accumulators start at zero
  %acc = regcopy.storage %C : memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(32,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<128xf32, #regcopy.mem<local>>
  scf.for %i = %c0 to %c128 step %c4 {
    vector.store %zero, %acc[%i] : memref<128xf32, #regcopy.mem<local>>, vector<4xf32>
  }
  %RA = memref.alloca() : memref<128x32xbf16, #regcopy.layout<(16,8,32):(1,32@tx,1@tx)>, #regcopy.mem<local>>
  %RB = memref.alloca() : memref<256x32xbf16, #regcopy.layout<(32,8,32):(1,32@tx,1@tx)>, #regcopy.mem<local>>
  // prologue: K tile 0 in registers
  regcopy.copy cta %A[%m0, %c0] [128, 32] -> %RA : memref<?x?xbf16, #regcopy.mem<global>> -> memref<128x32xbf16, #regcopy.layout<(16,8,32):(1,32@tx,1@tx)>, #regcopy.mem<local>>
  regcopy.copy cta %B[%n0, %c0] [256, 32] -> %RB : memref<?x?xbf16, #regcopy.mem<global>> -> memref<256x32xbf16, #regcopy.layout<(32,8,32):(1,32@tx,1@tx)>, #regcopy.mem<local>>
  scf.for %k = %c0 to %K step %c32 {
    %kt = arith.divui %k, %c32 : index
    %stage = arith.remui %kt, %c2 : index
    // 1. K tile k: registers -> shared slot k % 2 (every warp is done with tile k-2: it
    //    passed the barrier of iteration k-1 after computing on it)
    regcopy.copy cta %RA -> %SA[%stage, 0, 0] [1, 128, 32] : memref<128x32xbf16, #regcopy.layout<(16,8,32):(1,32@tx,1@tx)>, #regcopy.mem<local>> -> memref<2x128x32xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    regcopy.copy cta %RB -> %SB[%stage, 0, 0] [1, 256, 32] : memref<256x32xbf16, #regcopy.layout<(32,8,32):(1,32@tx,1@tx)>, #regcopy.mem<local>> -> memref<2x256x32xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    "gpu.barrier"() : () -> ()
    // 2. K tile k+1: global -> registers (zeros past K), in flight during step 3
    %k1 = arith.addi %k, %c32 : index
    regcopy.copy cta %A[%m0, %k1] [128, 32] -> %RA : memref<?x?xbf16, #regcopy.mem<global>> -> memref<128x32xbf16, #regcopy.layout<(16,8,32):(1,32@tx,1@tx)>, #regcopy.mem<local>>
    regcopy.copy cta %B[%n0, %k1] [256, 32] -> %RB : memref<?x?xbf16, #regcopy.mem<global>> -> memref<256x32xbf16, #regcopy.layout<(32,8,32):(1,32@tx,1@tx)>, #regcopy.mem<local>>
    // 3. two k16 steps: ldmatrix.x4 fragments of slot k % 2, then 32 mma.sync a warp
    regcopy.copy warp %SA[%stage, %am, 0] [1, 64, 16] -> %FA : memref<2x128x32xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>> -> memref<64x16xbf16, #regcopy.layout<(4,2,8,2,4,2):(8,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
    regcopy.copy warp %SB[%stage, %bn, 0] [1, 64, 16] -> %FB : memref<2x256x32xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>> -> memref<64x16xbf16, #regcopy.layout<(8,8,2,4,2):(4,4@laneid,2,1@laneid,1)>, #regcopy.mem<local>>
    regcopy.mma warp %FA, %FB, %C {transpose_b} : memref<64x16xbf16, #regcopy.layout<(4,2,8,2,4,2):(8,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>, memref<64x16xbf16, #regcopy.layout<(8,8,2,4,2):(4,4@laneid,2,1@laneid,1)>, #regcopy.mem<local>>, memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(32,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
    regcopy.copy warp %SA[%stage, %am, 16] [1, 64, 16] -> %FA : memref<2x128x32xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>> -> memref<64x16xbf16, #regcopy.layout<(4,2,8,2,4,2):(8,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
    regcopy.copy warp %SB[%stage, %bn, 16] [1, 64, 16] -> %FB : memref<2x256x32xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>> -> memref<64x16xbf16, #regcopy.layout<(8,8,2,4,2):(4,4@laneid,2,1@laneid,1)>, #regcopy.mem<local>>
    regcopy.mma warp %FA, %FB, %C {transpose_b} : memref<64x16xbf16, #regcopy.layout<(4,2,8,2,4,2):(8,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>, memref<64x16xbf16, #regcopy.layout<(8,8,2,4,2):(4,4@laneid,2,1@laneid,1)>, #regcopy.mem<local>>, memref<64x64xf32, #regcopy.layout<(4,2,8,8,4,2):(32,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  }
  // epilogue: round to bf16 (cvt.rn, same fragment layout), stmatrix to shared, 128-bit rows out
  %out = regcopy.storage %CO : memref<64x64xbf16, #regcopy.layout<(4,2,8,8,4,2):(32,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<128xbf16, #regcopy.mem<local>>
  scf.for %i = %c0 to %c128 step %c4 {
    %v = vector.load %acc[%i] : memref<128xf32, #regcopy.mem<local>>, vector<4xf32>
    %h = arith.truncf %v : vector<4xf32> to vector<4xbf16>
    vector.store %h, %out[%i] : memref<128xbf16, #regcopy.mem<local>>, vector<4xbf16>
  }
  regcopy.copy warp %CO -> %SC[%am, %bn] [64, 64] : memref<64x64xbf16, #regcopy.layout<(4,2,8,8,4,2):(32,2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<128x256xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  "gpu.barrier"() : () -> ()
  regcopy.copy cta %SC -> %RC : memref<128x256xbf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>> -> memref<128x256xbf16, #regcopy.layout<(16,8,32,8):(8,32@tx,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %RC -> %D[%m0, %n0] [128, 256] {misaligned_stores = "realigned"} : memref<128x256xbf16, #regcopy.layout<(16,8,32,8):(8,32@tx,1@tx,1)>, #regcopy.mem<local>> -> memref<?x?xbf16, #regcopy.mem<global>>
  func.return
}
