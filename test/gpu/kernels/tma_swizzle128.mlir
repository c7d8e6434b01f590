// One TMA load of a 64x64 f16 box at (64, 128) of a 256x256 tensor with the 128-byte swizzle
// (regcopy swizzle<3,3,3>), then every thread copies the raw shared bytes out: O must equal
// the interpreter's tma_load_into bit for bit.
func.func @tma_swizzle128(%G: memref<256x256xf16, #regcopy.mem<global>>, %O: memref<4096xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c4096 = arith.constant 4096 : index
  %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %B = memref.alloca() : memref<1xi64, #regcopy.mem<shared>>
  %S = memref.alloca() {alignment = 1024 : i64} : memref<4096xf16, #regcopy.mem<shared>>
  %m = regcopy.tensor_map %G {box = array<i64: 64, 64>, swizzle = 128 : i64} : memref<256x256xf16, #regcopy.mem<global>>
  %elected = arith.cmpi eq, %tx, %c0 : index
  scf.if %elected {
    regcopy.mbarrier_init %B[%c0] {count = 1 : i64} : memref<1xi64, #regcopy.mem<shared>>
    regcopy.fence_barrier_init
  }
  "gpu.barrier"() : () -> ()
  scf.if %elected {
    regcopy.mbarrier_arrive_expect_tx %B[%c0] {bytes = 8192 : i64} : memref<1xi64, #regcopy.mem<shared>>
    regcopy.tma_load %m[%c64, %c128] -> %S[%c0], %B[%c0] : memref<4096xf16, #regcopy.mem<shared>>, memref<1xi64, #regcopy.mem<shared>>
  }
  regcopy.mbarrier_try_wait_parity %B[%c0], %c0 : memref<1xi64, #regcopy.mem<shared>>
  scf.for %i = %tx to %c4096 step %c128 {
    %v = memref.load %S[%i] : memref<4096xf16, #regcopy.mem<shared>>
    memref.store %v, %O[%i] : memref<4096xf16, #regcopy.mem<global>>
  }
  func.return
}
