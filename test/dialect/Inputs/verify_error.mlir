// Input of driver_errors.mlir: two verifier errors; the driver reports only the first
// (element types differ).
func.func @f(%A: memref<32x8xf16, #regcopy.mem<shared>>,
             %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A -> %R : memref<32x8xf16, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R[0, 0] [16, 8] -> %A : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x8xf16, #regcopy.mem<shared>>
  func.return
}
