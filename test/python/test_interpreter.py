"""Unit tests of ``regcopy_backend.interpreter.driver``: gpu ids, layouts in memref.load/store,
per-thread registers, ``regcopy.storage``, vector transfers (bounds and alignment), the
extra arith ops, and whole kernels run before and after ``lower-reg-copy``."""

from __future__ import annotations

import pytest
from copy_harness import find_alloca, lower, lowering_numbers, parse
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp

from regcopy_backend.interpreter.driver import (
    Buffer,
    ThreadState,
    gpu_state,
    launch,
    make_interpreter,
    set_thread,
)
from regcopy_dialect.layout import Swizzle


def arg_types(module: ModuleOp, name: str = "kernel") -> list[MemRefType]:
    for op in module.walk():
        if isinstance(op, func.FuncOp) and op.sym_name.data == name:
            return list(op.function_type.inputs.data)  # type: ignore[arg-type]
    raise KeyError(name)


# --------------------------------------------------------------------------------------------
# gpu ids
# --------------------------------------------------------------------------------------------

IDS = """
func.func @kernel(%out: memref<128x6xindex, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 64, grid = [2]>} {
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %lane = "gpu.lane_id"() : () -> index
  %bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %bdim = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
  %gdim = "gpu.grid_dim"() <{dimension = #gpu<dim x>}> : () -> index
  %gid = "gpu.global_id"() <{dimension = #gpu<dim x>}> : () -> index
  "gpu.barrier"() : () -> ()
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  memref.store %tid, %out[%gid, %c0] : memref<128x6xindex, #regcopy.mem<global>>
  memref.store %lane, %out[%gid, %c1] : memref<128x6xindex, #regcopy.mem<global>>
  memref.store %bid, %out[%gid, %c2] : memref<128x6xindex, #regcopy.mem<global>>
  memref.store %bdim, %out[%gid, %c3] : memref<128x6xindex, #regcopy.mem<global>>
  memref.store %gdim, %out[%gid, %c4] : memref<128x6xindex, #regcopy.mem<global>>
  memref.store %gid, %out[%gid, %c5] : memref<128x6xindex, #regcopy.mem<global>>
  func.return
}
"""


def test_gpu_ids_for_every_thread_of_the_grid() -> None:
    module = parse(IDS)
    out = Buffer.new(arg_types(module)[0], -1)
    launch(make_interpreter(module), "kernel", (out,))
    rows = [out.storage[6 * g:6 * g + 6] for g in range(128)]
    assert rows == [[g % 64, g % 32, g // 64, 64, 2, g] for g in range(128)]


def test_launch_runs_only_the_threads_asked_for() -> None:
    module = parse(IDS)
    out = Buffer.new(arg_types(module)[0], -1)
    launch(make_interpreter(module), "kernel", (out,), threads=[3])
    written = [g for g in range(128) if out.storage[6 * g] != -1]
    assert written == [3, 64 + 3]


# --------------------------------------------------------------------------------------------
# memref.load/store through layouts; registers
# --------------------------------------------------------------------------------------------

SWIZZLED_STORE = """
func.func @kernel() attributes {regcopy.launch = #regcopy.launch<block = 8, grid = [1]>} {
  %S = memref.alloca() : memref<8x64xi32, #regcopy.layout<(8,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
  %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %j = %c0 to %c64 step %c1 {
    %row = arith.muli %t, %c64 : index
    %v = arith.addi %row, %j : index
    %w = arith.index_cast %v : index to i32
    memref.store %w, %S[%t, %j] : memref<8x64xi32, #regcopy.layout<(8,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<shared>>
  }
  func.return
}
"""


def test_store_through_a_swizzled_shared_layout() -> None:
    """Thread t writes row t of a shared tile; every thread sees the same CTA buffer and
    element (r, c) lands at swizzle(64 r + c)."""
    module = parse(SWIZZLED_STORE)
    interp = make_interpreter(module)
    launch(interp, "kernel", ())
    alloca = find_alloca(module, "S")
    assert alloca is not None
    storage = gpu_state(interp).buffer_for(alloca).storage
    sw = Swizzle(3, 3, 3)
    assert storage[sw.apply(3 * 64 + 9)] == 3 * 64 + 9
    assert sorted(storage) == list(range(512))
    assert all(storage[sw.apply(m)] == m for m in range(512))


def test_buffer_logical_round_trip_through_swizzle() -> None:
    t = arg_types(parse("""
func.func @kernel(%a: memref<8x64xf16, #regcopy.layout<(8,64):(64,1), swizzle<3,3,3>>, #regcopy.mem<global>>) {
  func.return
}
"""))[0]
    values = [float(i) for i in range(512)]
    buf = Buffer.from_logical(t, values)
    assert buf.to_logical() == values
    assert buf.storage != values  # the physical order is swizzled


OWNER_STORE = """
func.func @kernel() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x4xi32, #regcopy.layout<(32,4):(1@laneid,2)>, #regcopy.mem<local>>
  %lane = "gpu.lane_id"() : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %j = %c0 to %c4 step %c1 {
    %v = arith.addi %lane, %j : index
    %f = arith.index_cast %v : index to i32
    memref.store %f, %R[%lane, %j] : memref<32x4xi32, #regcopy.layout<(32,4):(1@laneid,2)>, #regcopy.mem<local>>
  }
  func.return
}
"""


def test_local_buffer_is_one_register_file_per_thread() -> None:
    """Register slot of (lane, j) is 2j; the span is 7 slots; the odd slots stay untouched."""
    module = parse(OWNER_STORE)
    interp = make_interpreter(module)
    gpu_state(interp).fill = "unset"
    launch(interp, "kernel", ())
    alloca = find_alloca(module, "R")
    assert alloca is not None
    for lane in (0, 5, 31):
        regs = gpu_state(interp).buffer_for(alloca, (0, 0, 0), lane).storage
        assert regs == [lane, "unset", lane + 1, "unset", lane + 2, "unset", lane + 3]


NOT_OWNER = """
func.func @kernel() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x4xi32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : index
  %v = arith.constant 1 : i32
  memref.store %v, %R[%c7, %c0] : memref<32x4xi32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
"""


def test_access_to_a_register_the_thread_does_not_own_is_an_error() -> None:
    interp = make_interpreter(parse(NOT_OWNER))
    launch(interp, "kernel", (), threads=[7])  # the owner: fine
    with pytest.raises(Exception, match="does not own"):
        launch(interp, "kernel", (), threads=[3])


# --------------------------------------------------------------------------------------------
# regcopy.storage and vector transfers
# --------------------------------------------------------------------------------------------

VECTOR = """
func.func @kernel(%S: memref<32x10xf32, #regcopy.mem<global>>,
                  %out: memref<32xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %lane = "gpu.lane_id"() : () -> index
  %cK = arith.constant STRIDE : index
  %base = arith.muli %lane, %cK : index
  %s = regcopy.storage %S : memref<32x10xf32, #regcopy.mem<global>> -> memref<320xf32, #regcopy.mem<global>>
  %r = regcopy.storage %R : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<8xf32, #regcopy.mem<local>>
  %c4 = arith.constant 4 : index
  %v = vector.load %s[%base] : memref<320xf32, #regcopy.mem<global>>, vector<4xf32>
  vector.store %v, %r[%c4] : memref<8xf32, #regcopy.mem<local>>, vector<4xf32>
  %x = memref.load %R[%lane, %c4] : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  memref.store %x, %out[%lane] : memref<32xf32, #regcopy.mem<global>>
  func.return
}
"""


def _run_vector_kernel(stride: int, threads: list[int], check_alignment: bool = True) -> Buffer:
    """Returns ``out``: element ``lane`` is R[lane, 4] = S.flat[lane * stride]."""
    module = parse(VECTOR.replace("STRIDE", str(stride)))
    t_s, t_out = arg_types(module)
    s = Buffer.from_logical(t_s, [float(i) for i in range(320)])
    out = Buffer.new(t_out, -1.0)
    interp = make_interpreter(module)
    gpu_state(interp).check_alignment = check_alignment
    launch(interp, "kernel", (s, out), threads=threads)
    return out


def test_storage_views_share_the_buffer() -> None:
    """vector.load from S's flat view, vector.store into R's registers, memref.load of R
    through its layout sees the stored element."""
    out = _run_vector_kernel(8, list(range(32)))
    assert out.storage == [float(lane * 8) for lane in range(32)]


def test_misaligned_vector_access_is_an_error() -> None:
    """lane * 10 floats is only 8-byte aligned: a 16-byte load on lane 1 faults (B1)."""
    _run_vector_kernel(10, [0, 2])  # 0 and 80 bytes: aligned
    with pytest.raises(Exception, match=r"misaligned vector\.load"):
        _run_vector_kernel(10, [1])
    _run_vector_kernel(10, [1], check_alignment=False)


def test_out_of_bounds_vector_access_is_an_error() -> None:
    with pytest.raises(Exception, match="out of bounds"):
        _run_vector_kernel(80, [4])  # 320 + 4 elements > 320


# --------------------------------------------------------------------------------------------
# arith ops beyond xDSL's interpreter
# --------------------------------------------------------------------------------------------

ARITH = """
func.func @f() -> (i32, i32, i32, i32, i32, i32, i32, i32, i32, index) {
  %m8 = arith.constant -8 : i32
  %c3 = arith.constant 3 : i32
  %c1 = arith.constant 1 : i32
  %a = arith.divui %m8, %c3 : i32
  %b = arith.remui %m8, %c3 : i32
  %c = arith.shrui %m8, %c1 : i32
  %d = arith.ceildivui %m8, %c3 : i32
  %e = arith.ceildivsi %m8, %c3 : i32
  %f = arith.minui %m8, %c3 : i32
  %g = arith.maxui %m8, %c3 : i32
  %h = arith.minsi %m8, %c3 : i32
  %i = arith.maxsi %m8, %c3 : i32
  %x = arith.constant 37 : index
  %y = arith.constant 8 : index
  %j = arith.remui %x, %y : index
  func.return %a, %b, %c, %d, %e, %f, %g, %h, %i, %j : i32, i32, i32, i32, i32, i32, i32, i32, i32, index
}
"""


def _s32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v


def test_unsigned_and_min_max_arith() -> None:
    u = (1 << 32) - 8
    got = make_interpreter(parse(ARITH)).call_op("f", ())
    want = (_s32(u // 3), _s32(u % 3), _s32(u >> 1), _s32(-(-u // 3)), -2, 3, -8, -8, 3, 5)
    assert tuple(got) == want


# --------------------------------------------------------------------------------------------
# Whole kernels, before and after lower-reg-copy
# --------------------------------------------------------------------------------------------

ROUND_TRIP = """
func.func @kernel(%in: memref<32x8xf32, #regcopy.mem<global>>,
                  %out: memref<32x8xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %A = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared>>
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %in -> %A : memref<32x8xf32, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.mem<shared>>
  "gpu.barrier"() : () -> ()
  regcopy.copy warp %A[0, 0] [32, 8] -> %R[0, 0] [32, 8] : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %out : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<32x8xf32, #regcopy.mem<global>>
  func.return
}
"""


@pytest.mark.parametrize("lowered", [False, True], ids=["reference", "lowered"])
def test_round_trip_kernel(lowered: bool) -> None:
    """global -> shared (a copy with no local side: every thread copies all, the pass leaves
    it) -> registers -> global; out == in."""
    module = lower(ROUND_TRIP) if lowered else parse(ROUND_TRIP)
    t_in, t_out = arg_types(module)
    data = [float(i) for i in range(256)]
    a, out = Buffer.from_logical(t_in, data), Buffer.new(t_out, -1.0)
    launch(make_interpreter(module), "kernel", (a, out))
    assert out.to_logical() == data


LOOP = """
func.func @kernel(%in: memref<64x8xf16, #regcopy.mem<global>>,
                  %out: memref<64x8xf16, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf16, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  scf.for %i = %c0 to %c2 step %c1 {
    %row = arith.muli %i, %c32 : index
    regcopy.copy warp %in[%row, 0] [32, 8] -> %R : memref<64x8xf16, #regcopy.mem<global>> -> memref<32x8xf16, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
    regcopy.copy warp %R -> %out[%row, 0] [32, 8] : memref<32x8xf16, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<64x8xf16, #regcopy.mem<global>>
  }
  func.return
}
"""


@pytest.mark.parametrize("lowered", [False, True], ids=["reference", "lowered"])
def test_copies_in_a_loop_with_dynamic_rows(lowered: bool) -> None:
    module = lower(LOOP) if lowered else parse(LOOP)
    t_in, t_out = arg_types(module)
    data = [float(i) for i in range(512)]
    a, out = Buffer.from_logical(t_in, data), Buffer.new(t_out, -1.0)
    launch(make_interpreter(module), "kernel", (a, out))
    assert out.to_logical() == data


def test_lowering_numbers_of_the_loop_kernel() -> None:
    """%row = %i * 32 is provably a multiple of 32: full 128-bit transfers."""
    text = LOOP.replace("regcopy.copy warp %R -> %out[%row, 0] [32, 8] : memref<32x8xf16, "
                        "#regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> "
                        "memref<64x8xf16, #regcopy.mem<global>>\n", "")
    numbers = lowering_numbers(lower(text))
    assert (numbers.vec, numbers.rounds) == (8, 1)


def test_reference_copy_uses_the_executing_thread() -> None:
    """Running the un-lowered S -> R copy as lane 5 fills lane 5's registers only."""
    module = parse(LOOP)
    interp = make_interpreter(module)
    t_in, t_out = arg_types(module)
    a = Buffer.from_logical(t_in, [float(i) for i in range(512)])
    out = Buffer.new(t_out, -1.0)
    set_thread(interp, ThreadState((5, 0, 0), (0, 0, 0), (32, 1, 1), (1, 1, 1)))
    interp.call_op("kernel", (a, out))
    got = out.to_logical()
    assert [i for i, v in enumerate(got) if v != -1.0] == [*range(40, 48), *range(296, 304)]


# --------------------------------------------------------------------------------------------
# Barrier phases, scalar arguments, regcopy.multiple_of
# --------------------------------------------------------------------------------------------

ROTATE = """
func.func @kernel(%out: memref<2x64xindex, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 64, grid = [2]>} {
  %S = memref.alloca() : memref<64xindex, #regcopy.mem<shared>>
  %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %b = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c1000 = arith.constant 1000 : index
  %hi = arith.muli %b, %c1000 : index
  %mine = arith.addi %hi, %t : index
  memref.store %mine, %S[%t] : memref<64xindex, #regcopy.mem<shared>>
  "gpu.barrier"() : () -> ()
  %t1 = arith.addi %t, %c1 : index
  %next = arith.remsi %t1, %c64 : index
  %v = memref.load %S[%next] : memref<64xindex, #regcopy.mem<shared>>
  "gpu.barrier"() : () -> ()
  memref.store %t, %S[%next] : memref<64xindex, #regcopy.mem<shared>>
  "gpu.barrier"() : () -> ()
  %w = memref.load %S[%t] : memref<64xindex, #regcopy.mem<shared>>
  %sum = arith.addi %v, %w : index
  memref.store %sum, %out[%b, %t] : memref<2x64xindex, #regcopy.mem<global>>
  func.return
}
"""


def test_barrier_phases_exchange_through_shared_memory() -> None:
    """Thread t writes S[t], barrier, reads S[(t+1) % 64]; then writes its id to S[(t+1) % 64]
    and reads S[t] (written by thread t-1): the neighbours' values, in both CTAs. Run one
    thread after another, every thread but the last would read a stale S[t+1]."""
    module = parse(ROTATE)
    out = Buffer.new(arg_types(module)[0], -1)
    launch(make_interpreter(module), "kernel", (out,))
    want = [1000 * b + (t + 1) % 64 + (t - 1) % 64 for b in range(2) for t in range(64)]
    assert out.storage == want


EARLY_EXIT = """
func.func @kernel(%out: memref<32xindex, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<32xindex, #regcopy.mem<shared>>
  %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  memref.store %t, %S[%t] : memref<32xindex, #regcopy.mem<shared>>
  %low = arith.cmpi ult, %t, %c16 : index
  scf.if %low {
    "gpu.barrier"() : () -> ()
    %n = arith.addi %t, %c1 : index
    %v = memref.load %S[%n] : memref<32xindex, #regcopy.mem<shared>>
    memref.store %v, %out[%t] : memref<32xindex, #regcopy.mem<global>>
  }
  func.return
}
"""


def test_threads_that_return_leave_the_barrier() -> None:
    """Threads 16..31 return without reaching the barrier: the others are not blocked."""
    module = parse(EARLY_EXIT)
    out = Buffer.new(arg_types(module)[0], -1)
    launch(make_interpreter(module), "kernel", (out,))
    assert out.storage == [t + 1 for t in range(16)] + [-1] * 16


def test_an_error_in_one_thread_of_a_phased_cta_is_raised() -> None:
    """Thread 63 reads S[64] (no wrap-around) while the others wait at the barrier."""
    bad = ROTATE.replace("%next = arith.remsi %t1, %c64", "%next = arith.minsi %t1, %c64")
    module = parse(bad)
    out = Buffer.new(arg_types(module)[0], -1)
    with pytest.raises(Exception, match="out of bounds"):
        launch(make_interpreter(module), "kernel", (out,))


SCALAR = """
func.func @kernel(%out: memref<64xindex, #regcopy.mem<global>>,
                  %k: index {regcopy.divisibility = 16 : i64}, %j: index)
    attributes {regcopy.launch = #regcopy.launch<block = 4, grid = [1]>} {
  %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c8 = arith.constant 8 : index
  %sum = arith.addi %k, %j : index
  %v = regcopy.multiple_of %sum, 8 : index
  %i = arith.addi %t, %c8 : index
  memref.store %v, %out[%i] : memref<64xindex, #regcopy.mem<global>>
  func.return
}
"""


def test_scalar_arguments_and_multiple_of() -> None:
    module = parse(SCALAR)
    out = Buffer.new(arg_types(module)[0], 0)
    launch(make_interpreter(module), "kernel", (out, 32, 8))
    assert out.storage[8:12] == [40] * 4 and out.storage.count(0) == 60


def test_a_broken_divisibility_promise_is_refused() -> None:
    module = parse(SCALAR)
    out = Buffer.new(arg_types(module)[0], 0)
    with pytest.raises(Exception, match=r"argument %k = 24 breaks its promise"):
        launch(make_interpreter(module), "kernel", (out, 24, 8))
    with pytest.raises(Exception, match=r"takes 3 arguments, got 2"):
        launch(make_interpreter(module), "kernel", (out, 32))


def test_a_broken_multiple_of_is_an_error() -> None:
    module = parse(SCALAR)
    out = Buffer.new(arg_types(module)[0], 0)
    with pytest.raises(Exception, match="36 is not a multiple of 8"):
        launch(make_interpreter(module), "kernel", (out, 32, 4))
