"""The compute ops of the CUDA target: ``math`` functions, ``arith.maximumf/minimumf``,
``vector.broadcast`` and ``gpu.shuffle``, as C expressions.

* ``math.exp exp2 log sqrt rsqrt tanh`` on f32 print as CUDA's ``expf exp2f logf sqrtf
  rsqrtf tanhf``, on f64 as ``exp exp2 log sqrt rsqrt tanh``; ``math.fma`` as ``fmaf``/``fma``
  (one rounding). NVRTC compiles without ``-use_fast_math``, so these are CUDA's accurate
  versions (``sqrtf``: correctly rounded; the others within CUDA's documented ulp bounds,
  which is why ``--check`` compares their results within a tolerance);
* ``arith.maximumf``/``minimumf`` (NaN if either operand is NaN; ``-0.0 < +0.0``) through the
  helpers ``rc_maximumf``/``rc_minimumf`` (``rc_maximum``/``rc_minimum`` on f64);
* on f16/bf16 scalars (raw bit patterns in this target) each of these computes in f32 and
  rounds back to nearest even, as MLIR's ``math-extend-to-supported-types`` does: exact for
  ``maximumf``/``minimumf`` and ``fma``'s inputs, one rounding of the f32 result;
* on vectors of f32 lanes (held in their transfer type), lane by lane;
* ``vector.broadcast`` of a scalar to any vector of 1 to 16 bytes (its lanes packed);
* ``gpu.shuffle`` (width 32) as ``__shfl_xor_sync``/``__shfl_up_sync``/``__shfl_down_sync``/
  ``__shfl_sync`` with the full mask on the offset's low five bits; narrower values travel
  as ``int``; its ``valid`` result is computed from the lane id.

Anything else is a ``ComputeError`` saying what is supported.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from regcopy_backend.cuda.lanes import CONVERSIONS, helper_of, lane, pack
from regcopy_backend.cuda.types import (
    INDEX_SWITCH,
    UINDEX_SWITCH,
    element_bytes,
    is_bit_pattern,
)
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    VectorType,
)
from xdsl.ir import Attribute, Operation, SSAValue

from regcopy_dialect.gpu_shuffle import ShuffleMode, ShuffleOp

UNARY: dict[type[Operation], str] = {
    math.ExpOp: "exp", math.Exp2Op: "exp2", math.LogOp: "log", math.SqrtOp: "sqrt",
    math.RsqrtOp: "rsqrt", math.TanhOp: "tanh"}
"""Unary math ops and their CUDA double function (the float one adds ``f``)."""

APPROXIMATE: tuple[type[Operation], ...] = (math.ExpOp, math.Exp2Op, math.LogOp,
                                            math.RsqrtOp, math.TanhOp)
"""Math ops whose CUDA functions are not correctly rounded (the CPU interpreter's are)."""

MINMAX: dict[type[Operation], str] = {arith.MaximumfOp: "maximum", arith.MinimumfOp: "minimum"}

COMPUTE_OPS: tuple[type[Operation], ...] = (*UNARY, math.FmaOp, *MINMAX)
"""The ops ``math_expression`` prints."""

HELPERS: dict[str, str] = {
    "rc_maximumf": """\
static __device__ __forceinline__ float rc_maximumf(float a, float b) {
  const float m = a == b ? __int_as_float(__float_as_int(a) & __float_as_int(b)) : fmaxf(a, b);
  return ((a != a) | (b != b)) ? __int_as_float(0x7fffffff) : m; }
""",
    "rc_minimumf": """\
static __device__ __forceinline__ float rc_minimumf(float a, float b) {
  const float m = a == b ? __int_as_float(__float_as_int(a) | __float_as_int(b)) : fminf(a, b);
  return ((a != a) | (b != b)) ? __int_as_float(0x7fffffff) : m; }
""",
    "rc_maximum": """\
static __device__ __forceinline__ double rc_maximum(double a, double b) {
  const double m = a == b
      ? __longlong_as_double(__double_as_longlong(a) & __double_as_longlong(b)) : fmax(a, b);
  return ((a != a) | (b != b)) ? __longlong_as_double(0x7fffffffffffffffLL) : m; }
""",
    "rc_minimum": """\
static __device__ __forceinline__ double rc_minimum(double a, double b) {
  const double m = a == b
      ? __longlong_as_double(__double_as_longlong(a) | __double_as_longlong(b)) : fmin(a, b);
  return ((a != a) | (b != b)) ? __longlong_as_double(0x7fffffffffffffffLL) : m; }
""",
}
"""``maximumf``/``minimumf`` (NaN-propagating; of equal operands, ``+0.0`` is the larger:
the AND of the bits keeps a sign bit only when both have it, the OR when either has). The
tests are combined with ``|``, not ``||``, and the results selected, so that ptxas emits
``FMNMX`` and selects, no branch."""


class ComputeError(ValueError):
    """A compute op (or operand type) the CUDA target does not print."""


def _half_name(t: Attribute) -> str:
    return "bf16" if isinstance(t, BFloat16Type) else "f16"


def helpers_of(op: Operation) -> set[str]:
    """The device helpers (``HELPERS`` and ``lanes.CONVERSIONS``) that printing ``op`` calls."""
    out: set[str] = set()
    if (h := helper_of(op)) is not None:
        out.add(h)
    if not isinstance(op, COMPUTE_OPS):
        return out
    t = op.results[0].type
    lane_t = t.element_type if isinstance(t, VectorType) else t
    if type(op) in MINMAX:
        base = "rc_" + MINMAX[type(op)]
        out.add(base if isinstance(lane_t, Float64Type) else base + "f")
    if isinstance(lane_t, Float16Type | BFloat16Type):
        name = _half_name(lane_t)
        out |= {f"rc_{name}_to_f32", f"rc_f32_to_{name}"}
    return out


def module_helpers(ops: Iterable[Operation]) -> str:
    """The definitions of every helper that ``ops`` call, conversions first (the others may
    call them), each once, in a fixed order."""
    used: set[str] = set()
    for op in ops:
        used |= helpers_of(op)
    texts = [text for name, text in CONVERSIONS.items() if name in used]
    return "".join(texts + [text for name, text in HELPERS.items() if name in used])


def _float_call(op: Operation, single: bool, args: Sequence[str]) -> str:
    """The call computing ``op`` on f32 (``single``) or f64 operands ``args``."""
    suffix = "f" if single else ""
    if isinstance(op, math.FmaOp):
        return f"fma{suffix}({', '.join(args)})"
    if type(op) in MINMAX:
        return f"rc_{MINMAX[type(op)]}{suffix}({args[0]}, {args[1]})"
    return f"{UNARY[type(op)]}{suffix}({args[0]})"


SUPPORTED_NOTE = ("f32 and f64 scalars, f16 and bf16 scalars (computed in f32), and vectors "
                  "of f32 lanes")


def math_expression(op: Operation, args: Sequence[str], rt: str) -> str:
    """The C expression of a ``COMPUTE_OPS`` op on the C texts ``args`` of its operands
    (``rt``: the C type of its result)."""
    t = op.results[0].type
    if isinstance(t, VectorType):
        if not isinstance(t.element_type, Float32Type) or t.get_num_dims() != 1:
            raise ComputeError(f"on {t} is not supported by the CUDA target ({SUPPORTED_NOTE})")
        n = t.get_shape()[0]

        def word(k: int) -> str:
            lanes = [f"__uint_as_float({lane(a, rt, 32, k)})" for a in args]
            return f"__float_as_uint({_float_call(op, True, lanes)})"

        return pack(rt, 32, [word(k) for k in range(n)])
    if isinstance(t, Float32Type | Float64Type):
        return _float_call(op, isinstance(t, Float32Type), args)
    if isinstance(t, Float16Type | BFloat16Type):
        name = _half_name(t)
        wide = [f"rc_{name}_to_f32({a})" for a in args]
        return f"rc_f32_to_{name}({_float_call(op, True, wide)})"
    raise ComputeError(f"on {t} is not supported by the CUDA target ({SUPPORTED_NOTE})")


def broadcast_lanes(source: Attribute, result: VectorType, text: str, rt: str) -> str:
    """``vector.broadcast`` of the scalar ``text`` (type ``source``) to ``result`` (transfer
    type ``rt``): every lane holds the scalar's bits."""
    lane_t = result.element_type
    if source != lane_t or result.get_num_dims() != 1 or isinstance(lane_t, IndexType):
        raise ComputeError(f"from {source} to {result} is not supported by the CUDA target "
                           "(a scalar to a 1-D vector of its own type, 1 to 16 bytes)")
    bits = element_bytes(lane_t) * 8
    if isinstance(lane_t, IntegerType) and lane_t.width.data == 1:
        raise ComputeError(f"from {source} to {result} is not supported by the CUDA target "
                           "(i1 lanes have no bytes here)")
    if isinstance(lane_t, Float32Type):
        text = f"__float_as_uint({text})"
    elif isinstance(lane_t, Float64Type):
        text = f"__double_as_longlong({text})"
    elif not (isinstance(lane_t, IntegerType) or is_bit_pattern(lane_t)):
        raise ComputeError(f"from {source} to {result} is not supported by the CUDA target")
    return pack(rt, bits, [text] * result.get_shape()[0])


SHUFFLE_CALLS = {ShuffleMode.XOR: "__shfl_xor_sync", ShuffleMode.UP: "__shfl_up_sync",
                 ShuffleMode.DOWN: "__shfl_down_sync", ShuffleMode.IDX: "__shfl_sync"}
NATIVE_SHUFFLE = ("int", "unsigned int", "long long", "unsigned long long", "float", "double",
                  INDEX_SWITCH, UINDEX_SWITCH)
"""C types with a ``__shfl_*_sync`` overload; narrower values travel as ``int``."""


def shuffle_offset(offset: SSAValue, text: str) -> str:
    """The offset's low five bits (what PTX reads): a literal for a constant."""
    owner = offset.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return str(owner.value.value.data & 31)
    return f"({text} & 31)"


def shuffle_expression(op: ShuffleOp, value: str, offset: str, ct: str) -> str:
    """The shuffled value (``ct``: its C type; ``offset``: from ``shuffle_offset``)."""
    call = SHUFFLE_CALLS[op.mode.data]
    if ct in NATIVE_SHUFFLE:
        return f"{call}(0xffffffffu, {value}, {offset})"
    return f"({ct}){call}(0xffffffffu, (int){value}, {offset})"


def shuffle_valid(op: ShuffleOp, offset: str) -> str:
    """Whether the source lane was in range (``gpu_shuffle.shuffle_source``)."""
    mode = op.mode.data
    if mode == ShuffleMode.UP:
        return f"(int)(threadIdx.x % 32) >= {offset}"
    if mode == ShuffleMode.DOWN:
        return f"(int)(threadIdx.x % 32) + {offset} <= 31"
    return "true"
