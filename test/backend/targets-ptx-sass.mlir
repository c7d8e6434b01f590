// -t ptx and -t sass (no GPU needed): the lowered seed row f32 k=8 compiles with NVRTC for
// sm_90; its shared transfers are 128-bit (ld.shared.v4 / LDS.128) and nothing spills to local
// memory. Both targets also work from stock xdsl-opt (xdsl.universe entry point). A bad arch
// is one diagnostic.
// RUN: regcopy-opt %s --lower-reg-copy -t ptx | filecheck %s --check-prefix=PTX
// RUN: xdsl-opt %s -p lower-reg-copy -t ptx | filecheck %s --check-prefix=PTX
// RUN: regcopy-opt %s --lower-reg-copy -t 'ptx{arch=sm_80}' | filecheck %s --check-prefix=PTX80
// RUN: regcopy-opt %s --lower-reg-copy -t sass | filecheck %s --check-prefix=SASS
// RUN: xdsl-opt %s -p lower-reg-copy -t sass | filecheck %s --check-prefix=SASS
// RUN: not regcopy-opt %s --lower-reg-copy -t 'ptx{arch=gpu9}' 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not regcopy-opt %s --lower-reg-copy -t 'sass{arch=sm_1}' 2>&1 | filecheck %s --check-prefix=NVRTC

// PTX:       .target sm_90
// PTX:       .visible .entry seed_f32_k8(
// PTX:       ld.shared.v4.u32
// PTX:       st.shared.v4.u32
// PTX-NOT:   .local

// PTX80:     .target sm_80

// SASS:      .text.seed_f32_k8
// SASS:      LDS.128
// SASS:      STS.128
// SASS-NOT:  {{LDL|STL}}

// BAD:       regcopy-opt: error: arch 'gpu9' is not a GPU architecture such as sm_90
// BAD-NOT:   Traceback

// NVRTC:     regcopy-opt: error: NVRTC could not compile regcopy.cu for sm_1:
// NVRTC-NOT: Traceback

func.func @seed_f32_k8(%in: memref<32x8xf32, #regcopy.mem<global>>,
                       %out: memref<32x8xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %A = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared>>
  %B = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %lane = "gpu.lane_id"() : () -> index
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  scf.for %j = %c0 to %c8 step %c1 {
    %v = memref.load %in[%lane, %j] : memref<32x8xf32, #regcopy.mem<global>>
    memref.store %v, %A[%lane, %j] : memref<32x8xf32, #regcopy.mem<shared>>
  }
  "gpu.barrier"() : () -> ()
  regcopy.copy warp %A -> %R : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %B : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x8xf32, #regcopy.mem<shared>>
  "gpu.barrier"() : () -> ()
  scf.for %j = %c0 to %c8 step %c1 {
    %v = memref.load %B[%lane, %j] : memref<32x8xf32, #regcopy.mem<shared>>
    memref.store %v, %out[%lane, %j] : memref<32x8xf32, #regcopy.mem<global>>
  }
  func.return
}
