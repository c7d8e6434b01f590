// Casts and float ops on the GPU and on the CPU interpreter (regcopy-run --check): saturating
// float -> int conversions (and NaN -> 0), i1/i8 sign and zero extension (extsi, index_cast), int -> f32 rounding,
// f64 -> f32 rounding, negf, minnumf with a NaN, maxnumf.
func.func @casts(%F: memref<32xf32, #regcopy.mem<global>>, %I: memref<32xi32, #regcopy.mem<global>>,
                 %OI: memref<32x7xi32, #regcopy.mem<global>>, %OF: memref<32x6xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %x = memref.load %F[%t] : memref<32xf32, #regcopy.mem<global>>
  %i = memref.load %I[%t] : memref<32xi32, #regcopy.mem<global>>
  %big = arith.constant 1.0e5 : f32
  %zero = arith.constant 0.0 : f32
  %tenth = arith.constant 0.1 : f64
  %xb = arith.mulf %x, %big : f32
  %nan = arith.divf %zero, %zero : f32
  %s0 = arith.fptosi %xb : f32 to i32
  %s1 = arith.fptoui %xb : f32 to i32
  %s2 = arith.fptosi %nan : f32 to i32
  %b = arith.trunci %i : i32 to i1
  %s3 = arith.extsi %b : i1 to i32
  %i8 = arith.trunci %i : i32 to i8
  %s4 = arith.extui %i8 : i8 to i32
  %s5 = arith.extsi %i8 : i8 to i32
  %ib = arith.index_cast %b : i1 to index
  %s6 = arith.index_cast %ib : index to i32
  memref.store %s0, %OI[%t, %c0] : memref<32x7xi32, #regcopy.mem<global>>
  memref.store %s1, %OI[%t, %c1] : memref<32x7xi32, #regcopy.mem<global>>
  memref.store %s2, %OI[%t, %c2] : memref<32x7xi32, #regcopy.mem<global>>
  memref.store %s3, %OI[%t, %c3] : memref<32x7xi32, #regcopy.mem<global>>
  memref.store %s4, %OI[%t, %c4] : memref<32x7xi32, #regcopy.mem<global>>
  memref.store %s5, %OI[%t, %c5] : memref<32x7xi32, #regcopy.mem<global>>
  memref.store %s6, %OI[%t, %c6] : memref<32x7xi32, #regcopy.mem<global>>
  %f0 = arith.sitofp %i : i32 to f32
  %f1 = arith.uitofp %i : i32 to f32
  %xd = arith.extf %x : f32 to f64
  %xt = arith.mulf %xd, %tenth : f64
  %f2 = arith.truncf %xt : f64 to f32
  %f3 = arith.negf %x : f32
  %f4 = arith.minnumf %x, %nan : f32
  %f5 = arith.maxnumf %x, %f3 : f32
  memref.store %f0, %OF[%t, %c0] : memref<32x6xf32, #regcopy.mem<global>>
  memref.store %f1, %OF[%t, %c1] : memref<32x6xf32, #regcopy.mem<global>>
  memref.store %f2, %OF[%t, %c2] : memref<32x6xf32, #regcopy.mem<global>>
  memref.store %f3, %OF[%t, %c3] : memref<32x6xf32, #regcopy.mem<global>>
  memref.store %f4, %OF[%t, %c4] : memref<32x6xf32, #regcopy.mem<global>>
  memref.store %f5, %OF[%t, %c5] : memref<32x6xf32, #regcopy.mem<global>>
  func.return
}
