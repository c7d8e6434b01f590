"""The interpreter's fast paths give what the paths they replace give: ``arith.cmpi``'s
comparison (against xDSL's implementation, every predicate and width, edge values), the
plain functions under xDSL's ``@impl`` (terminators keep their wrapper), the local-element
table of ``memref.load/store`` (a thread that does not own an element is refused also when
the owner's access filled the table), and ``computed_once`` (threads asking together compute
once; an error is not cached)."""

from __future__ import annotations

import threading
from itertools import product

import pytest
from copy_harness import parse
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.interpreters.arith import ArithFunctions
from xdsl.interpreters.scf import ScfFunctions
from xdsl.ir import Block

from regcopy_backend.interpreter.arith import integer_comparison, plain_impl
from regcopy_backend.interpreter.driver import launch, make_interpreter
from regcopy_backend.interpreter.once import computed_once

PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


@pytest.mark.parametrize("width", [1, 8, 32, 64])
def test_cmpi_agrees_with_xdsl(width: int) -> None:
    t = IndexType() if width == 64 else IntegerType(width)
    block = Block(arg_types=[t, t])
    interp = make_interpreter(parse("func.func @f() {\n  func.return\n}\n"))
    half = 1 << (width - 1)
    edges = sorted({0, 1, half - 1, -half, -1, (1 << width) - 1, half, 2} - {2 if width == 1
                                                                              else None})
    xdsl = ArithFunctions()
    for name in PREDICATES:
        op = arith.CmpiOp(block.args[0], block.args[1], name)
        fast = integer_comparison(interp, op)
        for a, b in product(edges, edges):
            want = xdsl.run_cmpi(interp, op, (a, b)).values[0]
            assert fast(a, b) == want, (name, width, a, b)


def test_plain_impl_unwraps_impl_but_not_terminators() -> None:
    impls = dict(ScfFunctions._impls())  # pyright: ignore[reportPrivateUsage]
    assert plain_impl(impls[scf.ForOp]) is not None
    assert plain_impl(impls[scf.YieldOp]) is None  # @impl_terminator: successor and values
    assert plain_impl(lambda *a: ()) is None
    constant = arith.ConstantOp(IntegerAttr(5, IntegerType(32)))
    run = plain_impl(dict(ArithFunctions._impls())[arith.ConstantOp])  # pyright: ignore
    interp = make_interpreter(parse("func.func @f() {\n  func.return\n}\n"))
    assert run is not None and tuple(run(ArithFunctions(), interp, constant, ())) == (5,)


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


def test_the_local_table_does_not_skip_the_ownership_check() -> None:
    """Thread 7 (the owner) fills the table entry of R[7, 0]; thread 3, after it in the same
    launch, hits that entry and is still refused."""
    interp = make_interpreter(parse(NOT_OWNER))
    with pytest.raises(Exception, match="thread 3, which does not own it"):
        launch(interp, "kernel", (), threads=[7, 3])


def test_computed_once_computes_once_for_threads_asking_together() -> None:
    calls: list[int] = []
    gate = threading.Barrier(8)

    @computed_once
    def table(n: int) -> tuple[int, ...]:
        calls.append(n)
        return tuple(range(n))

    def ask() -> None:
        gate.wait()
        assert table(5) == (0, 1, 2, 3, 4)

    pool = [threading.Thread(target=ask) for _ in range(8)]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    assert calls == [5]

    @computed_once
    def failing(n: int) -> int:
        calls.append(n)
        raise ValueError(f"bad {n}")

    for _ in range(2):
        with pytest.raises(ValueError, match="bad 9"):
            failing(9)
    assert calls == [5, 9, 9]
