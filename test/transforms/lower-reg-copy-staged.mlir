// Misaligned copies staged through shared memory: a CTA of 2 warps, each thread 4 f32 of a
// row, 16 rows a warp. Where only the row length decides the alignment, the store's fallback
// puts each warp's vectors into its own slice of one shared array (hoisted to the kernel's
// entry, marked regcopy.staging, shared by the kernel's staged copies), meets the warp, and
// stores the slice as 32-bit units in lane order, each under its own predicate; rows shorter
// than 5 elements (a runtime test on the row length, the cost model's threshold) store
// predicated instead. The loads stay predicated (the cost model); misaligned-stores=staged
// stages them too, with the same array, and has no short-row path.
// RUN: regcopy-opt %s --lower-reg-copy | filecheck %s
// RUN: regcopy-opt %s -p 'lower-reg-copy{remarks=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: regcopy-opt %s -p 'lower-reg-copy{misaligned-stores=staged}' | filecheck %s --check-prefix=FORCED
// RUN: regcopy-opt %s -p 'lower-reg-copy{remarks misaligned-stores=staged}' 2>&1 >/dev/null | filecheck %s --check-prefix=FORCED-REMARK

func.func @rows(%X: memref<?x?xf32, #regcopy.mem<global>>, %Y: memref<?x?xf32, #regcopy.mem<global>>, %r: index) attributes {regcopy.launch = #regcopy.launch<block = 64, grid = [1]>} {
  %R = memref.alloca() : memref<64x8xf32, #regcopy.layout<(2,32,2,4):(4,2@tx,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %X[%r, 0] [64, 8] -> %R : memref<?x?xf32, #regcopy.mem<global>> -> memref<64x8xf32, #regcopy.layout<(2,32,2,4):(4,2@tx,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %R -> %Y[%r, 0] [64, 8] : memref<64x8xf32, #regcopy.layout<(2,32,2,4):(4,2@tx,1@tx,1)>, #regcopy.mem<local>> -> memref<?x?xf32, #regcopy.mem<global>>
  func.return
}
// CHECK-LABEL: func.func @rows
// CHECK-NEXT:    %[[S:.*]] = memref.alloca() {regcopy.staging} : memref<512xf32, #regcopy.mem<shared>>
// CHECK-NOT:     regcopy.staging
// CHECK:         %aligned_1 = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK:         %short = arith.cmpi ult, %e1_1, %{{.*}} : index
// CHECK:         scf.if %aligned_1 {
// CHECK:           scf.if %reach_1 {
// CHECK:             vector.store %{{.*}} vector<4xf32>
// CHECK:         } else {
// CHECK-NEXT:      scf.if %short {
// CHECK-NEXT:        scf.if %reach_1 {
// CHECK-NEXT:          scf.for
// CHECK-NOT:             regcopy.staging
// CHECK:                 vector.store %{{.*}} vector<1xf32>
// CHECK:           } else {
// CHECK:           %[[V:.*]] = regcopy.storage %[[S]] : memref<512xf32, #regcopy.mem<shared>> -> memref<512xf32, #regcopy.mem<shared>>
// CHECK:           "gpu.barrier"() {regcopy.warp} : () -> ()
// CHECK-NEXT:      scf.for
// CHECK:             vector.store %{{.*}}, %[[V]][%{{.*}}] : memref<512xf32, #regcopy.mem<shared>>, vector<4xf32>
// CHECK:           "gpu.barrier"() {regcopy.warp} : () -> ()
// CHECK-NEXT:      scf.for
// CHECK:             vector.load %[[V]][%{{.*}}] : memref<512xf32, #regcopy.mem<shared>>, vector<1xf32>
// CHECK-NEXT:        scf.if %{{.*}} {
// CHECK-NEXT:          vector.store %{{.*}} vector<1xf32>
// CHECK:         func.return
// REMARK: remark: vec 4 × f32 (128 bits), 2 rounds, 8 registers/thread [copy %X -> %R in @rows]
// REMARK:      {{^  }}misaligned loads predicated by the cost model: 16 rows a warp, 4 × f32 a thread a row, proven 1; per warp and vector realigned 39.6 clocks (23.8 issue slots, 39.6 wavefronts), predicated 27.8 clocks (8.0 issue slots, 19.9 wavefronts), staged 27.8 clocks (14.0 issue slots, 19.5 wavefronts)
// REMARK: remark: vec 4 × f32 (128 bits), 2 rounds, 8 registers/thread [copy %R -> %Y in @rows]
// REMARK:      {{^  }}versioned on %Y extent 1 % 4 == 0: vec 4 × f32, else vec 4 × f32 staged through shared memory (extent divisors [1, 1] prove 1: each warp's vectors pass through its own slice, moved as vec 1 × f32 in lane order, 4 a vector, each under its own predicate)
// REMARK-NEXT: {{^  }}rows shorter than 5 elements (%Y extent 1 < 5, tested at run time) not staged: vec 1 × f32, each under its own predicate
// REMARK-NEXT: {{^  }}misaligned stores staged by the cost model: 16 rows a warp, 4 × f32 a thread a row, proven 1; per warp and vector realigned 75.7 clocks (23.8 issue slots, 108.9 sectors), predicated 46.9 clocks (8.0 issue slots, 67.5 sectors), staged 27.8 clocks (14.0 issue slots, 30.0 sectors); rows shorter than 5 elements predicated (a runtime test: there the staged form takes as many clocks or more)
// FORCED-LABEL: func.func @rows
// FORCED-NEXT:    %[[S:.*]] = memref.alloca() {regcopy.staging} : memref<512xf32, #regcopy.mem<shared>>
// FORCED-NOT:     regcopy.staging
// FORCED:         regcopy.storage %[[S]]
// FORCED:         "gpu.barrier"() {regcopy.warp} : () -> ()
// FORCED-NEXT:    scf.for
// FORCED:           %[[L:.*]] = scf.if %{{.*}} -> (vector<1xf32>) {
// FORCED:           vector.store %[[L]], %{{.*}}[%{{.*}}] : memref<512xf32, #regcopy.mem<shared>>, vector<1xf32>
// FORCED:         "gpu.barrier"() {regcopy.warp} : () -> ()
// FORCED-NEXT:    scf.for
// FORCED:           vector.load %{{.*}}[%{{.*}}] : memref<512xf32, #regcopy.mem<shared>>, vector<4xf32>
// FORCED:         regcopy.storage %[[S]]
// FORCED:         func.return
// FORCED-REMARK: {{^  }}misaligned loads staged as asked (misaligned-stores): 16 rows a warp
// FORCED-REMARK: {{^  }}misaligned stores staged as asked (misaligned-stores): 16 rows a warp

// A warp-scope copy cannot stage (its warps' slices are not the CTA's): the remark says so.
// RUN: regcopy-opt %s -p 'lower-reg-copy{remarks misaligned-stores=staged}' 2>&1 >/dev/null | filecheck %s --check-prefix=WARP
func.func @warp(%Y: memref<?x?xf32, #regcopy.mem<global>>, %r: index) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x4xf32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %Y[%r, 0] [32, 4] : memref<32x4xf32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>> -> memref<?x?xf32, #regcopy.mem<global>>
  func.return
}
// WARP: remark: {{.*}}[copy %R -> %Y in @warp]
// WARP: {{^  }}misaligned stores predicated by the cost model: 32 rows a warp, {{.*}}, not staged (a warp-scope copy)
// CHECK-LABEL: func.func @warp
// CHECK-NOT:     regcopy.staging
