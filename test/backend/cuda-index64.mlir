// The CUDA target (docs/ir.md): offsets into a buffer of 2^31 elements or more are computed in 64-bit integers
// (TIRx's dispatch breaks at exactly that size); smaller buffers keep 32-bit index math.
// RUN: regcopy-opt %s --split-input-file --lower-reg-copy -t cuda | filecheck %s

// 65536 x 32768 = 2^31 elements: index is long long, literals carry LL.
func.func @big(%B: memref<65536x32768xf32, #regcopy.mem<global>>,
               %C: memref<65536x32768xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [8192]>} {
  %R = memref.alloca() : memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>>
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c8 = arith.constant 8 : index
  %row = arith.muli %bx, %c8 : index
  regcopy.copy cta %B[%row, 0] [8, 1024] -> %R : memref<65536x32768xf32, #regcopy.mem<global>> -> memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %R -> %C[%row, 0] [8, 1024] : memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>> -> memref<65536x32768xf32, #regcopy.mem<global>>
  func.return
}

// CHECK-LABEL: void __launch_bounds__(256) big(float* __restrict__ B, float* __restrict__ C) {
// CHECK:         const long long bx = (long long)blockIdx.x;
// CHECK-NEXT:    const long long row = bx * 8LL;
// CHECK:         const long long {{.*}} = row * 32768LL;
// CHECK:         for (long long [[F:[a-z0-9_]+]] = 0LL; [[F]] < 8LL; [[F]] += 1LL) {
// CHECK:           const uint4 [[V:[a-z0-9_]+]] = *reinterpret_cast<const uint4*>(&B[{{.*}}]);
// CHECK-NOT:     const int

// -----

// One element fewer than 2^31 (65535 x 32768): 32-bit index math.
func.func @just_below(%B: memref<65535x32768xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [8191]>} {
  %R = memref.alloca() : memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>>
  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c8 = arith.constant 8 : index
  %row = arith.muli %bx, %c8 : index
  regcopy.copy cta %B[%row, 0] [8, 1024] -> %R : memref<65535x32768xf32, #regcopy.mem<global>> -> memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %R -> %B[%row, 0] [8, 1024] : memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>> -> memref<65535x32768xf32, #regcopy.mem<global>>
  func.return
}

// CHECK-LABEL: void __launch_bounds__(256) just_below(float* __restrict__ B) {
// CHECK:         const int bx = (int)blockIdx.x;
// CHECK-NEXT:    const int row = bx * 8;
// CHECK-NOT:     long long
