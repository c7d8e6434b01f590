// Verifier errors of the TMA ops (the lowered form of transfer=tma).
//
// RUN: regcopy-opt %s --verify-diagnostics --split-input-file | filecheck %s

func.func @f(%G: memref<64x64xf16, #regcopy.mem<global>>) {
  %m = regcopy.tensor_map %G {box = array<i64: 300, 64>, swizzle = 128 : i64} : memref<64x64xf16, #regcopy.mem<global>>
  func.return
}
// CHECK: box [300, 64]: each size must be in 1..256

// -----

func.func @f(%G: memref<64x64xf16, #regcopy.mem<global>>) {
  %m = regcopy.tensor_map %G {box = array<i64: 64, 64>, swizzle = 16 : i64} : memref<64x64xf16, #regcopy.mem<global>>
  func.return
}
// CHECK: swizzle 16 must be one of 0, 32, 64, 128 (bytes)

// -----

func.func @f(%G: memref<64x64xf16, #regcopy.mem<global>>) {
  %m = regcopy.tensor_map %G {box = array<i64: 64>, swizzle = 0 : i64} : memref<64x64xf16, #regcopy.mem<global>>
  func.return
}
// CHECK: box [64] must have one size per dim of memref<64x64xf16, #regcopy.mem<global>> (1 to 5 dims)

// -----

func.func @f() {
  %c0 = arith.constant 0 : index
  %B = memref.alloca() : memref<2xi32, #regcopy.mem<shared>>
  regcopy.mbarrier_init %B[%c0] {count = 1 : i64} : memref<2xi32, #regcopy.mem<shared>>
  func.return
}
// CHECK: the mbarrier buffer must be a 1-D memref of i64, got memref<2xi32, #regcopy.mem<shared>>

// -----

func.func @f(%G: memref<64x64xf16, #regcopy.mem<global>>) {
  %c0 = arith.constant 0 : index
  %B = memref.alloca() : memref<1xi64, #regcopy.mem<shared>>
  %S = memref.alloca() : memref<64x64xf16, #regcopy.mem<shared>>
  %m = regcopy.tensor_map %G {box = array<i64: 64, 64>, swizzle = 128 : i64} : memref<64x64xf16, #regcopy.mem<global>>
  regcopy.tma_load %m[%c0, %c0] -> %S[%c0], %B[%c0] : memref<64x64xf16, #regcopy.mem<shared>>, memref<1xi64, #regcopy.mem<shared>>
  func.return
}
// CHECK: tma_load writes a flat (1-D) shared storage, got memref<64x64xf16, #regcopy.mem<shared>>; view the buffer with regcopy.storage

// -----

func.func @f(%G: memref<64x64xf16, #regcopy.mem<global>>) {
  %c0 = arith.constant 0 : index
  %B = memref.alloca() : memref<1xi64, #regcopy.mem<shared>>
  %S = memref.alloca() : memref<4096xf16, #regcopy.mem<shared>>
  %m = regcopy.tensor_map %G {box = array<i64: 64, 64>, swizzle = 128 : i64} : memref<64x64xf16, #regcopy.mem<global>>
  regcopy.tma_load %m[%c0] -> %S[%c0], %B[%c0] : memref<4096xf16, #regcopy.mem<shared>>, memref<1xi64, #regcopy.mem<shared>>
  func.return
}
// CHECK: tma_load takes 2 coordinates (the map's rank), got 1
