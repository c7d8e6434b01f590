// Strided global buffers: a view of a larger matrix, memref<?x?xT, strided<[?, 1]>>. Addresses
// step rows by the runtime stride (memref.extract_strided_metadata; in CUDA a parameter after
// the extents), never by the row length. A stride promised a multiple of 4 f32
// (regcopy.stride_divisibility) keeps 128-bit vectors; no promise versions the copy on
// stride % 4 == 0. A static stride is a literal; cp.async shares the address code.
// RUN: regcopy-opt %s -p 'lower-reg-copy{remarks}' 2>%t.remarks | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
// RUN: regcopy-opt %s -p lower-reg-copy -t cuda 2>/dev/null | filecheck %s --check-prefix=CUDA
// RUN: regcopy-opt %s -p lower-reg-copy | regcopy-opt | filecheck %s --check-prefix=ROUND
// RUN: regcopy-opt %s -p 'lower-reg-copy{transfer=tma remarks}' 2>&1 >/dev/null | filecheck %s --check-prefix=TMA

func.func @promised(%X: memref<?x?xf32, strided<[?, 1]>, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 4>, regcopy.stride_divisibility = array<i64: 4, 1>}, %i: index {regcopy.divisibility = 32}) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %X[%i, 0] [32, 8] -> %R : memref<?x?xf32, strided<[?, 1]>, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK-LABEL: func.func @promised(
// CHECK:         %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %s0, %{{.*}} = memref.extract_strided_metadata %X : memref<?x?xf32, strided<[?, 1]>, #regcopy.mem<global>> -> memref<f32, #regcopy.mem<global>>, index, index, index, index, index
// CHECK-NEXT:    %[[ROW:.*]] = arith.addi %i, %lane : index
// CHECK-NEXT:    %{{.*}} = arith.muli %[[ROW]], %s0 : index
// CHECK-NOT:     %aligned
// CHECK:         vector.load %{{.*}} : memref<?xf32, #regcopy.mem<global>>, vector<4xf32>
// CHECK-NOT:     vector<1xf32>
// CHECK:         func.return
// REMARK: lower-reg-copy-strided.mlir:[[# @LINE - 11]]:3: remark: vec 4 × f32 (128 bits), 2 rounds, 8 registers/thread [copy %X -> %R in @promised]
// REMARK-NOT:    versioned
// REMARK:        bounds-checked
// CUDA: extern "C" __global__ void __launch_bounds__(32) promised(float* __restrict__ X, long long X_dim0, long long X_dim1, long long X_stride0, long long i) {
// CUDA:   const rc_index {{.*}} = {{.*}} * (rc_index)X_stride0;

func.func @versioned(%X: memref<?x?xf32, strided<[?, 1]>, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 4>}, %Y: memref<?x?xf32, strided<[?, 1]>, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %X[0, 0] [32, 8] -> %R : memref<?x?xf32, strided<[?, 1]>, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %Y[0, 0] [32, 8] : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xf32, strided<[?, 1]>, #regcopy.mem<global>>
  func.return
}
// CHECK-LABEL: func.func @versioned(
// CHECK:         %s0, %{{.*}} = memref.extract_strided_metadata %X
// CHECK:         %[[REM:.*]] = arith.remsi %s0, %{{.*}} : index
// CHECK-NEXT:    %aligned = arith.cmpi eq, %[[REM]], %{{.*}} : index
// CHECK:         scf.if %aligned {
// CHECK:           vector<4xf32>
// CHECK:         } else {
// CHECK:           vector<1xf32>
// REMARK: lower-reg-copy-strided.mlir:[[# @LINE - 12]]:3: remark: vec 4 × f32 (128 bits), 2 rounds, 8 registers/thread [copy %X -> %R in @versioned]
// REMARK:        versioned on %X stride 0 % 4 == 0: vec 4 × f32 else vec 1 × f32, each under its own predicate, 8 rounds (stride divisors [1, 1] prove 1)
// REMARK:        misaligned loads predicated by the cost model: 32 rows a warp, 4 × f32 a thread a row, proven 1;
// REMARK: lower-reg-copy-strided.mlir:[[# @LINE - 14]]:3: remark: vec 4 × f32 (128 bits), 2 rounds, 8 registers/thread [copy %R -> %Y in @versioned]
// REMARK:        ragged tail split to vec 1 (extent 1 has no divisibility promise)
// REMARK:        versioned on %Y stride 0 % 4 == 0: vec 4 × f32 else vec 1 × f32, each under its own predicate, 8 rounds (stride divisors [1, 1] prove 1)
// REMARK:        misaligned stores predicated by the cost model: 32 rows a warp, 4 × f32 a thread a row, proven 1;
// CUDA: versioned(float* __restrict__ X, long long X_dim0, long long X_dim1, long long X_stride0, float* __restrict__ Y, long long Y_dim0, long long Y_dim1, long long Y_stride0) {
// CUDA:   const rc_index {{.*}} = (rc_index)X_stride0 % 4;

func.func @static_stride(%X: memref<?x100xf32, strided<[4096, 1]>, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %X[0, 64] [32, 8] -> %R : memref<?x100xf32, strided<[4096, 1]>, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK-LABEL: func.func @static_stride(
// CHECK-NOT:     memref.extract_strided_metadata
// CHECK:         arith.muli %lane, %{{.*}} : index
// CHECK:         vector<4xf32>
// REMARK: lower-reg-copy-strided.mlir:[[# @LINE - 7]]:3: remark: vec 4 × f32 (128 bits), 2 rounds, 8 registers/thread [copy %X -> %R in @static_stride]
// REMARK:        bounds-checked: one predicate per vector (extent 0 of %X)
// CUDA: static_stride(float* __restrict__ X, long long X_dim0) {
// CUDA:   const rc_index {{.*}} = lane * 4096;

func.func @async_rows(%X: memref<?x?xf16, strided<[?, 1]>, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>, regcopy.stride_divisibility = array<i64: 2, 1>}, %i: index {regcopy.divisibility = 32}) attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %S = memref.alloca() : memref<32x64xf16, #regcopy.mem<shared>>
  %t = regcopy.copy_async cta %X[%i, 0] [32, 64] -> %S : memref<?x?xf16, strided<[?, 1]>, #regcopy.mem<global>> -> memref<32x64xf16, #regcopy.mem<shared>>
  %g = regcopy.async_group %t
  regcopy.async_wait %g {pending = 0 : i64}
  func.return
}
// CHECK-LABEL: func.func @async_rows(
// CHECK:         %s0, %{{.*}} = memref.extract_strided_metadata %X
// CHECK:         %aligned = arith.cmpi eq
// CHECK:         arith.muli %{{.*}}, %s0 : index
// CHECK:         regcopy.cp_async %{{.*}}, 16, %src_bytes
// REMARK: lower-reg-copy-strided.mlir:[[# @LINE - 10]]:3: remark: cp.async.cg 16 bytes (8 × f16), 2 chunks/thread [copy_async %X -> %S]
// REMARK:        versioned on %X stride 0 % 8 == 0: 16 bytes else cp.async.ca 4 bytes (2 × f16), 8 chunks/thread (stride divisors [2, 1] prove 2 × f16)
// CUDA: async_rows(rc_f16* __restrict__ X, long long X_dim0, long long X_dim1, long long X_stride0, long long i) {
// CUDA:   (rc_index)X_stride0 % 8;

// ROUND: memref.extract_strided_metadata %X : memref<?x?xf32, strided<[?, 1]>, #regcopy.mem<global>> -> memref<f32, #regcopy.mem<global>>, index, index, index, index, index

// TMA: remark: transfer=tma: the global buffer is strided<[?, 1]>: the runner encodes tensor maps of contiguous arrays only (a strided view's tensor map is not built yet) [copy_async]
// TMA:   lowered with cp.async instead
