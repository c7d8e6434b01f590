// lower-layout-access: loads and stores by logical indices on a buffer that is not its own
// flat storage become regcopy.storage (once per buffer, after its definition) + index math
// (address.physical_offset: digits by shifts/masks, strides, the swizzle) + the access on the
// 1-D storage. Constant indices fold; a 1-D row-major buffer is left as it is.
// RUN: regcopy-opt %s --split-input-file -p lower-layout-access | filecheck %s
// RUN: xdsl-opt %s --split-input-file -p lower-layout-access | filecheck %s

func.func @access(%G: memref<64x16xf32, #regcopy.mem<global>>, %flat: memref<256xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<64x64xf32, #regcopy.layout<(64,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
  %F = memref.alloca() : memref<16x16xf32, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %lane = "gpu.lane_id"() : () -> index
  %c3 = arith.constant 3 : index
  %c9 = arith.constant 9 : index
  %x = memref.load %G[%lane, %c3] : memref<64x16xf32, #regcopy.mem<global>>
  memref.store %x, %S[%lane, %c9] : memref<64x64xf32, #regcopy.layout<(64,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
  memref.store %x, %F[%lane, %c9] : memref<16x16xf32, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %y = memref.load %S[%c3, %c9] : memref<64x64xf32, #regcopy.layout<(64,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
  memref.store %y, %flat[%lane] : memref<256xf32, #regcopy.mem<global>>
  %v = vector.load %G[%lane, %c3] : memref<64x16xf32, #regcopy.mem<global>>, vector<1xf32>
  func.return
}

// CHECK-LABEL: func.func @access
// CHECK-NEXT:    %[[G:.*]] = regcopy.storage %G : memref<64x16xf32, #regcopy.mem<global>> -> memref<1024xf32, #regcopy.mem<global>>
// CHECK-NEXT:    %S = memref.alloca()
// CHECK-NEXT:    %[[S:.*]] = regcopy.storage %S : {{.*}} -> memref<4096xf32, #regcopy.mem<shared>>
// CHECK-NEXT:    %F = memref.alloca()
// One thread's 8 registers: the storage of a local buffer drops the thread axes.
// CHECK-NEXT:    %[[F:.*]] = regcopy.storage %F : {{.*}} -> memref<8xf32, #regcopy.mem<local>>
// CHECK-NEXT:    %lane = "gpu.lane_id"() : () -> index
// CHECK-NEXT:    %c3 = arith.constant 3 : index
// CHECK-NEXT:    %c9 = arith.constant 9 : index

// Row-major global G[lane, 3]: lane * 16 + 3.
// CHECK-NEXT:    %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[ROW:.*]] = arith.muli %lane, %[[C16]] : index
// CHECK-NEXT:    %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:    %[[GOFF:.*]] = arith.addi %[[ROW]], %[[C3]] : index
// CHECK-NEXT:    %x = memref.load %[[G]][%[[GOFF]]] : memref<1024xf32, #regcopy.mem<global>>

// Swizzled shared S[lane, 9]: m = lane * 64 + 9, then m ^ (((m >> 6) & 7) << 3).
// CHECK-NEXT:    %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT:    %[[SROW:.*]] = arith.muli %lane, %[[C64]] : index
// CHECK-NEXT:    %[[C9:.*]] = arith.constant 9 : index
// CHECK-NEXT:    %[[M:.*]] = arith.addi %[[SROW]], %[[C9]] : index
// CHECK-NEXT:    %[[C6:.*]] = arith.constant 6 : index
// CHECK-NEXT:    %[[HI:.*]] = arith.shrsi %[[M]], %[[C6]] : index
// CHECK-NEXT:    %[[C7:.*]] = arith.constant 7 : index
// CHECK-NEXT:    %[[BITS:.*]] = arith.andi %[[HI]], %[[C7]] : index
// CHECK-NEXT:    %[[MASK:.*]] = arith.shli %[[BITS]], %[[C3]] : index
// CHECK-NEXT:    %[[SOFF:.*]] = arith.xori %[[M]], %[[MASK]] : index
// CHECK-NEXT:    memref.store %x, %[[S]][%[[SOFF]]] : memref<4096xf32, #regcopy.mem<shared>>

// The m16n8k16 A fragment F[lane, 9], in its owner: row lane = 8 * (lane >> 3) + (lane & 7)
// with 8:4@laneid dropped, so slot (lane >> 3) * 2; column 9 = 8 + 1 gives slots 4 and 1.
// CHECK-NEXT:    %[[R8:.*]] = arith.shrsi %lane, %[[C3]] : index
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[RS:.*]] = arith.muli %[[R8]], %[[C2]] : index
// CHECK-NEXT:    %[[C5:.*]] = arith.constant 5 : index
// CHECK-NEXT:    %[[FOFF:.*]] = arith.addi %[[RS]], %[[C5]] : index
// CHECK-NEXT:    memref.store %x, %[[F]][%[[FOFF]]] : memref<8xf32, #regcopy.mem<local>>

// Constant indices fold, swizzle included: S[3, 9] is 201 ^ (3 << 3) = 209.
// CHECK-NEXT:    %[[K:.*]] = arith.constant 209 : index
// CHECK-NEXT:    %y = memref.load %[[S]][%[[K]]] : memref<4096xf32, #regcopy.mem<shared>>
// A 1-D row-major buffer is its own storage: untouched.
// CHECK-NEXT:    memref.store %y, %flat[%lane] : memref<256xf32, #regcopy.mem<global>>
// A vector access on a row-major buffer reuses the offset already computed in this block.
// CHECK-NEXT:    %v = vector.load %[[G]][%[[GOFF]]] : memref<1024xf32, #regcopy.mem<global>>, vector<1xf32>
// CHECK-NEXT:    func.return

// -----

// Inside a loop: the storage stays after the buffer's definition, outside the loop; the math
// is in the loop body (the block of the access). A 3-D row-major T[2, lane, j] is
// lane * 16 + j + 2 * 128; a rank-0 buffer is the one element of its 1-element storage.
func.func @loop(%T: memref<4x8x16xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %acc = memref.alloca() : memref<f16, #regcopy.mem<shared>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %lane = "gpu.lane_id"() : () -> index
  scf.for %j = %c0 to %c16 step %c1 {
    %x = memref.load %T[%c2, %lane, %j] : memref<4x8x16xf16, #regcopy.mem<global>>
    memref.store %x, %acc[] : memref<f16, #regcopy.mem<shared>>
  }
  func.return
}

// CHECK-LABEL: func.func @loop
// CHECK-NEXT:    %[[T:.*]] = regcopy.storage %T : memref<4x8x16xf16, #regcopy.mem<global>> -> memref<512xf16, #regcopy.mem<global>>
// CHECK-NEXT:    %acc = memref.alloca() : memref<f16, #regcopy.mem<shared>>
// CHECK-NEXT:    %[[ACC:.*]] = regcopy.storage %acc : memref<f16, #regcopy.mem<shared>> -> memref<1xf16, #regcopy.mem<shared>>
// CHECK:         scf.for %j = %c0 to %c16 step %c1 {
// CHECK-NEXT:      %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT:      %[[ROW:.*]] = arith.muli %lane, %[[C16]] : index
// CHECK-NEXT:      %[[RJ:.*]] = arith.addi %[[ROW]], %j : index
// CHECK-NEXT:      %[[C256:.*]] = arith.constant 256 : index
// CHECK-NEXT:      %[[OFF:.*]] = arith.addi %[[RJ]], %[[C256]] : index
// CHECK-NEXT:      %x = memref.load %[[T]][%[[OFF]]] : memref<512xf16, #regcopy.mem<global>>
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:      memref.store %x, %[[ACC]][%[[ZERO]]] : memref<1xf16, #regcopy.mem<shared>>
// CHECK-NEXT:    }
