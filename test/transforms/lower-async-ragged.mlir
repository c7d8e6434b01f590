// copy_async from global buffers with runtime extents: full-width cp.async chunks to the edge,
// one predicate per chunk. A chunk outside reads 0 bytes from the buffer's base (clamped
// address); where the last extent is not provably a multiple of the chunk (a 1-D buffer), a
// straddling chunk keeps its width and is zero-filled through the source size. A row length
// promised only a multiple of 2 f32 versions the copy on a runtime test (16 bytes, else the
// proven 8); {in_bounds} removes the checks (lower-async-ragged-reject.mlir: rows with no promise).
// RUN: regcopy-opt %s -p 'lower-reg-copy{remarks}' 2>%t.remarks | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
// RUN: regcopy-opt %s -p lower-reg-copy -t cuda 2>/dev/null | filecheck %s --check-prefix=CUDA
// RUN: regcopy-opt %s -p lower-reg-copy -t sass 2>/dev/null | filecheck %s --check-prefix=SASS

func.func @ragged(%X: memref<?x?xf16, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 8>}, %i: index {regcopy.divisibility = 32}, %k: index {regcopy.divisibility = 64}) attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %S = memref.alloca() : memref<32x64xf16, #regcopy.mem<shared>>
  %t = regcopy.copy_async cta %X[%i, %k] [32, 64] -> %S : memref<?x?xf16, #regcopy.mem<global>> -> memref<32x64xf16, #regcopy.mem<shared>>
  %g = regcopy.async_group %t
  regcopy.async_wait %g {pending = 0 : i64}
  func.return
}
func.func @versioned(%X: memref<?x?xf32, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 2>}) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<8x16xf32, #regcopy.mem<shared>>
  %t = regcopy.copy_async warp %X[0, 0] [8, 16] -> %S : memref<?x?xf32, #regcopy.mem<global>> -> memref<8x16xf32, #regcopy.mem<shared>>
  %g = regcopy.async_group %t
  regcopy.async_wait %g {pending = 0 : i64}
  func.return
}
func.func @promised(%X: memref<?x?xf32, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 4>}) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<8x16xf32, #regcopy.mem<shared>>
  %t = regcopy.copy_async warp %X[0, 0] [8, 16] -> %S {in_bounds} : memref<?x?xf32, #regcopy.mem<global>> -> memref<8x16xf32, #regcopy.mem<shared>>
  %g = regcopy.async_group %t
  regcopy.async_wait %g {pending = 0 : i64}
  func.return
}
func.func @row(%V: memref<?xf16, #regcopy.mem<global>>, %k: index {regcopy.divisibility = 64}) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<256xf16, #regcopy.mem<shared>>
  %t = regcopy.copy_async warp %V[%k] [256] -> %S : memref<?xf16, #regcopy.mem<global>> -> memref<256xf16, #regcopy.mem<shared>>
  %g = regcopy.async_group %t
  regcopy.async_wait %g {pending = 0 : i64}
  func.return
}
// CHECK-LABEL: func.func @ragged(
// Two rounds a thread: what they share is emitted once (the thread's offset, what lies past
// the region offsets); each round adds constants.
// CHECK:         %e1 = memref.dim %X, %{{.*}}
// CHECK:         %e0 = memref.dim %X, %[[ZERO:.*]] :
// CHECK:         %[[COL:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %[[ROW:.*]] = arith.divsi %tid, %{{.*}} : index
// CHECK-NEXT:    %[[IS:.*]] = arith.muli %i, %e1 : index
// CHECK-NEXT:    %[[IK:.*]] = arith.addi %[[IS]], %k : index
// CHECK-NEXT:    %[[RS:.*]] = arith.muli %[[ROW]], %e1 : index
// CHECK-NEXT:    %[[PART:.*]] = arith.addi %[[IK]], %[[RS]] : index
// CHECK-NEXT:    %thread_base = arith.addi %[[PART]], %[[COL]] : index
// CHECK-NEXT:    %[[PASTI:.*]] = arith.subi %e0, %i : index
// CHECK-NEXT:    %[[HASI:.*]] = arith.cmpi ult, %i, %e0 : index
// CHECK-NEXT:    %left0 = arith.select %[[HASI]], %[[PASTI]], %[[ZERO]] : index
// CHECK-NEXT:    %[[PASTK:.*]] = arith.subi %e1, %k : index
// CHECK-NEXT:    %[[HASK:.*]] = arith.cmpi ult, %k, %e1 : index
// CHECK-NEXT:    %left1 = arith.select %[[HASK]], %[[PASTK]], %[[ZERO]] : index
// CHECK-NEXT:    %[[R:.*]] = arith.cmpi ult, %[[ROW]], %left0 : index
// CHECK-NEXT:    %[[C:.*]] = arith.cmpi ult, %[[COL]], %left1 : index
// CHECK-NEXT:    %inside = arith.andi %[[R]], %[[C]] : i1
// CHECK-NEXT:    %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %src_bytes = arith.select %inside, %[[C16]], %[[ZERO]] : index
// CHECK-NEXT:    %[[CLAMPED:.*]] = arith.select %inside, %thread_base, %[[ZERO]] : index
// CHECK:         regcopy.cp_async %{{.*}}[%{{.*}}], %{{.*}}[%[[CLAMPED]]], 16, %src_bytes : memref<2048xf16, #regcopy.mem<shared>> -> memref<?xf16, #regcopy.mem<global>>
// The second round: 16 rows further (128 threads, 8 chunks a row), the same column; its rows
// are the thread's row checked against the room past those 16 (0 when there is none).
// CHECK:         %[[STEP:.*]] = arith.muli %e1, %[[C16]] : index
// CHECK-NEXT:    %[[OFF2:.*]] = arith.addi %thread_base, %[[STEP]] : index
// CHECK-NEXT:    %[[ROOM:.*]] = arith.cmpi ult, %[[C16]], %left0 : index
// CHECK-NEXT:    %[[PAST:.*]] = arith.subi %left0, %[[C16]] : index
// CHECK-NEXT:    %[[LEFT2:.*]] = arith.select %[[ROOM]], %[[PAST]], %[[ZERO]] : index
// CHECK-NEXT:    %[[R2:.*]] = arith.cmpi ult, %[[ROW]], %[[LEFT2]] : index
// CHECK-NEXT:    %[[C2:.*]] = arith.cmpi ult, %[[COL]], %left1 : index
// CHECK-NEXT:    %inside_1 = arith.andi %[[R2]], %[[C2]] : i1
// CHECK:         %[[CLAMPED2:.*]] = arith.select %inside_1, %[[OFF2]], %[[ZERO]] : index
// CHECK:         regcopy.cp_async %{{.*}}[%{{.*}}], %{{.*}}[%[[CLAMPED2]]], 16, %src_bytes_1
// CHECK-NEXT:    regcopy.cp_async_commit

// CHECK-LABEL: func.func @versioned(
// CHECK:         %[[REM:.*]] = arith.remsi %e1, %{{.*}} : index
// CHECK-NEXT:    %aligned = arith.cmpi eq, %[[REM]], %{{.*}} : index
// CHECK:         scf.if %aligned {
// CHECK:           regcopy.cp_async %{{.*}}, 16, %src_bytes : memref<128xf32, #regcopy.mem<shared>> -> memref<?xf32, #regcopy.mem<global>>
// CHECK-NEXT:    } else {
// CHECK:           regcopy.cp_async %{{.*}}, 8, %src_bytes_1
// CHECK:           regcopy.cp_async %{{.*}}, 8, %src_bytes_2
// CHECK-NEXT:    }

// CHECK-LABEL: func.func @promised(
// CHECK-NOT:     arith.select
// CHECK:         regcopy.cp_async %{{.*}}, 16, %{{.*}} : memref<128xf32, #regcopy.mem<shared>> -> memref<?xf32, #regcopy.mem<global>>
// CHECK-NEXT:    regcopy.cp_async_commit

// CHECK-LABEL: func.func @row(
// CHECK:         %e0 = memref.dim %V, %[[ZERO:.*]] :
// CHECK:         %[[COL:.*]] = arith.addi %k, %{{.*}} : index
// CHECK-NEXT:    %inside = arith.cmpi ult, %[[COL]], %e0 : index
// CHECK:         %[[LASTCOL:.*]] = arith.addi %[[COL]], %{{.*}} : index
// CHECK-NEXT:    %[[WHOLE:.*]] = arith.cmpi ult, %[[LASTCOL]], %e0 : index
// CHECK-NEXT:    %[[LEFT:.*]] = arith.subi %e0, %[[COL]] : index
// CHECK:         %[[PART:.*]] = arith.muli %[[LEFT]], %{{.*}} : index
// CHECK:         %[[SIZE:.*]] = arith.select %[[WHOLE]], %{{.*}}, %[[PART]] : index
// CHECK-NEXT:    %src_bytes = arith.select %inside, %[[SIZE]], %[[ZERO]] : index
// CHECK-NEXT:    %[[CLAMPED:.*]] = arith.select %inside, %[[COL]], %[[ZERO]] : index
// CHECK:         regcopy.cp_async %{{.*}}[%{{.*}}], %{{.*}}[%[[CLAMPED]]], 16, %src_bytes : memref<256xf16, #regcopy.mem<shared>> -> memref<?xf16, #regcopy.mem<global>>

// REMARK:      lower-async-ragged.mlir:14:3: remark: cp.async.cg 16 bytes (8 × f16), 2 chunks/thread [copy_async %X -> %S]
// REMARK:        bounds-checked: one predicate per chunk (extents 0, 1 of %X), never per element
// REMARK-NEXT:   no chunk straddles extent 1 (divisible by 8): each is wholly inside or outside
// REMARK-NEXT:   a chunk outside reads 0 bytes, its address clamped to %X's base
// REMARK:      lower-async-ragged.mlir:21:3: remark: cp.async.cg 16 bytes (4 × f32), 1 chunk/thread [copy_async %X -> %S]
// REMARK:        no chunk straddles extent 1 (tested a multiple of 4): each is wholly inside or outside
// REMARK:        versioned on %X extent 1 % 4 == 0: 16 bytes else cp.async.ca 8 bytes (2 × f32), 2 chunks/thread (extent divisors [1, 2] prove 2 × f32)
// REMARK-NEXT:   proven path narrowed: not 16 bytes: global side: chunk starts in %X are provably multiples of 2 elements only, not of 4
// REMARK:      lower-async-ragged.mlir:28:3: remark: cp.async.cg 16 bytes (4 × f32), 1 chunk/thread [copy_async %X -> %S]
// REMARK-NEXT:   %t = regcopy.copy_async
// REMARK-NEXT:   ^
// REMARK-NEXT:   in bounds: {in_bounds} (no checks, full source size)
// REMARK:      lower-async-ragged.mlir:35:3: remark: cp.async.cg 16 bytes (8 × f16), 1 chunk/thread [copy_async %V -> %S]
// REMARK:        bounds-checked: one predicate per chunk (extent 0 of %V), never per element
// REMARK-NEXT:   a chunk straddling extent 0 keeps its width: the source size (elements inside × 2 bytes) zero-fills the rest

// CUDA-LABEL: void __launch_bounds__(128) ragged(rc_f16* __restrict__ X, long long X_dim0, long long X_dim1, long long i, long long k) {
// CUDA:         const rc_index src_bytes = inside ? 16 : 0;
// CUDA-NEXT:    const rc_index [[A:v[0-9]+]] = inside ? thread_base : 0;
// CUDA:         asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"((unsigned)__cvta_generic_to_shared(&S[v{{[0-9]+}}])), "l"(&X[(rc_uindex)[[A]]]), "r"((unsigned)(src_bytes)) : "memory");

// SASS (a source size of 0 or 16 is a predicated LDGSTS, P: zero-fill; a partial size ZFILL):
// SASS-DAG: LDGSTS.E.BYPASS.128.ZFILL [{{.*}}], P{{[0-9]}} ;
// SASS-DAG: LDGSTS.E.64 [{{.*}}], P{{[0-9]}} ;
// SASS-DAG: LDGSTS.E.BYPASS.128 [{{.*}}], P{{[0-9]}} ;
