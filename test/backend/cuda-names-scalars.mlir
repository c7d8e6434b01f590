// Names and scalar parameters in the CUDA target. Kernel symbols that are C++ keywords, the
// printer's own names, reserved (__x) or not C identifiers at all are mangled (the PTX entry
// is the mangled name; KernelInfo.c_name records it); value names likewise. Integer and index
// arguments are scalar parameters in order with the buffers; regcopy.multiple_of prints as
// its operand.
// RUN: regcopy-opt %s -t cuda | filecheck %s
// RUN: regcopy-opt %s -t ptx | filecheck %s --check-prefix=PTX

// CHECK:      extern "C" __global__ void __launch_bounds__(32) k_class(float* __restrict__ arg_int, int K, long long w, unsigned short u) {
// CHECK-NEXT:   const int tid = (int)threadIdx.x;
// CHECK-NEXT:   const int i = tid + K;
// CHECK-NEXT:   const int j = i + 32;
// CHECK-NEXT:   const float v = arg_int[j];
// CHECK-NEXT:   arg_int[tid] = v;
// CHECK:      void __launch_bounds__(32) k_rc_f16(
// CHECK:      void __launch_bounds__(32) a_b(
// CHECK:      void __launch_bounds__(32) k_x(
// CHECK:      void __launch_bounds__(32) a_b_1(

// PTX-DAG: .entry k_class(
// PTX-DAG: .entry k_rc_f16(
// PTX-DAG: .entry a_b(
// PTX-DAG: .entry k_x(
// PTX-DAG: .entry a_b_1(

func.func @class(%int: memref<128xf32, #regcopy.mem<global>>,
                 %K: index {regcopy.divisibility = 32 : i64}, %w: i64, %u: ui16)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %K32 = regcopy.multiple_of %K, 32 : index
  %i = arith.addi %tid, %K32 : index
  %c32 = arith.constant 32 : index
  %c32m = regcopy.multiple_of %c32, 32 : index
  %j = arith.addi %i, %c32m : index
  %v = memref.load %int[%j] : memref<128xf32, #regcopy.mem<global>>
  memref.store %v, %int[%tid] : memref<128xf32, #regcopy.mem<global>>
  func.return
}

func.func @rc_f16(%a: memref<32xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  func.return
}

func.func @"a-b"(%a: memref<32xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  func.return
}

func.func @__x(%a: memref<32xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  func.return
}

func.func @"a b"(%a: memref<32xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  func.return
}
