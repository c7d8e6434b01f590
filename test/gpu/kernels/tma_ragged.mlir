// Two TMA loads through one mbarrier (phases 0 and 1) of 32x32 f32 boxes (128-byte rows,
// swizzle<2,3,3>) that hang over the edges of a 100x72 tensor: at (80, 48) (20 rows and 24
// columns inside) and at (-8, -16) (negative coordinates). Everything outside reads as 0.
func.func @tma_ragged(%G: memref<100x72xf32, #regcopy.mem<global>>, %O: memref<2048xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c48 = arith.constant 48 : index
  %c80 = arith.constant 80 : index
  %cm8 = arith.constant -8 : index
  %cm16 = arith.constant -16 : index
  %c128 = arith.constant 128 : index
  %c1024 = arith.constant 1024 : index
  %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %B = memref.alloca() : memref<1xi64, #regcopy.mem<shared>>
  %S = memref.alloca() {alignment = 1024 : i64} : memref<1024xf32, #regcopy.mem<shared>>
  %m = regcopy.tensor_map %G {box = array<i64: 32, 32>, swizzle = 128 : i64} : memref<100x72xf32, #regcopy.mem<global>>
  %elected = arith.cmpi eq, %tx, %c0 : index
  scf.if %elected {
    regcopy.mbarrier_init %B[%c0] {count = 1 : i64} : memref<1xi64, #regcopy.mem<shared>>
    regcopy.fence_barrier_init
  }
  "gpu.barrier"() : () -> ()
  scf.if %elected {
    regcopy.mbarrier_arrive_expect_tx %B[%c0] {bytes = 4096 : i64} : memref<1xi64, #regcopy.mem<shared>>
    regcopy.tma_load %m[%c80, %c48] -> %S[%c0], %B[%c0] : memref<1024xf32, #regcopy.mem<shared>>, memref<1xi64, #regcopy.mem<shared>>
  }
  regcopy.mbarrier_try_wait_parity %B[%c0], %c0 : memref<1xi64, #regcopy.mem<shared>>
  scf.for %i = %tx to %c1024 step %c128 {
    %v = memref.load %S[%i] : memref<1024xf32, #regcopy.mem<shared>>
    memref.store %v, %O[%i] : memref<2048xf32, #regcopy.mem<global>>
  }
  "gpu.barrier"() : () -> ()
  scf.if %elected {
    regcopy.mbarrier_arrive_expect_tx %B[%c0] {bytes = 4096 : i64} : memref<1xi64, #regcopy.mem<shared>>
    regcopy.tma_load %m[%cm8, %cm16] -> %S[%c0], %B[%c0] : memref<1024xf32, #regcopy.mem<shared>>, memref<1xi64, #regcopy.mem<shared>>
  }
  regcopy.mbarrier_try_wait_parity %B[%c0], %c1 : memref<1xi64, #regcopy.mem<shared>>
  scf.for %i = %tx to %c1024 step %c128 {
    %v = memref.load %S[%i] : memref<1024xf32, #regcopy.mem<shared>>
    %j = arith.addi %i, %c1024 : index
    memref.store %v, %O[%j] : memref<2048xf32, #regcopy.mem<global>>
  }
  func.return
}
