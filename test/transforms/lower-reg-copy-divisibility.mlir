// Divisibility that follows the program (docs/ir.md): scf.for induction variables, index
// arithmetic, kernel-argument promises and regcopy.multiple_of keep 128-bit transfers; an
// unpromised argument narrows and the remark says which promise would lift it.
// RUN: regcopy-opt %s --split-input-file --lower-reg-copy | filecheck %s
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{remarks=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

// The GEMM K-loop of issue 7: %k = 0, 64, 128, ... is a multiple of gcd(0, 64) = 64.
func.func @k_loop(%A: memref<128x4096xf16, #regcopy.mem<global>>, %cK: index) attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %R = memref.alloca() : memref<128x64xf16, #regcopy.layout<(8,16,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>>
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  scf.for %k = %c0 to %cK step %c64 {
    regcopy.copy cta %A[0, %k] [128, 64] -> %R : memref<128x4096xf16, #regcopy.mem<global>> -> memref<128x64xf16, #regcopy.layout<(8,16,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>>
  }
  func.return
}
// CHECK-LABEL: func.func @k_loop
// CHECK:         scf.for %k = %c0 to %cK step %c64 {
// CHECK:           vector.load {{.*}} vector<8xf16>
// CHECK-NOT:       regcopy.copy
// REMARK: remark: vec 8 × f16 (128 bits), 8 rounds, 32 registers/thread (64 × f16) [copy %A -> %R in @k_loop]

// -----

// A loop whose lower bound is bx * 256 + 128 and whose step is 128: gcd(128, 128) = 128.
func.func @lb_offset(%A: memref<128x65536xf16, #regcopy.mem<global>>, %cK: index) attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [4]>} {
  %R = memref.alloca() : memref<128x64xf16, #regcopy.layout<(8,16,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>>
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c256 = arith.constant 256 : index
  %c128 = arith.constant 128 : index
  %b = arith.muli %bx, %c256 : index
  %lb = arith.addi %b, %c128 : index
  scf.for %k = %lb to %cK step %c128 {
    regcopy.copy cta %A[0, %k] [128, 64] -> %R : memref<128x65536xf16, #regcopy.mem<global>> -> memref<128x64xf16, #regcopy.layout<(8,16,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>>
  }
  func.return
}
// CHECK-LABEL: func.func @lb_offset
// CHECK:         vector.load {{.*}} vector<8xf16>
// REMARK: remark: vec 8 × f16 (128 bits), 8 rounds, 32 registers/thread (64 × f16) [copy %A -> %R in @lb_offset]

// -----

// An index kernel argument that promises divisibility by 64.
func.func @promised_arg(%A: memref<128x4096xf16, #regcopy.mem<global>>, %k: index {regcopy.divisibility = 64 : i64}) attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %R = memref.alloca() : memref<128x64xf16, #regcopy.layout<(8,16,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %A[0, %k] [128, 64] -> %R : memref<128x4096xf16, #regcopy.mem<global>> -> memref<128x64xf16, #regcopy.layout<(8,16,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK-LABEL: func.func @promised_arg
// CHECK:         vector.load {{.*}} vector<8xf16>
// REMARK: remark: vec 8 × f16 (128 bits), 8 rounds, 32 registers/thread (64 × f16) [copy %A -> %R in @promised_arg]

// -----

// An i32 kernel argument promised a multiple of 16, cast to index and shifted by 3 bits
// from a masked lane-independent value: (k & -16) + (j << 3) is a multiple of 8.
func.func @promised_i32_arithmetic(%A: memref<128x4096xf16, #regcopy.mem<global>>, %k32: i32 {regcopy.divisibility = 16 : i64}, %j: index) attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %R = memref.alloca() : memref<128x64xf16, #regcopy.layout<(8,16,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>>
  %k = arith.index_cast %k32 : i32 to index
  %cm = arith.constant -16 : index
  %c3 = arith.constant 3 : index
  %km = arith.andi %k, %cm : index
  %j8 = arith.shli %j, %c3 : index
  %col = arith.addi %km, %j8 : index
  regcopy.copy cta %A[0, %col] [128, 64] -> %R : memref<128x4096xf16, #regcopy.mem<global>> -> memref<128x64xf16, #regcopy.layout<(8,16,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK-LABEL: func.func @promised_i32_arithmetic
// CHECK:         vector.load {{.*}} vector<8xf16>
// REMARK: remark: vec 8 × f16 (128 bits), 8 rounds, 32 registers/thread (64 × f16) [copy %A -> %R in @promised_i32_arithmetic]

// -----

// The same copy from an unpromised argument narrows to 16 bits; the remark names the argument
// and the promise that would lift it.
func.func @unpromised_arg(%A: memref<128x4096xf16, #regcopy.mem<global>>, %k: index) attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %R = memref.alloca() : memref<128x64xf16, #regcopy.layout<(8,16,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %A[0, %k] [128, 64] -> %R : memref<128x4096xf16, #regcopy.mem<global>> -> memref<128x64xf16, #regcopy.layout<(8,16,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK-LABEL: func.func @unpromised_arg
// CHECK:         vector.load {{.*}} vector<1xf16>
// REMARK: remark: vec 1 × f16 (16 bits), 64 rounds, 32 registers/thread (64 × f16) [copy %A -> %R in @unpromised_arg]
// REMARK:      narrowed: 8-wide refused: S offset %k (provably a multiple of 1) times stride 1 is not a multiple of 8; for 128-bit transfers, add {regcopy.divisibility = 8 : i64} to kernel argument %k

// -----

// A loop with an odd step narrows; the remark suggests fixing the loop or wrapping the IV.
func.func @odd_step(%A: memref<128x4096xf16, #regcopy.mem<global>>, %cK: index) attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %R = memref.alloca() : memref<128x64xf16, #regcopy.layout<(8,16,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>>
  %c0 = arith.constant 0 : index
  %c68 = arith.constant 68 : index
  scf.for %k = %c0 to %cK step %c68 {
    regcopy.copy cta %A[0, %k] [128, 64] -> %R : memref<128x4096xf16, #regcopy.mem<global>> -> memref<128x64xf16, #regcopy.layout<(8,16,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>>
  }
  func.return
}
// CHECK-LABEL: func.func @odd_step
// CHECK:         vector.load {{.*}} vector<4xf16>
// REMARK: remark: vec 4 × f16 (64 bits), 16 rounds, 32 registers/thread (64 × f16) [copy %A -> %R in @odd_step]
// REMARK:      narrowed: 8-wide refused: S offset %k (provably a multiple of 68) times stride 1 is not a multiple of 8; for 128-bit transfers, make the loop's lower bound and step multiples of 8, or wrap it: %k_8 = regcopy.multiple_of %k, 8 : index
