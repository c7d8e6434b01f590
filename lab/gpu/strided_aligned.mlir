// An aligned-stride view copy (stride promised a multiple of 4 f32): its SASS must hold one
// LDG.E.128 / STG.E.128 per vector (8 each per thread) and no local memory (lab/gpu/strided.sh).
func.func @rows(%A: memref<?x?xf32, strided<[?, 1]>, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 4>, regcopy.stride_divisibility = array<i64: 4, 1>}, %B: memref<?x?xf32, strided<[?, 1]>, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 4>, regcopy.stride_divisibility = array<i64: 4, 1>}) attributes
    {regcopy.launch = #regcopy.launch<block = 256, grid = [8]>} {
  %R = memref.alloca() : memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>>
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c8 = arith.constant 8 : index
  %row = arith.muli %bx, %c8 : index
  regcopy.copy cta %A[%row, 0] [8, 1024] -> %R : memref<?x?xf32, strided<[?, 1]>, #regcopy.mem<global>> -> memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %R -> %B[%row, 0] [8, 1024] : memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>> -> memref<?x?xf32, strided<[?, 1]>, #regcopy.mem<global>>
  func.return
}
