"""The interpreter loop of the CPU interpreter, and its runtime errors with a location.

``RegcopyInterpreter`` is xDSL's ``Interpreter`` with a leaner loop, for kernels that run
thousands of threads:

* each block is compiled once into a list of steps (the op, its operand and result keys, its
  implementation), shared by every interpreter of a launch (``programs``);
* values live in one flat dict per interpreter keyed by ``id`` of the SSA value. In SSA form
  with structured control flow, a use always reads the latest execution of its definition, so
  scopes are not needed; a region entered again while it runs (a recursive call) saves and
  restores the dict around the inner run;
* operand and result counts are not re-checked (the module verified).

Any error an op raises becomes a ``KernelError``, one line naming where the op is
(``file:line:col`` when the module was parsed from a file, else its kernel), the op as
printed up to its type (``regcopy.copy cta %A[%m0, %k] [128, 64] -> %R``), what went wrong
and the block and thread that ran it. The innermost failing op wins: an enclosing
``scf.for`` passes the error on unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    OpImplResult,
    PythonValues,
    ReturnedValues,
    Successor,
    impl,
    register_impls,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import InterpretationError

from regcopy_backend.interpreter.arith import plain_impl
from regcopy_backend.interpreter.cta_barrier import BarrierBroken
from regcopy_backend.interpreter.regcopy import gpu_state
from regcopy_dialect.diagnostics import op_location, op_text

if TYPE_CHECKING:
    from regcopy_backend.interpreter.launch import ThreadState


def op_head(op: Operation) -> str:
    """The op as printed, up to its type (``regcopy.copy cta %A[%m0, %k] [128, 64] -> %R``)."""
    return op_text(op).split(" : ")[0]


def _kernel_name(op: Operation) -> str | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        parent = parent.parent_op()
    return None if parent is None else parent.sym_name.data


class KernelError(InterpretationError):
    """A runtime error of an interpreted kernel, on one line: where, the op, what went wrong,
    and the block and thread that ran it (module docstring)."""

    def __init__(self, op: Operation, thread: ThreadState, error: BaseException) -> None:
        self.op, self.thread, self.error = op, thread, error
        where = op_location(op) or (f"@{k}" if (k := _kernel_name(op)) else op.name)
        what = (str(error) if isinstance(error, InterpretationError)
                else f"{type(error).__name__}: {error}")
        super().__init__(f"{where}: {op_head(op)}: {what} (block {thread.block_id}, thread "
                         f"{thread.tid})")


Step = tuple[Operation, tuple[int, ...], tuple[int, ...], Any, Any, bool]
"""One op of a compiled block: the op, the keys of its operands and results, its functions
object and implementation, and whether that is the plain function under xDSL's ``impl``
wrapper (it returns the result values; no ``OpImplResult`` is made for it)."""


class RegcopyInterpreter(Interpreter):
    """xDSL's ``Interpreter`` with the lean loop and located errors of the module docstring.
    ``programs`` (block -> steps) may be shared by interpreters of the same module."""

    def __init__(self, module: ModuleOp, programs: dict[Block, list[Step]] | None = None
                 ) -> None:
        super().__init__(module, index_bitwidth=64)
        self.programs: dict[Block, list[Step]] = {} if programs is None else programs
        self.env: dict[int, Any] = {}
        self.active: set[Region] = set()

    # ---- values --------------------------------------------------------------------------
    def get_values(self, values: Iterable[SSAValue]) -> tuple[Any, ...]:
        env = self.env
        return tuple(env[id(v)] for v in values)

    def set_values(self, pairs: Iterable[tuple[SSAValue, Any]]) -> None:
        env = self.env
        for v, x in pairs:
            env[id(v)] = x

    # ---- running ops ---------------------------------------------------------------------
    def _fail(self, op: Operation, error: BaseException) -> KernelError:
        return KernelError(op, gpu_state(self).thread, error)

    def _compile(self, block: Block) -> list[Step]:
        impls = self._impls._impl_dict  # pyright: ignore[reportPrivateUsage]
        steps: list[Step] = []
        for op in block.ops:
            if type(op) not in impls:
                raise self._fail(op, InterpretationError(
                    f"the CPU interpreter cannot run {op.name}"))
            ft, run = impls[type(op)]
            inner = plain_impl(run)
            steps.append((op, tuple(id(v) for v in op.operands),
                          tuple(id(r) for r in op.results), ft,
                          run if inner is None else inner, inner is not None))
        self.programs[block] = steps
        return steps

    def _run_op(self, op: Operation, inputs: PythonValues) -> OpImplResult:
        """Run one op outside a block (``run_op``, e.g. one lane of a vector op): its error
        passes as raised, the block loop running the enclosing op locates it."""
        if self.listeners:
            return super()._run_op(op, inputs)
        impls = self._impls._impl_dict  # pyright: ignore[reportPrivateUsage]
        if type(op) not in impls:
            raise InterpretationError(f"the CPU interpreter cannot run {op.name}")
        ft, run = impls[type(op)]
        return run(ft, self, op, inputs)

    def run_ssacfg_region(self, region: Region, args: PythonValues, name: str = "unknown"
                          ) -> PythonValues:
        """Run ``region`` from its first block until a terminator returns (module doc)."""
        block = region.blocks.first
        if block is None:
            return ()
        if self.listeners:
            return super().run_ssacfg_region(region, args, name)
        saved = dict(self.env) if region in self.active else None
        self.active.add(region)
        try:
            return self._run_blocks(block, args)
        finally:
            if saved is None:
                self.active.discard(region)
            else:
                self.env = saved

    def run_loop(self, region: Region, lb: int, ub: int, step: int,
                 carried: PythonValues) -> PythonValues:
        """``scf.for``'s iterations over ``region`` (xDSL's semantics: the body runs with
        ``(i, *carried)`` for i in range(lb, ub, step) and yields the next ``carried``), the
        per-run bookkeeping of ``run_ssacfg_region`` done once per loop, not per iteration
        (a region entered again while it runs, or watched by listeners, keeps the per-run
        path)."""
        block = region.blocks.first
        if block is None or self.listeners or region in self.active:
            for i in range(lb, ub, step):
                carried = self.run_ssacfg_region(region, (i, *carried))
            return carried
        self.active.add(region)
        try:
            for i in range(lb, ub, step):
                carried = self._run_blocks(block, (i, *carried))
        finally:
            self.active.discard(region)
        return carried

    def _run_blocks(self, block: Block | None, args: PythonValues) -> PythonValues:
        programs = self.programs
        while block is not None:
            env = self.env
            for a, x in zip(block.args, args, strict=True):
                env[id(a)] = x
            steps = programs.get(block) or self._compile(block)
            block = None
            for op, operands, results, ft, run, plain in steps:
                try:
                    result = run(ft, self, op, tuple([env[k] for k in operands]))
                except (KernelError, BarrierBroken):
                    raise
                except Exception as e:  # noqa: BLE001 - every runtime error gets a location
                    raise self._fail(op, e) from None
                if plain:
                    for k, x in zip(results, result):
                        env[k] = x
                    continue
                for k, x in zip(results, result.values):
                    env[k] = x
                term = result.terminator_value
                if term is None:
                    continue
                if isinstance(term, ReturnedValues):
                    return term.values
                if isinstance(term, Successor):
                    block, args = term.block, term.args
                    break
        return ()


@register_impls
class LoopFunctions(InterpreterFunctions):
    """``scf.for`` through ``RegcopyInterpreter.run_loop`` (register with ``override=True``
    after xDSL's ``ScfFunctions``; another interpreter runs xDSL's loop)."""

    @impl(scf.ForOp)
    def run_for(self, interp: Interpreter, op: scf.ForOp, args: PythonValues) -> PythonValues:
        lb, ub, step, *carried = args
        if isinstance(interp, RegcopyInterpreter):
            return interp.run_loop(op.body, lb, ub, step, tuple(carried))
        loop_args = tuple(carried)
        for i in range(lb, ub, step):
            loop_args = interp.run_ssacfg_region(op.body, (i, *loop_args), "for_loop")
        return loop_args
