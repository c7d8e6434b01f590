// Verifier errors of regcopy.setmaxnreg: the action, the register count, whole warpgroups.
//
// RUN: regcopy-opt %s --verify-diagnostics --split-input-file | filecheck %s

func.func @k() attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [1], min_blocks = 1>} {
  regcopy.setmaxnreg {action = "grow", count = 232 : i64}
  func.return
}
// CHECK: Operation does not verify: action must be "inc" or "dec", got "grow"

// -----

func.func @k() attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [1], min_blocks = 1>} {
  regcopy.setmaxnreg {action = "dec", count = 36 : i64}
  func.return
}
// CHECK: Operation does not verify: count must be a multiple of 8 in 24..256, got 36

// -----

func.func @k() attributes {regcopy.launch = #regcopy.launch<block = 256, grid = [1], min_blocks = 1>} {
  regcopy.setmaxnreg {action = "inc", count = 264 : i64}
  func.return
}
// CHECK: Operation does not verify: count must be a multiple of 8 in 24..256, got 264

// -----

func.func @k() attributes {regcopy.launch = #regcopy.launch<block = 192, grid = [1], min_blocks = 1>} {
  regcopy.setmaxnreg {action = "dec", count = 40 : i64}
  func.return
}
// CHECK: Operation does not verify: setmaxnreg runs on whole warpgroups: the kernel's block of 192 threads is not a multiple of 128

// -----

func.func @k() attributes {regcopy.launch = #regcopy.launch<block = 384, grid = [1]>} {
  regcopy.setmaxnreg {action = "dec", count = 40 : i64}
  func.return
}
// CHECK: Operation does not verify: setmaxnreg needs the kernel's register budget fixed at compile time (ptxas drops it otherwise): add min_blocks = 1 to the kernel's #regcopy.launch
