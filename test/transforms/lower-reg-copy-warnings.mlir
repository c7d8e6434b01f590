// Never silent: each copy the pass leaves in the IR gets one warning on stderr with its reason,
// file:line:col (regcopy-opt, and xdsl-opt through the regcopy universe, record where each op
// starts), source line, caret and a short label; the lowered output is unchanged and the exit
// code is 0. `strict` makes it an error, `remarks` a remark, `warn-unlowered=false` silences it.
//
// RUN: regcopy-opt %s --split-input-file --lower-reg-copy 2>&1 >/dev/null | filecheck %s --check-prefix=WARN
// RUN: xdsl-opt %s --split-input-file -p lower-reg-copy 2>&1 >/dev/null | filecheck %s --check-prefix=XDSL
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{warn-unlowered=false}' 2>&1 >/dev/null | filecheck %s --check-prefix=QUIET --allow-empty
// RUN: xdsl-opt %s --split-input-file -p 'lower-reg-copy{warn_unlowered=false}' 2>&1 >/dev/null | filecheck %s --check-prefix=QUIET --allow-empty
// RUN: regcopy-opt %s --split-input-file -p 'lower-reg-copy{remarks}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: not regcopy-opt %s --split-input-file -p 'lower-reg-copy{strict}' 2>&1 | filecheck %s --check-prefix=STRICT
// RUN: regcopy-opt %s --split-input-file --lower-reg-copy 2>/dev/null | filecheck %s --check-prefix=KEEP

func.func @no_launch() {
  %S = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S -> %R : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
// WARN:        {{^.*}}/lower-reg-copy-warnings.mlir:17:3: warning: not lowered: the enclosing func.func has no regcopy.launch, so the active threads are unknown [copy %S -> %R in @no_launch]{{$}}
// XDSL:        {{^.*}}/lower-reg-copy-warnings.mlir:17:3: warning: not lowered: the enclosing func.func has no regcopy.launch, so the active threads are unknown [copy %S -> %R in @no_launch]{{$}}
// REMARK:      {{^.*}}/lower-reg-copy-warnings.mlir:17:3: remark: not lowered: the enclosing func.func has no regcopy.launch
// STRICT:      {{^.*}}/lower-reg-copy-warnings.mlir:17:3: error: 'regcopy.copy' op rejected by lower-reg-copy: the enclosing func.func has no regcopy.launch, so the active threads are unknown
// STRICT-NEXT: {{^}}  regcopy.copy warp %S -> %R
// STRICT-NEXT: {{^}}  ^{{$}}
// STRICT-NOT:  Traceback
// KEEP-LABEL:  func.func @no_launch
// KEEP:        regcopy.copy warp %S -> %R

// -----

// Two copies of the same buffers, one lowered and one rejected: the one left is named by its
// ordinal in the function; in a second chunk the line numbers are still those of the file.
func.func @twice(%c: i1) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %S -> %R : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %t = "gpu.lane_id"() : () -> index
  %z = arith.constant 0 : index
  %p = arith.cmpi eq, %t, %z : index
  scf.if %p {
    regcopy.copy warp %S -> %R : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  }
  func.return
}
// WARN:        {{^.*}}/lower-reg-copy-warnings.mlir:42:5: warning: not lowered: the copy is nested in a 'scf.if' whose condition depends on a thread id: not all threads of the scope are active [copy #2 %S -> %R in @twice]{{$}}
// WARN-NOT:    warning
// XDSL:        {{^.*}}/lower-reg-copy-warnings.mlir:42:5: warning: not lowered: the copy is nested in a 'scf.if' {{.*}} [copy #2 %S -> %R in @twice]{{$}}
// REMARK:      {{^.*}}/lower-reg-copy-warnings.mlir:37:3: remark: vec 4 × f32 (128 bits), 2 rounds, 8 registers/thread [copy #1 %S -> %R in @twice]{{$}}
// REMARK:      {{^.*}}/lower-reg-copy-warnings.mlir:42:5: remark: not lowered: the copy is nested in a 'scf.if'
// REMARK-NOT:  warning
// QUIET-NOT:   {{.}}
// KEEP-LABEL:  func.func @twice
// KEEP:        scf.if
// KEEP-NEXT:     regcopy.copy warp %S -> %R
