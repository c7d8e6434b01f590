// math.exp on an integer (compute_invalid.mlir): xDSL's type constraint refuses it.
func.func @k(%v: i32) {
  %e = math.exp %v : i32
  func.return
}
