// Lane-wise vector arithmetic and vector.bitcast: one warp, lane i works on row i.
// A is copied to registers (regcopy.copy, lowered to 128-bit loads); then, 4 columns at a time:
//   F = (A * B + A) - B                       (vector<4xf32>: mulf, addf, subf, each rounded once)
//   I = ((N + bitcast(H)) * N - bits(A * B)) ^ N    (vector<4xi32>, wrapping; H is vector<8xi16>)
//   D = N[0:2] - N[2:4]                       (vector<2xi32>)
func.func @vector_arith(%A: memref<32x16xf32, #regcopy.mem<global>>,
                        %B: memref<32x16xf32, #regcopy.mem<global>>,
                        %N: memref<32x16xi32, #regcopy.mem<global>>,
                        %H: memref<32x32xi16, #regcopy.mem<global>>,
                        %F: memref<32x16xf32, #regcopy.mem<global>>,
                        %I: memref<32x16xi32, #regcopy.mem<global>>,
                        %D: memref<32x8xi32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %A -> %R : memref<32x16xf32, #regcopy.mem<global>> -> memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>>
  %r = regcopy.storage %R : memref<32x16xf32, #regcopy.layout<(32,16):(1@laneid,1)>, #regcopy.mem<local>> -> memref<16xf32, #regcopy.mem<local>>
  %lane = "gpu.lane_id"() : () -> index
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.for %j = %c0 to %c16 step %c4 {
    %a = vector.load %r[%j] : memref<16xf32, #regcopy.mem<local>>, vector<4xf32>
    %b = vector.load %B[%lane, %j] : memref<32x16xf32, #regcopy.mem<global>>, vector<4xf32>
    %ab = arith.mulf %a, %b : vector<4xf32>
    %aba = arith.addf %ab, %a : vector<4xf32>
    %f = arith.subf %aba, %b : vector<4xf32>
    vector.store %f, %F[%lane, %j] : memref<32x16xf32, #regcopy.mem<global>>, vector<4xf32>
    %n = vector.load %N[%lane, %j] : memref<32x16xi32, #regcopy.mem<global>>, vector<4xi32>
    %j2 = arith.muli %j, %c2 : index
    %h = vector.load %H[%lane, %j2] : memref<32x32xi16, #regcopy.mem<global>>, vector<8xi16>
    %hw = vector.bitcast %h : vector<8xi16> to vector<4xi32>
    %s = arith.addi %n, %hw : vector<4xi32>
    %m = arith.muli %s, %n : vector<4xi32>
    %bits = vector.bitcast %ab : vector<4xf32> to vector<4xi32>
    %d = arith.subi %m, %bits : vector<4xi32>
    %i = arith.xori %d, %n : vector<4xi32>
    vector.store %i, %I[%lane, %j] : memref<32x16xi32, #regcopy.mem<global>>, vector<4xi32>
    %lo = vector.load %N[%lane, %j] : memref<32x16xi32, #regcopy.mem<global>>, vector<2xi32>
    %j1 = arith.addi %j, %c2 : index
    %hi = vector.load %N[%lane, %j1] : memref<32x16xi32, #regcopy.mem<global>>, vector<2xi32>
    %diff = arith.subi %lo, %hi : vector<2xi32>
    %k = arith.divui %j, %c2 : index
    vector.store %diff, %D[%lane, %k] : memref<32x8xi32, #regcopy.mem<global>>, vector<2xi32>
  }
  func.return
}
