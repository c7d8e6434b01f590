// The CUDA target's vector arithmetic: add/sub/mul on i32 lanes and on f32 lanes word by word
// (f32 through the never-contracted __f*_rn intrinsics), vector.bitcast of one size as a plain
// copy, bitwise ops on narrow vectors as one operation.
// RUN: regcopy-opt %s -t cuda | filecheck %s

func.func @lanes(%X: memref<64x4xi32, #regcopy.mem<global>>, %H: memref<64x8xi16, #regcopy.mem<global>>,
                 %F: memref<64x4xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 64, grid = [1]>} {
  %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %x = vector.load %X[%t, %c0] : memref<64x4xi32, #regcopy.mem<global>>, vector<4xi32>
  %h = vector.load %H[%t, %c0] : memref<64x8xi16, #regcopy.mem<global>>, vector<8xi16>
  %w = vector.bitcast %h : vector<8xi16> to vector<4xi32>
  %s = arith.addi %x, %w : vector<4xi32>
  %m = arith.muli %s, %x : vector<4xi32>
  vector.store %m, %X[%t, %c0] : memref<64x4xi32, #regcopy.mem<global>>, vector<4xi32>
  %p = vector.load %X[%t, %c0] : memref<64x4xi32, #regcopy.mem<global>>, vector<2xi32>
  %q = vector.load %X[%t, %c2] : memref<64x4xi32, #regcopy.mem<global>>, vector<2xi32>
  %d = arith.subi %p, %q : vector<2xi32>
  vector.store %d, %X[%t, %c0] : memref<64x4xi32, #regcopy.mem<global>>, vector<2xi32>
  %u = vector.load %X[%t, %c0] : memref<64x4xi32, #regcopy.mem<global>>, vector<1xi32>
  %v = arith.muli %u, %u : vector<1xi32>
  vector.store %v, %X[%t, %c2] : memref<64x4xi32, #regcopy.mem<global>>, vector<1xi32>
  %f = vector.bitcast %x : vector<4xi32> to vector<4xf32>
  %g = vector.load %F[%t, %c0] : memref<64x4xf32, #regcopy.mem<global>>, vector<4xf32>
  %y = arith.mulf %f, %g : vector<4xf32>
  %z = arith.subf %y, %g : vector<4xf32>
  vector.store %z, %F[%t, %c0] : memref<64x4xf32, #regcopy.mem<global>>, vector<4xf32>
  %hh = vector.load %H[%t, %c2] : memref<64x8xi16, #regcopy.mem<global>>, vector<2xi16>
  %o = arith.ori %hh, %hh : vector<2xi16>
  vector.store %o, %H[%t, %c0] : memref<64x8xi16, #regcopy.mem<global>>, vector<2xi16>
  func.return
}

// CHECK-LABEL: extern "C" __global__ void __launch_bounds__(64) lanes(
// CHECK:       const uint4 x = *reinterpret_cast<const uint4*>(&X[
// CHECK-NEXT:  const int {{.*}} = t * 8;
// CHECK-NEXT:  const uint4 h = *reinterpret_cast<const uint4*>(&H[
// CHECK-NEXT:  const uint4 w = h;
// CHECK-NEXT:  const uint4 s = {x.x + w.x, x.y + w.y, x.z + w.z, x.w + w.w};
// CHECK-NEXT:  const uint4 m = {s.x * x.x, s.y * x.y, s.z * x.z, s.w * x.w};
// CHECK:       const uint2 d = {p.x - q.x, p.y - q.y};
// CHECK:       const uint32_t v = u * u;
// CHECK:       const uint4 f = x;
// CHECK:       const uint4 y = {__float_as_uint(__fmul_rn(__uint_as_float(f.x), __uint_as_float(g.x))), __float_as_uint(__fmul_rn(__uint_as_float(f.y), __uint_as_float(g.y))), __float_as_uint(__fmul_rn(__uint_as_float(f.z), __uint_as_float(g.z))), __float_as_uint(__fmul_rn(__uint_as_float(f.w), __uint_as_float(g.w)))};
// CHECK-NEXT:  const uint4 z = {__float_as_uint(__fsub_rn(__uint_as_float(y.x), __uint_as_float(g.x))),
// CHECK:       const uint32_t o = (uint32_t)(hh | hh);
