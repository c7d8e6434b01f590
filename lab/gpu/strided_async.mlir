// cp.async from a strided view (f16, rows a multiple of 8, stride promised a multiple of 2:
// versioned on stride % 8), then shared -> registers -> a strided Y (lab/gpu/strided.sh).
func.func @async_view(%X: memref<?x?xf16, strided<[?, 1]>, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>, regcopy.stride_divisibility = array<i64: 2, 1>}, %Y: memref<?x?xf16, strided<[?, 1]>, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>, regcopy.stride_divisibility = array<i64: 2, 1>})
    attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1, 1]>} {
  %S = memref.alloca() : memref<32x64xf16, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x64xf16, #regcopy.layout<(32,4,16):(1@laneid,1@warpid,1)>, #regcopy.mem<local>>
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %r = arith.muli %bx, %c32 : index
  %c = arith.muli %by, %c64 : index
  %t = regcopy.copy_async cta %X[%r, %c] [32, 64] -> %S : memref<?x?xf16, strided<[?, 1]>, #regcopy.mem<global>> -> memref<32x64xf16, #regcopy.mem<shared>>
  %g = regcopy.async_group %t
  regcopy.async_wait %g {pending = 0 : i64}
  "gpu.barrier"() : () -> ()
  regcopy.copy cta %S -> %R : memref<32x64xf16, #regcopy.mem<shared>> -> memref<32x64xf16, #regcopy.layout<(32,4,16):(1@laneid,1@warpid,1)>, #regcopy.mem<local>>
  regcopy.copy cta %R -> %Y[%r, %c] [32, 64] : memref<32x64xf16, #regcopy.layout<(32,4,16):(1@laneid,1@warpid,1)>, #regcopy.mem<local>> -> memref<?x?xf16, strided<[?, 1]>, #regcopy.mem<global>>
  func.return
}
