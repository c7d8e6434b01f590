// lower-reg-copy on the async copies: per-thread cp.async chunks (the widest legal width),
// a swizzled shared.dyn ring, a dynamic offset with its divisibility, tokens dropped from the
// loop and branch that carried them; remarks; CUDA and SASS.
// RUN: regcopy-opt %s -p 'lower-reg-copy{remarks}' 2>%t.remarks | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
// RUN: regcopy-opt %s -p lower-reg-copy -t cuda | filecheck %s --check-prefix=CUDA
// RUN: regcopy-opt %s -p lower-reg-copy -t sass | filecheck %s --check-prefix=SASS

func.func @ring(%A: memref<128x64xf16, #regcopy.mem<global>>, %i: index {regcopy.divisibility = 32}) attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %S = memref.alloca() : memref<3x32x64xf16, #regcopy.layout<(3,32,64):(2048,64,1), swizzle<3,3,3>>, #regcopy.mem<shared.dyn>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %true = arith.constant true
  %t = regcopy.copy_async cta %A[%i, 0] [32, 64] -> %S[0, 0, 0] [1, 32, 64] : memref<128x64xf16, #regcopy.mem<global>> -> memref<3x32x64xf16, #regcopy.layout<(3,32,64):(2048,64,1), swizzle<3,3,3>>, #regcopy.mem<shared.dyn>>
  %g = regcopy.async_group %t
  %last = scf.for %k = %c0 to %c3 step %c1 iter_args(%p = %g) -> (!regcopy.token) {
    regcopy.async_wait %p {pending = 0 : i64}
    "gpu.barrier"() : () -> ()
    %n = scf.if %true -> (!regcopy.token) {
      %u = regcopy.copy_async cta %A[%k, 0] [32, 64] -> %S[%k, 0, 0] [1, 32, 64] : memref<128x64xf16, #regcopy.mem<global>> -> memref<3x32x64xf16, #regcopy.layout<(3,32,64):(2048,64,1), swizzle<3,3,3>>, #regcopy.mem<shared.dyn>>
      %e = regcopy.async_group %u
      scf.yield %e : !regcopy.token
    } else {
      %e2 = regcopy.async_group
      scf.yield %e2 : !regcopy.token
    }
    scf.yield %n : !regcopy.token
  }
  regcopy.async_wait %last {pending = 0 : i64}
  func.return
}

// CHECK-LABEL: func.func @ring(
// CHECK:         %tid = "gpu.thread_id"()
// CHECK:         regcopy.cp_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], 16, %{{.*}} : memref<6144xf16, #regcopy.mem<shared.dyn>> -> memref<8192xf16, #regcopy.mem<global>>
// CHECK:         regcopy.cp_async %{{.*}}, 16, %{{.*}} : memref<6144xf16, #regcopy.mem<shared.dyn>> -> memref<8192xf16, #regcopy.mem<global>>
// CHECK-NEXT:    regcopy.cp_async_commit
// CHECK-NEXT:    scf.for %k = %c0 to %c3 step %c1 {
// CHECK-NEXT:      regcopy.cp_async_wait 0
// CHECK-NEXT:      "gpu.barrier"() : () -> ()
// CHECK-NEXT:      scf.if %true {
// CHECK:             regcopy.cp_async_commit
// CHECK-NEXT:      } else {
// CHECK-NEXT:        regcopy.cp_async_commit
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    regcopy.cp_async_wait 0
// CHECK-NOT:     regcopy.token

// REMARK: lower-async.mlir:15:3: remark: cp.async.cg 16 bytes (8 × f16), 2 chunks/thread [copy_async %A -> %S]
// REMARK: no zero-fill: every chunk is inside the buffer (static shapes)
// REMARK: lower-async.mlir:21:7: remark: cp.async.cg 16 bytes (8 × f16), 2 chunks/thread [copy_async %A -> %S]

// CUDA-LABEL: void __launch_bounds__(128) ring(
// CUDA:         asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"((unsigned)__cvta_generic_to_shared(&S[{{.*}}])), "l"(&A[{{.*}}]), "r"((unsigned)(16)) : "memory");
// CUDA:         asm volatile("cp.async.commit_group;" ::: "memory");
// CUDA:         asm volatile("cp.async.wait_group 0;" ::: "memory");
// CUDA-NEXT:    __syncthreads();

// SASS: LDGSTS.E.BYPASS.128
// SASS: LDGDEPBAR
// SASS: DEPBAR.LE SB0, 0x0

// A 16x16 f32 tile at column %j (a multiple of 2 only): 8-byte chunks, 64 of them for 32
// threads; said why not 16 bytes.
func.func @narrow(%B: memref<64x64xf32, #regcopy.mem<global>>, %j: index {regcopy.divisibility = 2}) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<16x16xf32, #regcopy.mem<shared>>
  %t = regcopy.copy_async warp %B[0, %j] [16, 16] -> %S : memref<64x64xf32, #regcopy.mem<global>> -> memref<16x16xf32, #regcopy.mem<shared>>
  %g = regcopy.async_group %t
  regcopy.async_wait %g {pending = 0 : i64}
  func.return
}
// CHECK-LABEL: func.func @narrow(
// CHECK-COUNT-4: regcopy.cp_async %{{.*}}, 8, %{{.*}}
// REMARK: lower-async.mlir:[[# @LINE - 7]]:3: remark: cp.async.ca 8 bytes (2 × f32), 4 chunks/thread [copy_async %B -> %S]
// REMARK: ^
// REMARK-NEXT: narrowed: not 16 bytes: global side: chunk starts are multiples of 2 elements only, not of 4
// CUDA: asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;"
