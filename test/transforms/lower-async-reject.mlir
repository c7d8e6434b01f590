// copy_async regions that no cp.async fits: refused with every width's reason (an error
// under strict, a warning otherwise, and the printer names what is left unlowered).
// RUN: not regcopy-opt %s -p 'lower-reg-copy{strict}' 2>&1 | filecheck %s --check-prefix=STRICT
// RUN: not regcopy-opt %s -p lower-reg-copy -t cuda 2>&1 | filecheck %s --check-prefix=CUDA

// A 3-element row (6 bytes) fits no cp.async width: refused with every width's reason.
func.func @odd(%A: memref<128x64xf16, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<4x3xf16, #regcopy.mem<shared>>
  %t = regcopy.copy_async warp %A[0, 0] [4, 3] -> %S : memref<128x64xf16, #regcopy.mem<global>> -> memref<4x3xf16, #regcopy.mem<shared>>
  %g = regcopy.async_group %t
  regcopy.async_wait %g {pending = 0 : i64}
  func.return
}
// STRICT: lower-async-reject.mlir:[[# @LINE - 5]]:3: error: 'regcopy.copy_async' op rejected by lower-reg-copy: no cp.async width fits (4, 8 or 16 bytes, contiguous and aligned on both sides): not 16 bytes: the region's 12 elements are not a multiple of 8; not 8 bytes: global side: the contiguous run of 3 elements is not a multiple of 4; not 4 bytes: global side: the contiguous run of 3 elements is not a multiple of 2
// CUDA: warning: not lowered: no cp.async width fits
// CUDA: error: 'regcopy.copy_async' op is not lowered; run lower-reg-copy before -t cuda, ptx or sass
