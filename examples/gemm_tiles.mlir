// The data movement of a GEMM main loop, C[M,N] = A[M,K] * B[N,K]^T ("TN": A row-major M x K,
// B row-major N x K, i.e. both K-major: the operand form of mma.sync.m16n8k16.row.col), f16.
// M, N and K are runtime extents (one compiled kernel for every size): K is promised a multiple
// of 8 (16-byte rows, so the global tiles move 128 bits a thread), M and N nothing. The last
// tiles are ragged in all three: the global -> register copies are bounds-checked and read
// zeros outside A and B, so the edge tiles' fragments carry zeros there (what an mma needs).
// Launch with ceil(N / 128) x ceil(M / 128) CTAs (--grid), fragA/fragB of ceil(K / 64) K tiles.
//
// One CTA (256 threads = 8 warps as 2 (M) x 4 (N)) computes a 128 x 128 tile of C: block
// (x, y) takes rows 128*y.. of A and rows 128*x.. of B. Its K-loop walks K in 64-wide tiles;
// the induction variable %k is the tile's column offset. Each iteration
//   1. copies the 128 x 64 A and B tiles global -> registers (cta scope, 16 bytes per thread
//      and row: thread t owns columns 8*(t%8).. of rows t/8 + 32*r) -> shared, into stage
//      (k/64) % 3 of a 3-stage ring of tiles in dynamic shared memory
//      (2 x 3 x 128 x 64 x 2 B = 96 KiB: more than the 48 KiB of static __shared__) whose
//      physical layout the compiler chooses (#regcopy.layout<auto>): swizzle<3,3,3>, with which
//      both the 128-bit row writes and the ldmatrix.x4 fragment reads are free of bank conflicts;
//   2. waits at a barrier (the ring needs no second one: a stage is rewritten three
//      iterations later, after two more barriers);
//   3. copies shared -> registers, per warp, the m16n8k16 fragments of its 64 x 64 slice of A
//      (4 m16 x 4 k16 fragments) and of its 32 x 64 slice of B (4 n8 x 4 k16 fragments);
//   4. writes each thread's fragment registers, in register order, to %fragA / %fragB
//      ([block y, block x, k tile, thread, register]) where a test checks every register
//      against the PTX ISA's fragment tables, computed independently with numpy.
// In a real kernel step 4 is regcopy.mma, consuming them: examples/gemm.mlir is that kernel.
//
// Fragment layouts (PTX ISA, mma.m16n8k16 .f16; g = lane / 4, c = lane % 4):
//   A (16 x 16, row-major): a{2h+p}   = A[g + 8h][2c + p],  a{4+2h+p} = A[g + 8h][2c + 8 + p]
//     -> (2,8,2,4,2):(2,4@laneid,4,1@laneid,1) on the 16 x 16 tile; 8 registers.
//   B (16 x 8, "col", read from the N x K tile): b{p} = B[n=g][k=2c + p], b{2+p} = B[g][2c+8+p]
//     -> (8,2,4,2):(4@laneid,2,1@laneid,1) on the 8 x 16 (N x K) tile; 4 registers.
// A warp's 64 x 64 A slice repeats the A fragment over 4 m16 rows and 4 k16 columns
// (register = 32*mi + 8*ki + fragment register), its 32 x 64 B slice repeats the B fragment
// over 4 n8 rows and 4 k16 columns (register = 16*ni + 4*ki + fragment register).
func.func @gemm_tiles(%A: memref<?x?xf16, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>},
                      %B: memref<?x?xf16, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>},
                      %fragA: memref<?x?x?x256x128xf16, #regcopy.mem<global>>,
                      %fragB: memref<?x?x?x256x64xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [2, 2]>} {
  %SA = memref.alloca() : memref<3x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %SB = memref.alloca() : memref<3x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
  %RA = memref.alloca() : memref<128x64xf16, #regcopy.layout<(4,32,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>>
  %RB = memref.alloca() : memref<128x64xf16, #regcopy.layout<(4,32,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>>
  %FA = memref.alloca() : memref<64x64xf16, #regcopy.layout<(4,2,8,4,2,4,2):(32,2,4@laneid,8,4,1@laneid,1)>, #regcopy.mem<local>>
  %FB = memref.alloca() : memref<32x64xf16, #regcopy.layout<(4,8,4,2,4,2):(16,4@laneid,4,2,1@laneid,1)>, #regcopy.mem<local>>
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c1 = arith.constant 1 : index
  %K = memref.dim %A, %c1 : memref<?x?xf16, #regcopy.mem<global>>
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
  // the CTA's first rows of A and B; the warp's first rows inside the A and B tiles
  %m0 = arith.muli %by, %c128 : index
  %n0 = arith.muli %bx, %c128 : index
  %wm = arith.divui %tid, %c128 : index
  %warp = arith.divui %tid, %c32 : index
  %wn = arith.remui %warp, %c4 : index
  %am = arith.muli %wm, %c64 : index
  %bn = arith.muli %wn, %c32 : index
  // the fragment registers of this thread, as flat 1-D arrays
  %fa = regcopy.storage %FA : memref<64x64xf16, #regcopy.layout<(4,2,8,4,2,4,2):(32,2,4@laneid,8,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<128xf16, #regcopy.mem<local>>
  %fb = regcopy.storage %FB : memref<32x64xf16, #regcopy.layout<(4,8,4,2,4,2):(16,4@laneid,4,2,1@laneid,1)>, #regcopy.mem<local>> -> memref<64xf16, #regcopy.mem<local>>
  scf.for %k = %c0 to %K step %c64 {
    %kt = arith.divui %k, %c64 : index
    %stage = arith.remui %kt, %c3 : index
    // 1. global -> registers -> shared (stage %stage of the ring)
    regcopy.copy cta %A[%m0, %k] [128, 64] -> %RA : memref<?x?xf16, #regcopy.mem<global>> -> memref<128x64xf16, #regcopy.layout<(4,32,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>>
    regcopy.copy cta %B[%n0, %k] [128, 64] -> %RB : memref<?x?xf16, #regcopy.mem<global>> -> memref<128x64xf16, #regcopy.layout<(4,32,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>>
    regcopy.copy cta %RA -> %SA[%stage, 0, 0] [1, 128, 64] : memref<128x64xf16, #regcopy.layout<(4,32,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>> -> memref<3x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    regcopy.copy cta %RB -> %SB[%stage, 0, 0] [1, 128, 64] : memref<128x64xf16, #regcopy.layout<(4,32,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>> -> memref<3x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>
    // 2. every thread's part of the stage is in shared memory
    "gpu.barrier"() : () -> ()
    // 3. shared -> the warp's mma fragments
    regcopy.copy warp %SA[%stage, %am, 0] [1, 64, 64] -> %FA : memref<3x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>> -> memref<64x64xf16, #regcopy.layout<(4,2,8,4,2,4,2):(32,2,4@laneid,8,4,1@laneid,1)>, #regcopy.mem<local>>
    regcopy.copy warp %SB[%stage, %bn, 0] [1, 32, 64] -> %FB : memref<3x128x64xf16, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>> -> memref<32x64xf16, #regcopy.layout<(4,8,4,2,4,2):(16,4@laneid,4,2,1@laneid,1)>, #regcopy.mem<local>>
    // 4. write the fragment registers out, 8 per 128-bit store
    scf.for %i = %c0 to %c128 step %c8 {
      %v = vector.load %fa[%i] : memref<128xf16, #regcopy.mem<local>>, vector<8xf16>
      vector.store %v, %fragA[%by, %bx, %kt, %tid, %i] : memref<?x?x?x256x128xf16, #regcopy.mem<global>>, vector<8xf16>
    }
    scf.for %i = %c0 to %c64 step %c8 {
      %v = vector.load %fb[%i] : memref<64xf16, #regcopy.mem<local>>, vector<8xf16>
      vector.store %v, %fragB[%by, %bx, %kt, %tid, %i] : memref<?x?x?x256x64xf16, #regcopy.mem<global>>, vector<8xf16>
    }
  }
  func.return
}
