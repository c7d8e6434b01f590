// The compute ops in the CUDA target: math functions (f32, f64, bf16 through f32, f32 vector
// lanes), maximumf/minimumf through NaN-propagating helpers, vector.broadcast of f32 lanes,
// scf.for with loop-carried values (a warp reduction by gpu.shuffle xor), gpu.shuffle of every
// mode with its valid bit. The module compiles with NVRTC (-t ptx).
// RUN: regcopy-opt %s -t cuda | filecheck %s
// RUN: regcopy-opt %s -t ptx | filecheck %s --check-prefix=PTX
// RUN: not regcopy-opt %S/Inputs/shuffle-width-16.mlir -t cuda 2>&1 | filecheck %s --check-prefix=WIDTH

// CHECK:      static __device__ __forceinline__ rc_bf16 rc_f32_to_bf16(float x) {
// CHECK:      static __device__ __forceinline__ float rc_bf16_to_f32(uint32_t h) {
// CHECK:      static __device__ __forceinline__ float rc_maximumf(float a, float b) {
// CHECK-NEXT:   const float m = a == b ? __int_as_float(__float_as_int(a) & __float_as_int(b)) : fmaxf(a, b);
// CHECK-NEXT:   return ((a != a) | (b != b)) ? __int_as_float(0x7fffffff) : m; }
// CHECK:      static __device__ __forceinline__ float rc_minimumf(float a, float b) {
// CHECK:      static __device__ __forceinline__ double rc_minimum(double a, double b) {

// CHECK-LABEL: extern "C" __global__ void __launch_bounds__(32) compute(
// CHECK:        const float e = expf(x);
// CHECK-NEXT:   const float e2 = exp2f(e);
// CHECK-NEXT:   const float l = logf(e2);
// CHECK-NEXT:   const float s = sqrtf(l);
// CHECK-NEXT:   const float r = rsqrtf(s);
// CHECK-NEXT:   const float t = tanhf(r);
// CHECK-NEXT:   const float f = fmaf(t, x, e);
// CHECK-NEXT:   const float mx = rc_maximumf(f, x);
// CHECK-NEXT:   const float mn = rc_minimumf(mx, e);
// CHECK-NEXT:   float a = mn;
// CHECK-NEXT:   int off = 16;
// CHECK-NEXT:   #pragma unroll
// CHECK-NEXT:   for (int i = 0; i < 5; i += 1) {
// CHECK-NEXT:     const float p = __shfl_xor_sync(0xffffffffu, a, (off & 31));
// CHECK-NEXT:     const float b = __fadd_rn(a, p);
// CHECK-NEXT:     const int off2 = (int)((unsigned int)off >> (unsigned int)1);
// CHECK-NEXT:     const float t0 = b;
// CHECK-NEXT:     const int t1 = off2;
// CHECK-NEXT:     a = t0;
// CHECK-NEXT:     off = t1;
// CHECK-NEXT:   }
// CHECK-NEXT:   X[lane] = a;
// CHECK:        const rc_bf16 he = rc_f32_to_bf16(expf(rc_bf16_to_f32(h)));
// CHECK-NEXT:   const rc_bf16 hm = rc_f32_to_bf16(rc_maximumf(rc_bf16_to_f32(he), rc_bf16_to_f32(h)));
// CHECK-NEXT:   const rc_bf16 hs = (rc_bf16)__shfl_down_sync(0xffffffffu, (int)hm, 16);
// CHECK-NEXT:   const bool hv = (int)(threadIdx.x % 32) + 16 <= 31;
// CHECK-NEXT:   const rc_bf16 hsel = hv ? hs : hm;
// CHECK:        const double de = tanh(d);
// CHECK-NEXT:   const double dm = rc_minimum(de, d);
// CHECK-NEXT:   const int di = (int)lane;
// CHECK-NEXT:   const double ds = __shfl_sync(0xffffffffu, dm, (di & 31));
// CHECK:        const int us = __shfl_up_sync(0xffffffffu, u, 3);
// CHECK-NEXT:   const bool uv = (int)(threadIdx.x % 32) >= 3;
// CHECK:        const uint4 xb = uint4{(unsigned)(__float_as_uint(x)), (unsigned)(__float_as_uint(x)), (unsigned)(__float_as_uint(x)), (unsigned)(__float_as_uint(x))};
// CHECK-NEXT:   const uint4 ve = uint4{(unsigned)(__float_as_uint(expf(__uint_as_float(v.x)))), {{.*}}, (unsigned)(__float_as_uint(expf(__uint_as_float(v.w))))};
// CHECK-NEXT:   const uint4 vm = uint4{(unsigned)(__float_as_uint(rc_maximumf(__uint_as_float(ve.x), __uint_as_float(xb.x)))), {{.*}}};

// Loop-carried values that swap: both are read before either is assigned.
// CHECK-LABEL: extern "C" __global__ void __launch_bounds__(32) swap(
// CHECK:        int a = 0;
// CHECK-NEXT:   int b = 1;
// CHECK-NEXT:   for (int i = 0; i < n; i += 1) {
// CHECK-NEXT:     const int c = a + b;
// CHECK-NEXT:     const int [[T0:t[0-9]+]] = b;
// CHECK-NEXT:     const int [[T1:t[0-9]+]] = c;
// CHECK-NEXT:     a = [[T0]];
// CHECK-NEXT:     b = [[T1]];
// CHECK-NEXT:   }
// CHECK-NEXT:   F[lane] = a;

// PTX: .visible .entry compute(
// PTX: shfl.sync.bfly.b32
// PTX: shfl.sync.down.b32
// PTX: shfl.sync.idx.b32
// PTX: shfl.sync.up.b32
// PTX: ex2.approx

// WIDTH: shuffle-width-16.mlir:7:3: error: 'gpu.shuffle' op has width 16; the regcopy targets shuffle whole warps: width must be the constant 32

func.func @compute(%X: memref<64xf32, #regcopy.mem<global>>, %H: memref<64xbf16, #regcopy.mem<global>>,
                   %D: memref<64xf64, #regcopy.mem<global>>, %V: memref<128xf32, #regcopy.mem<global>>,
                   %U: memref<64xi32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %lane = "gpu.lane_id"() : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %w = arith.constant 32 : i32
  %o3 = arith.constant 3 : i32
  %o16 = arith.constant 16 : i32
  %x = memref.load %X[%lane] : memref<64xf32, #regcopy.mem<global>>
  %e = math.exp %x : f32
  %e2 = math.exp2 %e : f32
  %l = math.log %e2 : f32
  %s = math.sqrt %l : f32
  %r = math.rsqrt %s : f32
  %t = math.tanh %r : f32
  %f = math.fma %t, %x, %e : f32
  %mx = arith.maximumf %f, %x : f32
  %mn = arith.minimumf %mx, %e : f32
  %red, %ofin = scf.for %i = %c0 to %c5 step %c1 iter_args(%a = %mn, %off = %o16) -> (f32, i32) {
    %p, %ok = gpu.shuffle xor %a, %off, %w : f32
    %b = arith.addf %a, %p : f32
    %one = arith.constant 1 : i32
    %off2 = arith.shrui %off, %one : i32
    scf.yield %b, %off2 : f32, i32
  }
  memref.store %red, %X[%lane] : memref<64xf32, #regcopy.mem<global>>
  %h = memref.load %H[%lane] : memref<64xbf16, #regcopy.mem<global>>
  %he = math.exp %h : bf16
  %hm = arith.maximumf %he, %h : bf16
  %hs, %hv = gpu.shuffle down %hm, %o16, %w : bf16
  %hsel = arith.select %hv, %hs, %hm : bf16
  memref.store %hsel, %H[%lane] : memref<64xbf16, #regcopy.mem<global>>
  %d = memref.load %D[%lane] : memref<64xf64, #regcopy.mem<global>>
  %de = math.tanh %d : f64
  %dm = arith.minimumf %de, %d : f64
  %di = arith.index_cast %lane : index to i32
  %ds, %dv = gpu.shuffle idx %dm, %di, %w : f64
  memref.store %ds, %D[%lane] : memref<64xf64, #regcopy.mem<global>>
  %u = memref.load %U[%lane] : memref<64xi32, #regcopy.mem<global>>
  %us, %uv = gpu.shuffle up %u, %o3, %w : i32
  %uvi = arith.extui %uv : i1 to i32
  %uo = arith.addi %us, %uvi : i32
  memref.store %uo, %U[%lane] : memref<64xi32, #regcopy.mem<global>>
  %base = arith.muli %lane, %c4 : index
  %v = vector.load %V[%base] : memref<128xf32, #regcopy.mem<global>>, vector<4xf32>
  %xb = vector.broadcast %x : f32 to vector<4xf32>
  %ve = math.exp %v : vector<4xf32>
  %vm = arith.maximumf %ve, %xb : vector<4xf32>
  vector.store %vm, %V[%base] : memref<128xf32, #regcopy.mem<global>>, vector<4xf32>
  func.return
}

func.func @swap(%F: memref<32xi32, #regcopy.mem<global>>, %n: index)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %lane = "gpu.lane_id"() : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i32
  %o = arith.constant 1 : i32
  %fa, %fb = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z, %b = %o) -> (i32, i32) {
    %c = arith.addi %a, %b : i32
    scf.yield %b, %c : i32, i32
  }
  memref.store %fa, %F[%lane] : memref<32xi32, #regcopy.mem<global>>
  func.return
}
