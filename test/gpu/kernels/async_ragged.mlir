// A ragged global -> shared async copy: each CTA (128 threads) copies a 32 x 64 f16 tile of
// the runtime-sized %X (rows promised nothing, row length a multiple of 8: 16-byte rows)
// into shared memory with regcopy.copy_async, waits, and copies it shared -> registers ->
// %Y with bounds-checked register copies. Chunks straddling the last column are zero-filled
// through cp.async's source-size operand; chunks past the last row read nothing (their
// global address is clamped to %X's base).
// %Z[by, bx] receives CTA (bx, by)'s whole shared tile, zeros past the edges included.
// Launch with ceil(cols / 64) x ceil(rows / 32) CTAs (--grid); %Y as %X, %Z of
// ceil(rows / 32) x ceil(cols / 64) x 32 x 64.
func.func @async_ragged(%X: memref<?x?xf16, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>},
                        %Y: memref<?x?xf16, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>},
                        %Z: memref<?x?x32x64xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1, 1]>} {
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
  %r0 = arith.muli %by, %c32 : index
  %k0 = arith.muli %bx, %c64 : index
  %S = memref.alloca() : memref<32x64xf16, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x64xf16, #regcopy.layout<(2,16,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>>
  %t = regcopy.copy_async cta %X[%r0, %k0] [32, 64] -> %S[0, 0] [32, 64] : memref<?x?xf16, #regcopy.mem<global>> -> memref<32x64xf16, #regcopy.mem<shared>>
  %g = regcopy.async_group %t
  regcopy.async_wait %g {pending = 0 : i64}
  "gpu.barrier"() : () -> ()
  regcopy.copy cta %S[0, 0] [32, 64] -> %R : memref<32x64xf16, #regcopy.mem<shared>> -> memref<32x64xf16, #regcopy.layout<(2,16,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %R -> %Y[%r0, %k0] [32, 64] : memref<32x64xf16, #regcopy.layout<(2,16,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>> -> memref<?x?xf16, #regcopy.mem<global>>
  regcopy.copy cta %R -> %Z[%by, %bx, 0, 0] [1, 1, 32, 64] : memref<32x64xf16, #regcopy.layout<(2,16,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>> -> memref<?x?x32x64xf16, #regcopy.mem<global>>
  func.return
}
