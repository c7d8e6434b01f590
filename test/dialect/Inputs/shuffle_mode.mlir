// gpu.shuffle with an unknown mode (compute_invalid.mlir).
func.func @k(%v: f32) {
  %o = arith.constant 1 : i32
  %w = arith.constant 32 : i32
  %r, %ok = gpu.shuffle bfly %v, %o, %w : f32
  func.return
}
