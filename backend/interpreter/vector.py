"""Vectors in the CPU interpreter: lane-wise ``arith``, ``vector.bitcast`` and
``vector.broadcast`` (of a scalar: the scalar in every lane).

A vector value is a Python tuple of its lanes (``vector.load`` makes one), each lane held as
the buffers hold an element of its type: a Python int for integers (two's complement of the
lane width, unsigned for ``ui`` types), a Python float for ``f64``/``f32``/``f16`` (an exact
value of the type), and the raw bits (an unsigned int) for ``bf16`` and the fp8 types
(``host_data.numpy_dtype``).

* **Lane-wise arith.** Every ``arith`` op with a scalar implementation (``ARITH_FUNCTIONS``:
  xDSL's and ``interp_arith``'s), except ``arith.constant``, runs on tuples lane by lane
  (``interp_arith.run_lanes``): the *same* scalar implementation once per lane, on a lane op
  (a copy of the op with the vectors' element types, made once per op), so each lane is
  wrapped, rounded or refused exactly as the scalar op is. The integer ops of
  ``FastIntArithFunctions`` test ``type(x) is tuple`` themselves; ``VectorFunctions``
  overrides the others with the same test in front of their scalar implementation. A
  ``select`` with a scalar condition picks a whole vector (the scalar path); with a vector
  condition, lane by lane.
* **``vector.bitcast``** reinterprets the lanes' bytes, little-endian, through numpy with the
  dtypes the buffers use (f32 as IEEE single, f16 as IEEE half, bf16/fp8 as their bits). A
  float lane is a Python float, so an f32 *signaling* NaN pattern comes back quieted (bit 22
  set), as it does when a buffer of f32 is read in; every other pattern round-trips exactly.
  ``i1`` and ``index`` lanes have no bytes here and are refused.

Anything not supported is a one-line ``InterpretationError``, never a Python ``TypeError``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import prod
from typing import Any, cast

import numpy as np
from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import IndexType, IntegerType, VectorType
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    register_impls,
)
from xdsl.interpreters.arith import ArithFunctions
from xdsl.ir import Operation
from xdsl.utils.exceptions import InterpretationError

from regcopy_backend.host_data import HostTypeError, numpy_dtype
from regcopy_backend.interpreter.arith import (
    ExtraArithFunctions,
    FastIntArithFunctions,
    FloatArithFunctions,
    run_lanes,
)
from regcopy_backend.interpreter.casts import CastFunctions

ScalarImpl = tuple[InterpreterFunctions, Callable[..., Any]]

ARITH_FUNCTIONS: tuple[type[InterpreterFunctions], ...] = (
    ArithFunctions, ExtraArithFunctions, CastFunctions, FastIntArithFunctions,
    FloatArithFunctions)
"""The scalar ``arith`` implementations, in registration order (a later one overrides)."""


def _impls_of(ft: type[InterpreterFunctions]) -> list[tuple[type[Operation], Any]]:
    return list(ft._impls())  # pyright: ignore[reportPrivateUsage]


LANE_AWARE: tuple[type[InterpreterFunctions], ...] = (FastIntArithFunctions,)
"""Scalar implementations that run tuples lane by lane themselves (the hot index-math ops,
which keep their scalar path free of any wrapper)."""

LANEWISE_OPS: tuple[type[Operation], ...] = tuple(dict.fromkeys(
    op_type for ft in ARITH_FUNCTIONS for op_type, _ in _impls_of(ft)
    if op_type.name.startswith("arith.")
    and op_type not in (arith.ConstantOp, arith.BitcastOp)
    and not any(op_type is t for aware in LANE_AWARE for t, _ in _impls_of(aware))))
"""The ``arith`` ops that ``VectorFunctions`` runs lane by lane on vectors: every one with a
scalar implementation, except ``arith.constant`` and those of ``LANE_AWARE``."""


class VectorFunctions(InterpreterFunctions):
    """``vector.bitcast``, ``vector.broadcast``, and the ``LANEWISE_OPS`` on tuples
    (``run_lanes``) on top of the given scalar implementations (instances of
    ``ARITH_FUNCTIONS``, in registration order); register it with ``override=True`` after
    them."""

    def __init__(self, scalar: Sequence[InterpreterFunctions]) -> None:
        self._scalar: dict[type[Operation], ScalarImpl] = {}
        for ft in scalar:
            for op_type, fn in _impls_of(type(ft)):
                self._scalar[op_type] = (ft, fn)
        self._lane_ops: dict[Operation, Operation] = {}

    @impl(vector.BitcastOp)
    def run_bitcast(self, interp: Interpreter, op: vector.BitcastOp, args: PythonValues):
        source, result = cast(VectorType, op.source.type), cast(VectorType, op.result.type)
        return (bitcast_lanes(args[0], source, result),)

    @impl(vector.BroadcastOp)
    def run_broadcast(self, interp: Interpreter, op: vector.BroadcastOp, args: PythonValues):
        """``vector.broadcast`` of a scalar: the scalar in every lane (a vector source is
        refused)."""
        result = cast(VectorType, op.vector.type)
        if isinstance(op.source.type, VectorType):
            raise InterpretationError(f"vector.broadcast from {op.source.type} to {result}: "
                                      "only a scalar source is supported")
        return (tuple(args[0] for _ in range(prod(result.get_shape()))),)

    @impl(arith.BitcastOp)
    def run_arith_bitcast(self, interp: Interpreter, op: arith.BitcastOp, args: PythonValues):
        """``arith.bitcast``: of vectors as ``vector.bitcast``; of scalars, a vector of one
        lane each way."""
        source, result = op.operands[0].type, op.results[0].type
        if isinstance(source, VectorType) and isinstance(result, VectorType):
            return (bitcast_lanes(args[0], source, result),)
        if isinstance(source, VectorType) or isinstance(result, VectorType):
            raise InterpretationError(f"arith.bitcast from {source} to {result}: a vector "
                                      "and a scalar")
        return (bitcast_lanes((args[0],), VectorType(source, [1]), VectorType(result, [1]))[0],)


def _lanewise_impl(op_type: type[Operation]) -> Any:
    """The ``VectorFunctions`` implementation of ``op_type``: its scalar implementation
    unless the first operand is a tuple, then ``run_lanes``."""

    def run(self: VectorFunctions, interp: Interpreter, op: Operation, args: PythonValues
            ) -> PythonValues:
        if type(args[0]) is tuple:
            return run_lanes(interp, op, args, self._lane_ops)
        ft, fn = self._scalar[op_type]
        return fn(ft, interp, op, args).values

    run.__name__ = f"run_{op_type.__name__}"
    return impl(op_type)(run)


for _op_type in LANEWISE_OPS:
    setattr(VectorFunctions, f"run_{_op_type.__name__}", _lanewise_impl(_op_type))
register_impls(VectorFunctions)


# ---- vector.bitcast ----------------------------------------------------------------------


def _lane_dtype(v: VectorType, role: str, source: VectorType, result: VectorType) -> np.dtype:
    """The little-endian numpy dtype of one lane of ``v`` (as the buffers hold it)."""
    lane = v.element_type
    if isinstance(lane, IndexType) or (isinstance(lane, IntegerType) and lane.width.data == 1):
        raise InterpretationError(f"vector.bitcast from {source} to {result}: {lane} lanes "
                                  f"({role}) have no bytes in the interpreter")
    try:
        return numpy_dtype(lane).newbyteorder("<")
    except HostTypeError as e:
        raise InterpretationError(f"vector.bitcast from {source} to {result}: {e}") from None


def lane_bytes(lanes: Sequence[Any], dtype: np.dtype) -> bytes:
    """The little-endian bytes of ``lanes`` held as ``dtype`` elements (integers modulo
    2^bits, so signed and unsigned values of one width give the same bytes)."""
    if dtype.kind in "iu":
        mask = (1 << (8 * dtype.itemsize)) - 1
        return np.array([v & mask for v in lanes], dtype=f"<u{dtype.itemsize}").tobytes()
    with np.errstate(over="ignore"):  # a double beyond the f32/f16 range rounds to inf
        return np.array(lanes, dtype=dtype).tobytes()


def bitcast_lanes(lanes: Any, source: VectorType, result: VectorType) -> tuple[Any, ...]:
    """``vector.bitcast``: the lanes of ``result`` that have the bytes of ``lanes`` (of
    ``source``), little-endian."""
    src = _lane_dtype(source, "source", source, result)
    dst = _lane_dtype(result, "result", source, result)
    n = prod(source.get_shape())
    if type(lanes) is not tuple or len(lanes) != n:
        raise InterpretationError(f"vector.bitcast from {source}: expected a vector of {n} "
                                  f"lanes, got {type(lanes).__name__}")
    try:
        data = lane_bytes(lanes, src)
    except (TypeError, ValueError, OverflowError) as e:
        raise InterpretationError(f"vector.bitcast from {source} to {result}: a lane is not "
                                  f"a {source.element_type} value ({e})") from None
    if len(data) != prod(result.get_shape()) * dst.itemsize:
        raise InterpretationError(f"vector.bitcast from {source} ({len(data)} bytes) to "
                                  f"{result}: the sizes differ")
    return tuple(np.frombuffer(data, dtype=dst).tolist())
