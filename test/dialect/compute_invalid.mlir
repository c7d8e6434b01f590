// Errors of the compute ops: one diagnostic each, with the op's location (regcopy-opt), never
// a traceback. gpu.shuffle's own verifier (a vector value, an unknown mode, a missing operand)
// and xDSL's (a math op on an integer type).
//
// RUN: not regcopy-opt %S/Inputs/shuffle_vector.mlir 2>&1 | filecheck %s --check-prefix=VEC
// RUN: not regcopy-opt %S/Inputs/shuffle_mode.mlir 2>&1 | filecheck %s --check-prefix=MODE
// RUN: not regcopy-opt %S/Inputs/math_integer.mlir 2>&1 | filecheck %s --check-prefix=INT
// RUN: regcopy-opt %s --print-op-generic | regcopy-opt | filecheck %s --check-prefix=ROUND

// VEC: shuffle_vector.mlir:5:3: error: 'gpu.shuffle' op does not verify: shuffles a value of type vector<4xf32>; expected an integer, index or float scalar of 8 to 64 bits
// VEC-NOT: Traceback
// MODE: shuffle_mode.mlir:5:25: error: Expected `xor`, `up`, `down`, or `idx`.
// MODE-NOT: Traceback
// INT: math_integer.mlir:3:3: error: Unexpected attribute i32
// INT-NOT: Traceback

// The custom form round-trips through the generic one.
// ROUND: %r, %ok = gpu.shuffle idx %v, %o, %w : i64
// ROUND: %e = math.rsqrt %x : f64
func.func @ok(%v: i64, %x: f64) {
  %o = arith.constant 3 : i32
  %w = arith.constant 32 : i32
  %r, %ok = gpu.shuffle idx %v, %o, %w : i64
  %e = math.rsqrt %x : f64
  func.return
}
