// regcopy.setmaxnreg: warpgroup 0 gives registers up, warpgroups 1 and 2 take them (a
// producer and two consumers). The IR round-trips; the CUDA target prints one
// setmaxnreg.{dec|inc}.sync.aligned.u32 each and marks the source sm_90a; the SASS has the
// reallocation (USETMAXREG) and no local memory. min_blocks = 1 fixes the register budget
// (__launch_bounds__(384, 1)): without it ptxas drops setmaxnreg, and the verifier refuses it.
// RUN: regcopy-opt %s | filecheck %s --check-prefix=IR
// RUN: regcopy-opt %s -t cuda | filecheck %s --check-prefix=CUDA
// RUN: regcopy-opt %s -t sass | filecheck %s --check-prefix=SASS

func.func @roles(%X: memref<384xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 384, grid = [1], min_blocks = 1>} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %wg = arith.divui %tid, %c128 : index
  %producer = arith.cmpi eq, %wg, %c0 : index
  scf.if %producer {
    regcopy.setmaxnreg {action = "dec", count = 40 : i64}
    memref.store %one, %X[%tid] : memref<384xf32, #regcopy.mem<global>>
  } else {
    regcopy.setmaxnreg {action = "inc", count = 232 : i64}
    memref.store %two, %X[%tid] : memref<384xf32, #regcopy.mem<global>>
  }
  func.return
}

// IR: scf.if %producer {
// IR-NEXT: regcopy.setmaxnreg {action = "dec", count = 40 : i64}
// IR: } else {
// IR-NEXT: regcopy.setmaxnreg {action = "inc", count = 232 : i64}

// CUDA: // regcopy: needs sm_90a
// CUDA: __launch_bounds__(384, 1) roles(
// CUDA: asm volatile("setmaxnreg.dec.sync.aligned.u32 40;" ::: "memory");
// CUDA: asm volatile("setmaxnreg.inc.sync.aligned.u32 232;" ::: "memory");

// SASS: .target sm_90a
// SASS-DAG: USETMAXREG.DEALLOC.CTAPOOL 0x28
// SASS-DAG: USETMAXREG.TRY_ALLOC.CTAPOOL
// SASS-NOT: {{LDL|STL}}
