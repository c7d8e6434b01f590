// 192 KiB of dynamic shared memory (over the 48 KiB static limit, under the H200's 227 KiB
// per-block opt-in): a 384 x 128 f32 tile goes global -> registers -> shared.dyn in 32-row
// blocks (thread t writes rows t/32 + 8j, 16 bytes per row), then, after a barrier, comes back
// shared -> registers -> global with another thread mapping (thread t reads rows 4(t/32) + j)
// and the 32-row blocks in reverse order. Expected: out[32b + i] = in[32(11 - b) + i].
func.func @shared_dyn_192k(%in: memref<384x128xf32, #regcopy.mem<global>>,
                           %out: memref<384x128xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [1]>} {
  %S = memref.alloca() : memref<384x128xf32, #regcopy.mem<shared.dyn>>
  %W = memref.alloca() : memref<32x128xf32, #regcopy.layout<(4,8,32,4):(4,32@tx,1@tx,1)>, #regcopy.mem<local>>
  %R = memref.alloca() : memref<32x128xf32, #regcopy.layout<(8,4,32,4):(32@tx,4,1@tx,1)>, #regcopy.mem<local>>
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c352 = arith.constant 352 : index
  %c384 = arith.constant 384 : index
  scf.for %r = %c0 to %c384 step %c32 {
    regcopy.copy cta %in[%r, 0] [32, 128] -> %W : memref<384x128xf32, #regcopy.mem<global>> -> memref<32x128xf32, #regcopy.layout<(4,8,32,4):(4,32@tx,1@tx,1)>, #regcopy.mem<local>>
    regcopy.copy cta %W -> %S[%r, 0] [32, 128] : memref<32x128xf32, #regcopy.layout<(4,8,32,4):(4,32@tx,1@tx,1)>, #regcopy.mem<local>> -> memref<384x128xf32, #regcopy.mem<shared.dyn>>
  }
  "gpu.barrier"() : () -> ()
  scf.for %r = %c0 to %c384 step %c32 {
    %src = arith.subi %c352, %r : index
    regcopy.copy cta %S[%src, 0] [32, 128] -> %R : memref<384x128xf32, #regcopy.mem<shared.dyn>> -> memref<32x128xf32, #regcopy.layout<(8,4,32,4):(32@tx,4,1@tx,1)>, #regcopy.mem<local>>
    regcopy.copy cta %R -> %out[%r, 0] [32, 128] : memref<32x128xf32, #regcopy.layout<(8,4,32,4):(32@tx,4,1@tx,1)>, #regcopy.mem<local>> -> memref<384x128xf32, #regcopy.mem<global>>
  }
  func.return
}
