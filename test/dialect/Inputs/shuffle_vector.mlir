// gpu.shuffle of a vector: refused by its verifier (compute_invalid.mlir).
func.func @k(%v: vector<4xf32>) {
  %o = arith.constant 1 : i32
  %w = arith.constant 32 : i32
  %r, %ok = gpu.shuffle xor %v, %o, %w : vector<4xf32>
  func.return
}
