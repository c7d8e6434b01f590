// #regcopy.launch's optional min_blocks (CTAs per SM) must be an integer >= 1, after grid.
// RUN: regcopy-opt %s --parsing-diagnostics --split-input-file | filecheck %s

"test.op"() {l = #regcopy.launch<block = 32, grid = [1], min_blocks = 0>} : () -> ()
// CHECK: launch-error-min-blocks.mlir:[[# @LINE - 1]]:71
// CHECK: min_blocks must be >= 1 (CTAs per SM), got 0

// -----

"test.op"() {l = #regcopy.launch<block = 32, grid = [1], blocks = 2>} : () -> ()
// CHECK: launch-error-min-blocks.mlir:[[# @LINE - 1]]:58
// CHECK: Expected 'min_blocks'

// -----

"test.op"() {l = #regcopy.launch<block = 32, grid = [1], min_blocks = 1>} : () -> ()
// CHECK: #regcopy.launch<block = 32, grid = [1], min_blocks = 1>
