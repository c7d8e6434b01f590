// A GEMM-style epilogue: one warp, lane i holds row i of a 32x16 f32 accumulator tile in
// registers (regcopy.copy from A); 4 columns at a time it is scaled by a splat constant, biased
// by a dense constant, clamped below at 0 (maxnumf), divided by D and rounded to bf16 with the
// packed cvt.rn.bf16x2.f32 (two lanes a cvt) and to f16 (cvt.rn.f16x2.f32), stored out.
// Scalar column 0 goes f32 -> bf16 -> f32 (R) and its bits (arith.bitcast) to I; the i16
// lanes of S are shifted (shli, shrsi, shrui) and negf'd floats are kept in N; E is the
// accumulator itself rounded to bf16 (the GPU test puts ties, subnormals, inf, NaN in A).
func.func @epilogue(%A: memref<32x16xf32, #regcopy.mem<global>>,
                    %D: memref<32x16xf32, #regcopy.mem<global>>,
                    %S: memref<32x16xi16, #regcopy.mem<global>>,
                    %B: memref<32x16xbf16, #regcopy.mem<global>>,
                    %H: memref<32x16xf16, #regcopy.mem<global>>,
                    %N: memref<32x16xf32, #regcopy.mem<global>>,
                    %T: memref<32x16xi16, #regcopy.mem<global>>,
                    %R: memref<32xf32, #regcopy.mem<global>>,
                    %I: memref<32xi32, #regcopy.mem<global>>,
                    %E: memref<32x16xbf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %acc = memref.alloca() : memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %A -> %acc : memref<32x16xf32, #regcopy.mem<global>> -> memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  %r = regcopy.storage %acc : memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>> -> memref<16xf32, #regcopy.mem<local>>
  %lane = "gpu.lane_id"() : () -> index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %scale = arith.constant dense<0.1> : vector<4xf32>
  %bias = arith.constant dense<[0.5, -0.25, 1.0e-3, 3.0e+38]> : vector<4xf32>
  %zero = arith.constant dense<0.0> : vector<4xf32>
  %three = arith.constant dense<[1, 2, 3, 15, 0, 4, 5, 7]> : vector<8xi16>
  scf.for %j = %c0 to %c16 step %c4 {
    %a = vector.load %r[%j] : memref<16xf32, #regcopy.mem<local>>, vector<4xf32>
    %d = vector.load %D[%lane, %j] : memref<32x16xf32, #regcopy.mem<global>>, vector<4xf32>
    %s = arith.mulf %a, %scale : vector<4xf32>
    %b = arith.addf %s, %bias : vector<4xf32>
    %q = arith.divf %b, %d : vector<4xf32>
    %m = arith.maxnumf %q, %zero : vector<4xf32>
    %bf = arith.truncf %m : vector<4xf32> to vector<4xbf16>
    vector.store %bf, %B[%lane, %j] : memref<32x16xbf16, #regcopy.mem<global>>, vector<4xbf16>
    %raw = arith.truncf %a : vector<4xf32> to vector<4xbf16>
    vector.store %raw, %E[%lane, %j] : memref<32x16xbf16, #regcopy.mem<global>>, vector<4xbf16>
    %h = arith.truncf %q : vector<4xf32> to vector<4xf16>
    vector.store %h, %H[%lane, %j] : memref<32x16xf16, #regcopy.mem<global>>, vector<4xf16>
    %back = arith.extf %bf : vector<4xbf16> to vector<4xf32>
    %hb = arith.extf %h : vector<4xf16> to vector<4xf32>
    %sum = arith.addf %back, %hb : vector<4xf32>
    %n = arith.negf %sum : vector<4xf32>
    vector.store %n, %N[%lane, %j] : memref<32x16xf32, #regcopy.mem<global>>, vector<4xf32>
  }
  scf.for %j = %c0 to %c16 step %c8 {
    %v = vector.load %S[%lane, %j] : memref<32x16xi16, #regcopy.mem<global>>, vector<8xi16>
    %l = arith.shli %v, %three : vector<8xi16>
    %sr = arith.shrsi %v, %three : vector<8xi16>
    %ur = arith.shrui %v, %three : vector<8xi16>
    %x = arith.xori %l, %sr : vector<8xi16>
    %y = arith.addi %x, %ur : vector<8xi16>
    vector.store %y, %T[%lane, %j] : memref<32x16xi16, #regcopy.mem<global>>, vector<8xi16>
  }
  %e = memref.load %r[%c0] : memref<16xf32, #regcopy.mem<local>>
  %e16 = arith.truncf %e : f32 to bf16
  %e32 = arith.extf %e16 : bf16 to f32
  memref.store %e32, %R[%lane] : memref<32xf32, #regcopy.mem<global>>
  %bits = arith.bitcast %e : f32 to i32
  memref.store %bits, %I[%lane] : memref<32xi32, #regcopy.mem<global>>
  func.return
}
