"""Async copies (copy_async / async_group / async_wait): the cp.async lowering's plan and
remarks, and the CPU interpreter's semantics (data lands at the wait; reading before it, or a
wait that leaves its group in flight, is a one-line error), on the reference ops and on the
lowered cp_async ops alike."""

from __future__ import annotations

import numpy as np
import pytest
from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_passes.lower_reg_copy import LowerRegCopyPass
from xdsl.context import Context
from xdsl.utils.exceptions import InterpretationError

from regcopy_dialect.builders import parse_module
from regcopy_dialect.diagnostics import capture_diagnostics

G = "memref<128x64xf16, #regcopy.mem<global>>"
PLAIN = "#regcopy.mem<shared>"
SWIZZLED = "#regcopy.layout<(2,32,64):(2048,64,1), swizzle<3,3,3>>, #regcopy.mem<shared>"


def kernel(shared: str = PLAIN, wait: str = "regcopy.async_wait %g {pending = 0 : i64}",
           rows: int = 32) -> str:
    """A CTA of 128 threads copies rows [%i, %i + rows) of %A into stage 1 of a 2-stage
    shared ring with copy_async, waits, and copies the stage back out to %O, element by
    element (16 per thread per 32 rows)."""
    s = f"memref<2x32x64xf16, {shared}>"
    per = rows * 64 // 128
    return f"""
func.func @k(%A: {G}, %O: memref<32x64xf16, #regcopy.mem<global>>, %i: index {{regcopy.divisibility = 8}})
    attributes {{regcopy.launch = #regcopy.launch<block = 128, grid = [1]>}} {{
  %S = memref.alloca() : {s}
  %t = regcopy.copy_async cta %A[%i, 0] [{rows}, 64] -> %S[1, 0, 0] [1, {rows}, 64] : {G} -> {s}
  %g = regcopy.async_group %t
  {wait}
  "gpu.barrier"() : () -> ()
  %tid = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cn = arith.constant {per} : index
  %c64 = arith.constant 64 : index
  %base = arith.muli %tid, %cn : index
  scf.for %k = %c0 to %cn step %c1 {{
    %e = arith.addi %base, %k : index
    %r = arith.divui %e, %c64 : index
    %c = arith.remui %e, %c64 : index
    %v = memref.load %S[%c1, %r, %c] : {s}
    memref.store %v, %O[%r, %c] : memref<32x64xf16, #regcopy.mem<global>>
  }}
  func.return
}}
"""


def lowered(text: str, **options: object):
    module = parse_module(text)
    with capture_diagnostics() as diags:
        LowerRegCopyPass(**options).apply(Context(), module)  # type: ignore[arg-type]
    return module, diags


def run(module, i: int = 16) -> np.ndarray:
    a = np.arange(128 * 64, dtype=np.float16).reshape(128, 64)
    out = np.zeros((32, 64), dtype=np.float16)
    return run_on_cpu(module, "k", [a, out, i])[1]


@pytest.mark.parametrize("shared", [PLAIN, SWIZZLED], ids=["plain", "swizzled"])
def test_lowered_and_reference_land_the_same_data(shared: str) -> None:
    expect = np.arange(128 * 64, dtype=np.float16).reshape(128, 64)[16:48]
    reference = run(parse_module(kernel(shared)))
    module, diags = lowered(kernel(shared), remarks=True)
    text = str(module)
    assert "regcopy.copy_async" not in text and text.count("regcopy.cp_async %") == 2
    assert [d.message for d in diags] == ["cp.async.cg 16 bytes (8 × f16), 2 chunks/thread"]
    np.testing.assert_array_equal(reference, expect)
    np.testing.assert_array_equal(run(module), expect)


def test_narrower_width_says_why() -> None:
    text = kernel().replace("{regcopy.divisibility = 8}", "{regcopy.divisibility = 2}")
    text = text.replace("%A[%i, 0]", "%A[0, %i]").replace("[32, 64] -> %S", "[32, 32] -> %S")
    text = text.replace("[1, 32, 64] :", "[1, 32, 32] :")
    _, diags = lowered(text, remarks=True)
    (d,) = diags
    assert d.message == "cp.async.ca 4 bytes (2 × f16), 4 chunks/thread"
    assert d.notes[0] == ("narrowed: not 16 bytes: global side: chunk starts are multiples of "
                          "2 elements only, not of 8; not 8 bytes: global side: chunk starts "
                          "are multiples of 2 elements only, not of 4")


@pytest.mark.parametrize("lower", [False, True], ids=["reference", "lowered"])
def test_reading_before_the_wait_is_an_error(lower: bool) -> None:
    text = kernel(wait="")
    module = lowered(text)[0] if lower else parse_module(text)
    with pytest.raises(InterpretationError, match=r"memref.load.*while .* is in flight: the "
                       r"data lands at its regcopy.async_wait"):
        run(module)


def test_wait_that_leaves_its_group_in_flight_is_an_error() -> None:
    text = kernel(wait="regcopy.async_wait %g {pending = 1 : i64}")
    with pytest.raises(InterpretationError, match=r"pending = 1 leaves %g in flight: only 0 "
                       r"group\(s\) were closed after it; use pending <= 0"):
        run(parse_module(text))
    # lowered, cp.async.wait_group 1 completes nothing: the first read finds data in flight
    with pytest.raises(InterpretationError, match=r"while a cp.async is in flight"):
        run(lowered(text)[0])


def test_refused_copy_keeps_every_async_op() -> None:
    text = kernel(rows=1).replace("[1, 64] -> %S[1, 0, 0] [1, 1, 64]",
                                  "[1, 3] -> %S[1, 0, 0] [1, 1, 3]")
    module, diags = lowered(text)
    assert "regcopy.copy_async" in str(module) and "regcopy.async_wait" in str(module)
    (d,) = diags
    assert d.severity == "warning"
    assert d.message.startswith("not lowered: no cp.async width fits")


BARRIER = '  "gpu.barrier"() : () -> ()\n'


@pytest.mark.parametrize("lower", [False, True], ids=["reference", "lowered"])
@pytest.mark.parametrize("phased", [False, True], ids=["no-barrier", "barrier-before-copy"])
def test_a_missing_barrier_after_the_wait_is_an_error(lower: bool, phased: bool) -> None:
    """Each thread reads elements other threads' copies brought: after its own wait, without
    a gpu.barrier, they may not have landed on the GPU. Without any barrier the threads run
    one after another (a later thread reads what an earlier one's wait landed); with one before
    the copy they run in barrier phases (a read lands before or after the other thread's wait:
    either is an error)."""
    text = kernel().replace(BARRIER, "")
    if phased:
        text = text.replace("  %t = regcopy.copy_async", BARRIER + "  %t = regcopy.copy_async")
    module = lowered(text)[0] if lower else parse_module(text)
    with pytest.raises(InterpretationError, match=r"memref.load.*(a gpu.barrier is missing "
                       r"between that wait and this read|is in flight)") as err:
        run(module)
    if not phased:  # one after another: never in flight, always landed by an earlier thread
        assert "'s wait landed in this barrier phase" in str(err.value)


def test_own_copies_need_no_barrier() -> None:
    """A thread that reads only what its own copies brought needs no barrier after its wait:
    thread t moves the elements e = t (mod 128) and reads back exactly those."""
    text = kernel().replace(BARRIER, "").replace(
        "%base = arith.muli %tid, %cn : index", "%base = arith.constant 0 : index").replace(
        "%e = arith.addi %base, %k : index",
        "%k128 = arith.muli %k, %c128 : index\n    %e = arith.addi %k128, %tid : index")
    text = text.replace("%c64 = arith.constant 64 : index",
                        "%c64 = arith.constant 64 : index\n  %c128 = arith.constant 128 : index")
    expect = np.arange(128 * 64, dtype=np.float16).reshape(128, 64)[16:48]
    np.testing.assert_array_equal(run(parse_module(text)), expect)
