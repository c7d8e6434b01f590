func.func @bad(%A: memref<32x8xf32, #regcopy.layout<(32,8):(1@lane,1)>, #regcopy.mem<local>>) {
  func.return
}
