// The seed demo through lower-reg-copy and -t cuda (docs/ir.md): shared and register buffers,
// one uint4 transfer per round, unrolled per-round loops, kernel name and parameter order.
// RUN: regcopy-opt %s -p 'lower-reg-copy{bank-rotation=off}' -t cuda | filecheck %s
// RUN: xdsl-opt %s -p 'lower-reg-copy{bank-rotation=off}' -t cuda | filecheck %s
// Lane-rotated rounds (the default): selects between vectors print as bitwise blends, never
// as `c ? a : b` (which ptxas turns into predicated duplicate stores).
// RUN: regcopy-opt %s --lower-reg-copy -t cuda | filecheck %s --check-prefix=ROT
// ROT: extern "C" __global__
// ROT-NOT: const uint4 {{.*}} ? {{.*}};
// The blend mask is integer arithmetic on the lane bit where the printer names it, else it
// comes from the bool lane_b2.
// ROT: const uint4 {{.*}} = {{[{]}}{{.*}} ^ (({{.*}}) & (0u - (unsigned){{lane_b2|\([a-z0-9_]+ & 1\)}})), {{.*}}};
// ROT-NOT: const uint4 {{.*}} ? {{.*}};

func.func @seed_demo(%in: memref<32x8xf32, #regcopy.mem<global>>,
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
  regcopy.copy warp %A[0, 0] [32, 8] -> %R[0, 0] [32, 8] : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %B : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x8xf32, #regcopy.mem<shared>>
  "gpu.barrier"() : () -> ()
  scf.for %j = %c0 to %c8 step %c1 {
    %v = memref.load %B[%lane, %j] : memref<32x8xf32, #regcopy.mem<shared>>
    memref.store %v, %out[%lane, %j] : memref<32x8xf32, #regcopy.mem<global>>
  }
  func.return
}

// CHECK-LABEL: extern "C" __global__ void __launch_bounds__(32) seed_demo(float* __restrict__ in, float* __restrict__ out) {
// CHECK-NEXT:    __shared__ alignas(128) float A[256];
// CHECK-NEXT:    __shared__ alignas(128) float B[256];
// CHECK-NEXT:    alignas(16) float R[8];
// CHECK-NEXT:    const int lane = (int)(threadIdx.x % 32);
// CHECK-NEXT:    #pragma unroll
// CHECK-NEXT:    for (int j = 0; j < 8; j += 1) {
// CHECK-NEXT:      const int [[LANE8:v[0-9]+]] = lane * 8;
// CHECK-NEXT:      const int off = [[LANE8]] + j;
// CHECK-NEXT:      const float v = in[off];
// CHECK-NEXT:      A[off] = v;
// CHECK-NEXT:    }
// CHECK-NEXT:    __syncthreads();

// shared -> registers: per-lane base lane * 8, 2 rounds of one 16-byte transfer.
// CHECK-NEXT:    const int [[L1:[a-z0-9_]+]] = (int)(threadIdx.x % 32);
// CHECK-NEXT:    const int [[BASE1:[a-z0-9_]+]] = [[L1]] * 8;
// CHECK-NEXT:    #pragma unroll
// CHECK-NEXT:    for (int [[F1:[a-z0-9_]+]] = 0; [[F1]] < 2; [[F1]] += 1) {
// CHECK-NEXT:      const int [[D1:[a-z0-9_]+]] = [[F1]] * 4;
// CHECK-NEXT:      const int [[O1:[a-z0-9_]+]] = [[BASE1]] + [[D1]];
// CHECK-NEXT:      const uint4 [[V1:[a-z0-9_]+]] = *reinterpret_cast<const uint4*>(&A[[[O1]]]);
// CHECK-NEXT:      *reinterpret_cast<uint4*>(&R[[[D1]]]) = [[V1]];
// CHECK-NEXT:    }

// registers -> shared, the same plan the other way.
// CHECK-NEXT:    const int [[L2:[a-z0-9_]+]] = (int)(threadIdx.x % 32);
// CHECK-NEXT:    const int [[BASE2:[a-z0-9_]+]] = [[L2]] * 8;
// CHECK-NEXT:    #pragma unroll
// CHECK-NEXT:    for (int [[F2:[a-z0-9_]+]] = 0; [[F2]] < 2; [[F2]] += 1) {
// CHECK-NEXT:      const int [[D2:[a-z0-9_]+]] = [[F2]] * 4;
// CHECK-NEXT:      const int [[O2:[a-z0-9_]+]] = [[BASE2]] + [[D2]];
// CHECK-NEXT:      const uint4 [[V2:[a-z0-9_]+]] = *reinterpret_cast<const uint4*>(&R[[[D2]]]);
// CHECK-NEXT:      *reinterpret_cast<uint4*>(&B[[[O2]]]) = [[V2]];
// CHECK-NEXT:    }
// CHECK-NEXT:    __syncthreads();
// CHECK-NOT:     regcopy
// CHECK:       }
