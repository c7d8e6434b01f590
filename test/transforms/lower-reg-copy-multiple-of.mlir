// regcopy.multiple_of keeps 128-bit transfers (docs/ir.md). Kept out of test/transforms until the
// CUDA target prints regcopy.multiple_of (test_cuda_lit_cases compiles every chunk there).
// RUN: regcopy-opt %s --lower-reg-copy | filecheck %s
// RUN: regcopy-opt %s -p 'lower-reg-copy{remarks=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

// A computed offset wrapped in regcopy.multiple_of.
func.func @multiple_of(%A: memref<128x4096xf16, #regcopy.mem<global>>, %k: index) attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %R = memref.alloca() : memref<128x64xf16, #regcopy.layout<(8,16,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>>
  %k8 = regcopy.multiple_of %k, 8 : index
  regcopy.copy cta %A[0, %k8] [128, 64] -> %R : memref<128x4096xf16, #regcopy.mem<global>> -> memref<128x64xf16, #regcopy.layout<(8,16,8,8):(8,8@tx,1@tx,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK-LABEL: func.func @multiple_of
// CHECK:         %k8 = regcopy.multiple_of %k, 8 : index
// CHECK:         vector.load {{.*}} vector<8xf16>
// REMARK: remark: vec 8 × f16 (128 bits), 8 rounds, 32 registers/thread (64 × f16) [copy %A -> %R in @multiple_of]

