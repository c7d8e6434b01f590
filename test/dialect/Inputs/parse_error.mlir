// Input of driver_errors.mlir: a parse error on line 4, column 68.
func.func @f(%A: memref<32x8xf32, #regcopy.mem<shared>>,
             %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  %T = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@lane,1)>, #regcopy.mem<local>>
  func.return
}
