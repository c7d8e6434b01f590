// Each acceptance check of docs/pass.md with its reason: an error under strict, a remark
// under remarks, and the copy left untouched otherwise.
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{strict=true}' --verify-diagnostics | filecheck %s
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{remarks=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: regcopy-opt %s --split-input-file --lower-reg-copy | filecheck %s --check-prefix=KEEP

// Check 2: the block must be a multiple of the scope's threads.
func.func @block_too_small() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<128x8xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<128x8xf32, #regcopy.layout<(128,8):(1@tid_in_wg,1)>, #regcopy.mem<local>>
  regcopy.copy warpgroup %S -> %R : memref<128x8xf32, #regcopy.mem<shared>> -> memref<128x8xf32, #regcopy.layout<(128,8):(1@tid_in_wg,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: 'regcopy.copy' op rejected by lower-reg-copy: block of 32 threads is not a multiple of the warpgroup scope's 128 threads
// CHECK-NEXT: {{^  }}regcopy.copy warpgroup %S -> %R
// REMARK: remark: not lowered: block of 32 threads is not a multiple of the warpgroup scope's 128 threads
// KEEP: regcopy.copy warpgroup %S -> %R

// -----

// Check 2: the block size must be known.
func.func @no_launch() {
  %S = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S -> %R : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: rejected by lower-reg-copy: the enclosing func.func has no regcopy.launch, so the active threads are unknown
// REMARK: remark: not lowered: the enclosing func.func has no regcopy.launch
// KEEP: regcopy.copy warp %S -> %R

// -----

// Check 2: not all threads active under a lane-dependent scf.if.
func.func @divergent() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %lane = "gpu.lane_id"() : () -> index
  %c16 = arith.constant 16 : index
  %lo = arith.cmpi ult, %lane, %c16 : index
  scf.if %lo {
    regcopy.copy warp %S -> %R : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  }
  func.return
}
// CHECK: rejected by lower-reg-copy: the copy is nested in a 'scf.if' whose condition depends on a thread id: not all threads of the scope are active
// REMARK: remark: not lowered: the copy is nested in a 'scf.if' whose condition depends on a thread id
// KEEP: regcopy.copy warp %S -> %R

// -----

// Check 4: exactly one side is local.
func.func @shared_to_shared() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %A = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared>>
  %B = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared.dyn>>
  regcopy.copy warp %A -> %B : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.mem<shared.dyn>>
  func.return
}
// CHECK: rejected by lower-reg-copy: memory pair shared -> shared.dyn: exactly one side must be local
// REMARK: remark: not lowered: memory pair shared -> shared.dyn: exactly one side must be local
// KEEP: regcopy.copy warp %A -> %B

// -----

// Two local sides convert (register <-> register); one whose destination has a thread axis
// wider than the exec scope is refused with that reason.
func.func @local_to_local_axis_too_wide() attributes {regcopy.launch = #regcopy.launch<block = 64, grid = [1]>} {
  %A = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %B = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy warp %A -> %B : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@tx,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: rejected by lower-reg-copy: destination: R thread axis 'tx' has scope cta, wider than exec scope warp
// REMARK: remark: not lowered: destination: R thread axis 'tx' has scope cta, wider than exec scope warp

// -----

// Check 5: a thread axis wider than the exec scope.
func.func @axis_too_wide(%B: memref<32x8xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy warp %B -> %R : memref<32x8xf32, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@tx,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: rejected by lower-reg-copy: R thread axis 'tx' has scope cta, wider than exec scope warp
// REMARK: remark: not lowered: R thread axis 'tx' has scope cta, wider than exec scope warp

// -----

// Check 5: thread scope admits no thread axis.
func.func @thread_scope_axis(%B: memref<32x8xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy thread %B -> %R : memref<32x8xf32, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: rejected by lower-reg-copy: R thread axis 'laneid' under exec scope thread, which admits none
// REMARK: remark: not lowered: R thread axis 'laneid' under exec scope thread, which admits none

// -----

// Check 7: a region starting inside a thread-owned dim is fine on its own (lanes 16..31 own
// it), but this layout has no warp axis, so under warpgroup scope every element has 4 owners.
func.func @region_in_thread_dim(%B: memref<16x8xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warpgroup %B -> %R[16, 0] [16, 8] : memref<16x8xf32, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: rejected by lower-reg-copy: R layout (16,8):(1@laneid,1) (region pins laneid = 16) is replicated: 4 threads of the warpgroup own the same element
// REMARK: remark: not lowered: R layout (16,8):(1@laneid,1) (region pins laneid = 16) is replicated: 4 threads of the warpgroup own the same element

// -----

// Check 7: elements owned by no thread (tx reaches 127 in a block of 64).
func.func @no_owner(%B: memref<128xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 64, grid = [1]>} {
  %R = memref.alloca() : memref<128xf32, #regcopy.layout<128:1@tx>, #regcopy.mem<local>>
  regcopy.copy cta %B -> %R : memref<128xf32, #regcopy.mem<global>> -> memref<128xf32, #regcopy.layout<128:1@tx>, #regcopy.mem<local>>
  func.return
}
// CHECK: rejected by lower-reg-copy: R layout 128:1@tx has elements owned by no thread of the cta
// REMARK: remark: not lowered: R layout 128:1@tx has elements owned by no thread of the cta

// -----

// Check 7: owner lanes {0, 3, 5, 6, 8, 11} (lane strides 5 and 3) that no division and
// remainder decode of the lane id recovers.
func.func @undecodable(%B: memref<6x8xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<6x8xf32, #regcopy.layout<(2,3,8):(5@laneid,3@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %B -> %R : memref<6x8xf32, #regcopy.mem<global>> -> memref<6x8xf32, #regcopy.layout<(2,3,8):(5@laneid,3@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// CHECK: rejected by lower-reg-copy: R thread map (2,3,8):(5@laneid,3@laneid,1): the owner threads {0, 3, 5, 6, 8, 11} cannot be decoded from the thread index by division and remainder
// REMARK: remark: not lowered: R thread map
