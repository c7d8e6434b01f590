// A copy's own {conversion = ...} decides how that register <-> register copy moves, in place
// of the pass option `conversion`: @by_shared goes through shared memory where the default
// takes shuffles; @by_shuffles takes shuffles even under conversion=shared; @by_option, with no
// attribute, follows the option.
// RUN: regcopy-opt %s -p 'lower-reg-copy{strict}' | filecheck %s
// RUN: regcopy-opt %s -p 'lower-reg-copy{strict conversion=shared}' | filecheck %s --check-prefix=SHARED
// RUN: regcopy-opt %s -p 'lower-reg-copy{remarks conversion=shared}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: regcopy-opt %s | filecheck %s --check-prefix=ROUND
!ACC = memref<16x8xf32, #regcopy.layout<(2,8,4,2):(2,4@laneid,1@laneid,1)>, #regcopy.mem<local>>
!ROWS = memref<16x8xf32, #regcopy.layout<(16,2,4):(2@laneid,1@laneid,1)>, #regcopy.mem<local>>
func.func @by_shared() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %acc = memref.alloca() : !ACC
  %rows = memref.alloca() : !ROWS
  regcopy.copy warp %acc -> %rows {conversion = "shared"} : !ACC -> !ROWS
  func.return
}
func.func @by_shuffles() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %acc = memref.alloca() : !ACC
  %rows = memref.alloca() : !ROWS
  regcopy.copy warp %acc -> %rows {conversion = "shuffle"} : !ACC -> !ROWS
  func.return
}
func.func @by_option() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %acc = memref.alloca() : !ACC
  %rows = memref.alloca() : !ROWS
  regcopy.copy warp %acc -> %rows : !ACC -> !ROWS
  func.return
}
// CHECK-LABEL: func.func @by_shared
// CHECK:         %scratch = memref.alloca() {regcopy.scratch}
// CHECK-NOT:     gpu.shuffle
// CHECK-LABEL: func.func @by_shuffles
// CHECK-NOT:     regcopy.scratch
// CHECK:         gpu.shuffle
// CHECK-LABEL: func.func @by_option
// CHECK-NOT:     regcopy.scratch
// CHECK:         gpu.shuffle
// CHECK:         func.return

// SHARED-LABEL: func.func @by_shared
// SHARED:         regcopy.scratch
// SHARED-LABEL: func.func @by_shuffles
// SHARED-NOT:     regcopy.scratch
// SHARED:         gpu.shuffle
// SHARED-LABEL: func.func @by_option
// SHARED:         regcopy.scratch
// SHARED-NOT:     gpu.shuffle
// SHARED:         func.return

// REMARK: remark: conversion by shared round trip through a {{[0-9]+}}-byte shared.dyn scratch tile, 1 barrier (warp) [copy %acc -> %rows in @by_shared]
// REMARK-NOT: not shuffled
// REMARK: chosen by the copy's {conversion = "shared"}
// REMARK: remark: conversion by warp shuffles: 4 shfl.sync per thread (ideal 4), 8 selects (4 to send, 4 to receive), 0 register moves, no shared memory [copy %acc -> %rows in @by_shuffles]
// REMARK: chosen by the copy's {conversion = "shuffle"}
// REMARK: remark: conversion by shared round trip through a {{[0-9]+}}-byte shared.dyn scratch tile, 1 barrier (warp) [copy %acc -> %rows in @by_option]
// REMARK: not shuffled: conversion=shared

// The attribute prints back as written.
// ROUND: regcopy.copy warp %acc -> %rows {conversion = "shared"} : memref<16x8xf32
// ROUND: regcopy.copy warp %acc -> %rows {conversion = "shuffle"} : memref<16x8xf32
