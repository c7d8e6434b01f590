// The lowered form of transfer=tma, written by hand: one elected thread initialises the
// mbarrier, arrives with the box's bytes and issues the bulk tensor copy of a 128B-swizzled
// 64x64 f16 box; every thread waits on the barrier's phase 0 and reads its element. The tensor
// map is an extra __grid_constant__ parameter after the kernel's own; the destination is
// 1024-byte aligned. NVRTC compiles it for sm_90 to UTMALDG.2D and the SYNCS barrier ops.
// RUN: regcopy-opt %s | filecheck %s --check-prefix=IR
// RUN: regcopy-opt %s -t cuda | filecheck %s --check-prefix=CUDA
// RUN: regcopy-opt %s -t sass | filecheck %s --check-prefix=SASS

func.func @tma_box(%G: memref<256x256xf16, #regcopy.mem<global>>, %O: memref<4096xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
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
    regcopy.tma_load %m[%c64, %c0] -> %S[%c0], %B[%c0] : memref<4096xf16, #regcopy.mem<shared>>, memref<1xi64, #regcopy.mem<shared>>
  }
  regcopy.mbarrier_try_wait_parity %B[%c0], %c0 : memref<1xi64, #regcopy.mem<shared>>
  %v = memref.load %S[%tx] : memref<4096xf16, #regcopy.mem<shared>>
  memref.store %v, %O[%tx] : memref<4096xf16, #regcopy.mem<global>>
  func.return
}

// IR: %m = regcopy.tensor_map %G {box = array<i64: 64, 64>, swizzle = 128 : i64} : memref<256x256xf16, #regcopy.mem<global>>
// IR: regcopy.mbarrier_init %B[%c0] {count = 1 : i64} : memref<1xi64, #regcopy.mem<shared>>
// IR: regcopy.fence_barrier_init
// IR: regcopy.mbarrier_arrive_expect_tx %B[%c0] {bytes = 8192 : i64} : memref<1xi64, #regcopy.mem<shared>>
// IR: regcopy.tma_load %m[%c64, %c0] -> %S[%c0], %B[%c0] : memref<4096xf16, #regcopy.mem<shared>>, memref<1xi64, #regcopy.mem<shared>>
// IR: regcopy.mbarrier_try_wait_parity %B[%c0], %c0 : memref<1xi64, #regcopy.mem<shared>>

// CUDA:      struct alignas(64) CUtensorMap { unsigned long long opaque[16]; };
// CUDA:      tma_box(rc_f16* __restrict__ G, rc_f16* __restrict__ O, const __grid_constant__ CUtensorMap m) {
// CUDA:      __shared__ alignas(1024) rc_f16 S[4096];
// CUDA:      mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(&B[0])), "r"(1)
// CUDA:      fence.proxy.async.shared::cta;
// CUDA:      __syncthreads();
// CUDA:      mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(&B[0])), "r"(8192)
// CUDA-NEXT: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" :: "r"((unsigned)__cvta_generic_to_shared(&S[0])), "l"(reinterpret_cast<unsigned long long>(&m)), "r"((int)(0)), "r"((int)(64)), "r"((unsigned)__cvta_generic_to_shared(&B[0]))
// CUDA:      for (unsigned rc_done{{[0-9]+}} = 0; !rc_done{{[0-9]+}};) {
// CUDA-NEXT:   mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;

// SASS:      SYNCS.EXCH.64
// SASS:      SYNCS.ARRIVE.TRANS64
// SASS:      UTMALDG.2D
// SASS:      SYNCS.PHASECHK.TRANS64.TRYWAIT
