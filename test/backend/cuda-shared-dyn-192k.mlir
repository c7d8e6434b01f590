// 192 KiB of dynamic shared memory (docs/ir.md): two shared.dyn buffers carved out of one
// extern __shared__ array at 128-byte aligned offsets (S: 704x128 f16 = 180224 bytes at 0,
// T: 64x128 f16 = 16384 bytes at 180224; 196608 bytes in all, over the 48 KiB static limit).
// The input tile goes through registers into T and into S's last rows, and back out to o1/o2:
// both must equal the input (test_runner.py runs it on the GPU).
// RUN: regcopy-opt %s --lower-reg-copy -t cuda | filecheck %s
// RUN: regcopy-opt %s --lower-reg-copy -t sass | filecheck %s --check-prefix=SASS

// CHECK:      extern __shared__ __align__(128) unsigned char rc_smem[];
// CHECK:      extern "C" __global__ void __launch_bounds__(256) shared_dyn_192k(
// CHECK-NEXT:   rc_f16* const S = reinterpret_cast<rc_f16*>(rc_smem + 0);  // shared.dyn, 90112 elements
// CHECK-NEXT:   rc_f16* const T = reinterpret_cast<rc_f16*>(rc_smem + 180224);  // shared.dyn, 8192 elements
// CHECK-NOT:  __shared__ alignas

// SASS: STS.128
// SASS: LDS.128
// SASS-NOT: {{LDL|STL}}

func.func @shared_dyn_192k(%in: memref<64x128xf16, #regcopy.mem<global>>,
                           %o1: memref<64x128xf16, #regcopy.mem<global>>,
                           %o2: memref<64x128xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [1]>} {
  %S = memref.alloca() : memref<704x128xf16, #regcopy.mem<shared.dyn>>
  %T = memref.alloca() : memref<64x128xf16, #regcopy.mem<shared.dyn>>
  %R = memref.alloca() : memref<64x128xf16, #regcopy.layout<(4,16,16,8):(8,16@tx,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %in -> %R : memref<64x128xf16, #regcopy.mem<global>> -> memref<64x128xf16, #regcopy.layout<(4,16,16,8):(8,16@tx,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %R -> %T : memref<64x128xf16, #regcopy.layout<(4,16,16,8):(8,16@tx,1@tx,1)>, #regcopy.mem<local>> -> memref<64x128xf16, #regcopy.mem<shared.dyn>>
  regcopy.copy cta %R[0, 0] [64, 128] -> %S[640, 0] [64, 128] : memref<64x128xf16, #regcopy.layout<(4,16,16,8):(8,16@tx,1@tx,1)>, #regcopy.mem<local>> -> memref<704x128xf16, #regcopy.mem<shared.dyn>>
  "gpu.barrier"() : () -> ()
  %R2 = memref.alloca() : memref<64x128xf16, #regcopy.layout<(4,16,16,8):(8,16@tx,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %T -> %R2 : memref<64x128xf16, #regcopy.mem<shared.dyn>> -> memref<64x128xf16, #regcopy.layout<(4,16,16,8):(8,16@tx,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %R2 -> %o1 : memref<64x128xf16, #regcopy.layout<(4,16,16,8):(8,16@tx,1@tx,1)>, #regcopy.mem<local>> -> memref<64x128xf16, #regcopy.mem<global>>
  regcopy.copy cta %S[640, 0] [64, 128] -> %R2[0, 0] [64, 128] : memref<704x128xf16, #regcopy.mem<shared.dyn>> -> memref<64x128xf16, #regcopy.layout<(4,16,16,8):(8,16@tx,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %R2 -> %o2 : memref<64x128xf16, #regcopy.layout<(4,16,16,8):(8,16@tx,1@tx,1)>, #regcopy.mem<local>> -> memref<64x128xf16, #regcopy.mem<global>>
  func.return
}
