// Errors of replicated layouts: one line each, file:line:col, naming what is accepted.
//
// RUN: regcopy-opt %s --parsing-diagnostics --split-input-file | filecheck %s

// A replica moves the owner thread, never the register slot: every stride needs an axis.
"test.op"() {l = #regcopy.layout<(16,8):(1@laneid,1), replicate<2:16>>} : () -> ()
// CHECK: replicas_invalid.mlir:[[# @LINE - 1]]:65
// CHECK: replicate iter 2:16 has no thread axis; replica strides must name one (e.g. 16@laneid): laneid, tid_in_wg, wid_in_wg, tx, warpid, wgid

// -----

"test.op"() {l = #regcopy.layout<(16,8):(1@laneid,1), replicate<2:16@lane>>} : () -> ()
// CHECK: replicas_invalid.mlir:[[# @LINE - 1]]:69
// CHECK: unknown thread axis '@lane'; expected one of laneid, tid_in_wg, wid_in_wg, tx, warpid, wgid

// -----

"test.op"() {l = #regcopy.layout<(16,8):(1@laneid,1), replicate<(2,2):(16@laneid)>>} : () -> ()
// CHECK: replicas_invalid.mlir:[[# @LINE - 1]]:65
// CHECK: replicate has 2 extents but 1 strides

// -----

// Injective modulo replicas: replica 1 of row 0 (lane 8) is the owner of row 8.
"test.op"() {l = #regcopy.layout<(16,8):(1@laneid,1), replicate<2:8@laneid>>} : () -> ()
// CHECK: replicas_invalid.mlir:[[# @LINE - 1]]:34
// CHECK: layout (16,8):(1@laneid,1), replicate<2:8@laneid> is not injective: two (element, replica) pairs have the same owner threads

// -----

// The replicas stay inside the thread axis's range (lanes 0..31).
"test.op"() {l = #regcopy.layout<(16,8):(1@laneid,1), replicate<4:16@laneid>>} : () -> ()
// CHECK: replicas_invalid.mlir:[[# @LINE - 1]]:34
// CHECK: thread axis 'laneid' reaches 63 but ranges over 0..31

// -----

"test.op"() {l = #regcopy.layout<(16,8):(8,1), replicate<2:16@laneid>, swizzle<3,3,3>>} : () -> ()
// CHECK: replicas_invalid.mlir:[[# @LINE - 1]]:48
// CHECK: nothing may follow replicate<...>: replicas are for local buffers, swizzles for shared ones
