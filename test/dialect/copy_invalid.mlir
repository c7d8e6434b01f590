// Verifier errors of regcopy.copy and regcopy.storage.
//
// RUN: regcopy-opt %s --verify-diagnostics --split-input-file | filecheck %s

// A layout that cannot be grouped against its buffer's shape names both.
func.func @f(%A: memref<6x4xf32, #regcopy.mem<shared>>, %R: memref<6x4xf32, #regcopy.layout<(4,6):(6,1)>, #regcopy.mem<local>>) {
  regcopy.copy thread %A -> %R : memref<6x4xf32, #regcopy.mem<shared>> -> memref<6x4xf32, #regcopy.layout<(4,6):(6,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: dst: layout (4,6):(6,1) does not fit buffer shape [6, 4]
// CHECK: Operation does not verify: dst: layout (4,6):(6,1) does not fit buffer shape [6, 4]

// -----

func.func @f(%A: memref<32x8xf32, #regcopy.layout<(16,16):(16,1)>, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A -> %R : memref<32x8xf32, #regcopy.layout<(16,16):(16,1)>, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %A : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x8xf32, #regcopy.layout<(16,16):(16,1)>, #regcopy.mem<shared>>
  func.return
}
// The iter 16:1 is split into 2:8 and 8:1 (as TIRx's group does), so this layout groups.
// CHECK-NOT: Operation does not verify
// CHECK: regcopy.copy

// -----

func.func @f(%A: memref<32x8xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A -> %R : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: dst: layout (32,4):(1@laneid,1) does not fit buffer shape [32, 8]: {{.*}} has 128 elements, shape [32, 8] has 256

// -----

// Thread axes are for local buffers only.
func.func @f(%A: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A -> %R : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: src: layout (32,8):(1@laneid,1) of a shared buffer has thread axes; only local buffers are distributed over threads

// -----

func.func @f(%G: memref<256x4xf32, #regcopy.layout<(256,4):(1@tx,1)>, #regcopy.mem<global>>, %R: memref<256x4xf32, #regcopy.layout<(256,4):(1@tx,1)>, #regcopy.mem<local>>) {
  regcopy.copy cta %R -> %G : memref<256x4xf32, #regcopy.layout<(256,4):(1@tx,1)>, #regcopy.mem<local>> -> memref<256x4xf32, #regcopy.layout<(256,4):(1@tx,1)>, #regcopy.mem<global>>
  func.return
}
// CHECK: dst: layout (256,4):(1@tx,1) of a global buffer has thread axes; only local buffers are distributed over threads

// -----

func.func @f(%D: memref<32x8xf32, #regcopy.layout<(32,8):(8@warpid,1)>, #regcopy.mem<shared.dyn>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %D -> %R : memref<32x8xf32, #regcopy.layout<(32,8):(8@warpid,1)>, #regcopy.mem<shared.dyn>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: src: layout (32,8):(8@warpid,1) of a shared.dyn buffer has thread axes; only local buffers are distributed over threads

// -----

// Swizzles are for the shared side.
func.func @f(%A: memref<32x8xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(8,1), swizzle<1,1,1>>, #regcopy.mem<local>>) {
  regcopy.copy thread %A -> %R : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(8,1), swizzle<1,1,1>>, #regcopy.mem<local>>
  func.return
}
// CHECK: dst: layout (32,8):(8,1), swizzle<1,1,1> of a local buffer is swizzled; swizzles are for shared buffers

// -----

// Element types: sub-byte types are rejected with a clear message.
func.func @f(%A: memref<32x8xi4, #regcopy.mem<shared>>, %R: memref<32x8xi4, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A -> %R : memref<32x8xi4, #regcopy.mem<shared>> -> memref<32x8xi4, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: src: element type i4 is not supported (sub-byte element types are not supported); expected one of f64 f32 f16 bf16 i64 i32 i16 i8 ui8 f8E4M3FN f8E5M2

// -----

func.func @f(%A: memref<32x8xf4E2M1FN, #regcopy.mem<shared>>, %R: memref<32x8xf4E2M1FN, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %R -> %A : memref<32x8xf4E2M1FN, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x8xf4E2M1FN, #regcopy.mem<shared>>
  func.return
}
// CHECK: src: element type f4E2M1FN is not supported (sub-byte element types are not supported); expected one of f64 f32 f16 bf16 i64 i32 i16 i8 ui8 f8E4M3FN f8E5M2

// -----

func.func @f(%A: memref<32x8xi1, #regcopy.mem<shared>>, %R: memref<32x8xi1, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A -> %R : memref<32x8xi1, #regcopy.mem<shared>> -> memref<32x8xi1, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: src: element type i1 is not supported (sub-byte element types are not supported)

// -----

func.func @f(%A: memref<32x8xsi32, #regcopy.mem<shared>>, %R: memref<32x8xsi32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A -> %R : memref<32x8xsi32, #regcopy.mem<shared>> -> memref<32x8xsi32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: src: element type si32 is not supported; expected one of f64 f32 f16 bf16 i64 i32 i16 i8 ui8 f8E4M3FN f8E5M2

// -----

func.func @f(%A: memref<32x8xcomplex<f32>, #regcopy.mem<shared>>, %R: memref<32x8xcomplex<f32>, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A -> %R : memref<32x8xcomplex<f32>, #regcopy.mem<shared>> -> memref<32x8xcomplex<f32>, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: src: element type complex<f32> is not supported; expected one of

// -----

func.func @f(%A: memref<32x8xf16, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A -> %R : memref<32x8xf16, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: src and dst element types differ: f16 vs f32; both sides must have element type f16 (or both f32): a copy moves bits, so convert with an arith cast before or after the copy

// -----

// A memory space that is not a #regcopy.mem.
func.func @f(%A: memref<32x8xf32, 3 : i64>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A -> %R : memref<32x8xf32, 3 : i64> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: src: memory space 3 : i64 is not a #regcopy.mem

// -----

// Regions must lie inside their buffers (static parts).
func.func @f(%A: memref<32x8xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A[1, 0] [32, 8] -> %R : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: src region [1, 33) is outside dim 0 of size 32; size 32 fits at offset 0

// -----

func.func @f(%A: memref<64x8xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %R -> %A[32, 4] [32, 8] : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<64x8xf32, #regcopy.mem<shared>>
  func.return
}
// CHECK: dst region [4, 12) is outside dim 1 of size 8; size 8 fits at offset 0

// -----

func.func @f(%A: memref<64x8xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A[-1, 0] [32, 8] -> %R : memref<64x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: src region [-1, 31) is outside dim 0 of size 64; use offsets >= 0 (size 32 fits at an offset in [0, 32])

// -----

func.func @f(%A: memref<64x8xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A[40, 0] [32, 8] -> %R : memref<64x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: src region [40, 72) is outside dim 0 of size 64; size 32 fits at an offset in [0, 32]

// -----

// The size of a region with a dynamic offset is still checked against the buffer.
func.func @f(%A: memref<64x8xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>, %i: index) {
  regcopy.copy warp %A[%i, 0] [65, 8] -> %R : memref<64x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: src region size 65 is outside dim 0 of size 64; a region of this dim has size 1..64

// -----

func.func @f(%A: memref<64x8xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A[0, 0] [0, 8] -> %R : memref<64x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: src region size 0 of dim 0 must be >= 1 (and at most 64, the dim's size)

// -----

// One offset and one size per buffer dimension.
func.func @f(%A: memref<32x8xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A[0] [32] -> %R : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: src region has 1 offsets and 1 sizes for a rank-2 buffer; give one offset and one size per dim (2 of each)

// -----

func.func @f(%A: memref<32x8xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A -> %R[0, 0] [32] : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: dst region has 2 offsets and 1 sizes for a rank-2 buffer; give one offset and one size per dim (2 of each)

// -----

// The non-unit region sizes must agree, in order.
func.func @f(%A: memref<32x8xf32, #regcopy.mem<shared>>, %R: memref<32x4xf32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A -> %R : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x4xf32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: region sizes differ: src [32, 8] vs dst [32, 4] (non-unit sizes must agree in order)

// -----

func.func @f(%A: memref<64x64xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A[0, 0] [8, 32] -> %R : memref<64x64xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: region sizes differ: src [8, 32] vs dst [32, 8] (non-unit sizes must agree in order)

// -----

func.func @f(%A: memref<4x16x16xf16, #regcopy.mem<shared>>, %R: memref<8x8xf16, #regcopy.layout<(8,8):(8,1)>, #regcopy.mem<local>>) {
  regcopy.copy thread %A[0, 8, 8] [2, 8, 8] -> %R : memref<4x16x16xf16, #regcopy.mem<shared>> -> memref<8x8xf16, #regcopy.layout<(8,8):(8,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: region sizes differ: src [2, 8, 8] vs dst [8, 8] (non-unit sizes must agree in order)

// -----

// Each region's layout must slice cleanly to it.
func.func @f(%A: memref<32x8xf32, #regcopy.mem<shared>>, %R: memref<64x8xf32, #regcopy.layout<(32,2,8):(1@laneid,8,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A -> %R[1, 0] [32, 8] : memref<32x8xf32, #regcopy.mem<shared>> -> memref<64x8xf32, #regcopy.layout<(32,2,8):(1@laneid,8,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: dst layout does not slice cleanly to its region: region [1, 33) of dim 0 does not slice cleanly through iters 32:1@laneid 2:8 of layout (32,2,8):(1@laneid,8,1)

// -----

func.func @f(%A: memref<64x64xf16, #regcopy.layout<(64,8,8):(64,8,1)>, #regcopy.mem<shared>>, %R: memref<32x8xf16, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  regcopy.copy warp %A[0, 4] [32, 8] -> %R : memref<64x64xf16, #regcopy.layout<(64,8,8):(64,8,1)>, #regcopy.mem<shared>> -> memref<32x8xf16, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: src layout does not slice cleanly to its region: region [4, 12) of dim 1 does not slice cleanly through iters 8:8 8:1 of layout (64,8,8):(64,8,1)

// -----

// Dynamic offsets only on a dim that is a single memory iter.
func.func @f(%A: memref<64x8xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>, %i: index) {
  regcopy.copy warp %R[%i, 0] [32, 8] -> %A[0, 0] [32, 8] : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<64x8xf32, #regcopy.mem<shared>>
  func.return
}
// CHECK: src layout does not slice cleanly to its region: dynamic offset on dim 0 of layout (32,8):(1@laneid,1), whose dim is a thread dim

// -----

func.func @f(%A: memref<64x8xf32, #regcopy.layout<(2,32,8):(8,16,1)>, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>, %i: index) {
  regcopy.copy warp %A[%i, 0] [32, 8] -> %R : memref<64x8xf32, #regcopy.layout<(2,32,8):(8,16,1)>, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: src layout does not slice cleanly to its region: dynamic offset on dim 0 of layout (2,32,8):(8,16,1), whose dim is not one memory iter

// -----

// Generic form: the static offsets and the dynamic operands must agree.
func.func @f(%A: memref<64x8xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>, %i: index) {
  "regcopy.copy"(%A, %R, %i) <{scope = #regcopy.exec<warp>, src_static_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 8>, operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (memref<64x8xf32, #regcopy.mem<shared>>, memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>, index) -> ()
  func.return
}
// CHECK: src has 0 dynamic offsets in its static list but 1 offset operands

// -----

func.func @f(%A: memref<64x8xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  "regcopy.copy"(%A, %R) <{scope = #regcopy.exec<warp>, src_static_offsets = array<i64: 0, 0>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (memref<64x8xf32, #regcopy.mem<shared>>, memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) -> ()
  func.return
}
// CHECK: src region needs both offsets and sizes

// -----

func.func @f(%A: memref<64x8xf32, #regcopy.mem<shared>>) {
  "regcopy.copy"(%A, %A) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (memref<64x8xf32, #regcopy.mem<shared>>, memref<64x8xf32, #regcopy.mem<shared>>) -> ()
  func.return
}
// CHECK: property 'scope' expected in operation 'regcopy.copy'

// -----

// regcopy.storage: the result is the buffer's flat storage.
func.func @f() {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %s = regcopy.storage %R : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<256xf32, #regcopy.mem<local>>
  func.return
}
// CHECK: storage of memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> must be memref<8xf32, #regcopy.mem<local>>, got memref<256xf32, #regcopy.mem<local>>

// -----

func.func @f() {
  %S = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<shared>>
  %s = regcopy.storage %S : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<shared>> -> memref<8xf32, #regcopy.mem<shared>>
  func.return
}
// CHECK: layout (32,8):(1@laneid,1) of a shared buffer has thread axes; only local buffers are distributed over threads

// -----

func.func @f(%G: memref<8x8xi4>) {
  %s = regcopy.storage %G : memref<8x8xi4> -> memref<64xi4>
  func.return
}
// CHECK: element type i4 is not supported (sub-byte element types are not supported)

// -----

// Generic form with a dynamic marker but no operand: a diagnostic, not a crash.
func.func @f(%A: memref<64x8xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) {
  "regcopy.copy"(%A, %R) <{scope = #regcopy.exec<warp>, src_static_offsets = array<i64: -9223372036854775808, 0>, src_sizes = array<i64: 32, 8>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (memref<64x8xf32, #regcopy.mem<shared>>, memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>) -> ()
  func.return
}
// CHECK: src has 1 dynamic offsets in its static list but 0 offset operands

// -----

// Generic form, stray dynamic operand without a static offset list.
func.func @f(%A: memref<32x8xf32, #regcopy.mem<shared>>, %R: memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>, %i: index) {
  "regcopy.copy"(%A, %R, %i) <{scope = #regcopy.exec<warp>, operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (memref<32x8xf32, #regcopy.mem<shared>>, memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>, index) -> ()
  func.return
}
// CHECK: src has 0 dynamic offsets in its static list but 1 offset operands

// -----

// {conversion = ...} names one of the three kinds.
func.func @f() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %acc = memref.alloca() : memref<16x8xf32, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
  %rows = memref.alloca() : memref<16x8xf32, #regcopy.layout<(16,2,4):(2@laneid,1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %acc -> %rows {conversion = "shuffles"} : memref<16x8xf32, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>> -> memref<16x8xf32, #regcopy.layout<(16,2,4):(2@laneid,1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: Operation does not verify: conversion "shuffles" must be one of 'auto', 'shuffle', 'shared' (write {conversion = "shuffle"})

// -----

// {conversion = ...} belongs to a copy between two register tiles.
func.func @f(%A: memref<32x8xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %rows = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %A -> %rows {conversion = "shuffle"} : memref<32x8xf32, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: Operation does not verify: conversion applies to a copy between two register tiles (both sides local); drop it here

// -----

// {misaligned_stores = ...} names one of the forms.
func.func @f(%A: memref<?x?xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %A[0, 0] [32, 8] {misaligned_stores = "shuffle"} : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xf32, #regcopy.mem<global>>
  func.return
}
// CHECK: Operation does not verify: misaligned_stores "shuffle" must be one of 'auto', 'realigned', 'predicated', 'shuffled', 'staged' (write {misaligned_stores = "realigned"})

// -----

// {misaligned_stores = ...} belongs to a store (registers into memory).
func.func @f(%A: memref<?x?xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %A[0, 0] [32, 8] -> %R {misaligned_stores = "realigned"} : memref<?x?xf32, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: Operation does not verify: misaligned_stores applies to a copy from registers into memory (a store); drop it here
