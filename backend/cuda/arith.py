"""``arith`` ops as CUDA C++ expressions.

``expression(op, args, ctype_of, text_of)`` returns the right-hand side for the op's single
result, given the C text of its operands (``text_of`` gives the C text of any printed value,
for the few ops that look through an operand's definition). Operands are named values or
literals, never compound expressions, so repeating one (``a / b - (a % b != 0 ...)``) is safe.

Scalar ``addf``/``subf``/``mulf`` on f32/f64 print as ``__fadd_rn(a, b)``/``__dadd_rn(a, b)``
and the like (``scalar_float``): each op rounds once, never fused into an ``FFMA``/``DFMA``.

On vectors (held in their transfer type, ``uint4``/``uint2``/``uint32_t``/``uint16_t``/
``uint8_t``): ``andi``/``ori``/``xori`` and ``select`` on any lanes (bitwise, word by word);
``addi``/``subi``/``muli`` on ``i32`` lanes and ``addf``/``subf``/``mulf`` on ``f32`` lanes,
one lane per 32-bit word; other integer lanes, shifts, ``divf``/``maxnumf``/``minnumf``/
``negf`` on f32 lanes, f32 <-> f16/bf16 conversions and vector constants are ``lanes``'s;
anything else is an ``ArithError`` saying what is supported.
``bitcast_expression`` prints ``vector.bitcast`` (same size: the value itself),
``broadcast_expression`` ``vector.broadcast`` of an ``i32`` to 1, 2 or 4 ``i32`` lanes.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    VectorType,
)
from xdsl.ir import Attribute, Operation, SSAValue

from regcopy_backend.cuda.lanes import (
    LaneError,
    float_cast,
    is_conversion,
    lanewise,
    vector_literal,
)
from regcopy_backend.cuda.literals import int_literal
from regcopy_backend.cuda.types import (
    INDEX_64,
    INDEX_SWITCH,
    UINDEX_SWITCH,
    TRANSFER_TYPES,
    element_bytes,
    is_bit_pattern,
    scalar_ctype,
    vector_bytes,
)

CType = Callable[[Attribute], str]
ValueText = Callable[[SSAValue], str]

BINARY_INT: dict[type[Operation], str] = {
    arith.AddiOp: "+", arith.SubiOp: "-", arith.MuliOp: "*", arith.DivSIOp: "/",
    arith.RemSIOp: "%", arith.AndIOp: "&", arith.OrIOp: "|", arith.XOrIOp: "^",
    arith.ShLIOp: "<<", arith.ShRSIOp: ">>",
}
UNSIGNED_INT: dict[type[Operation], str] = {arith.DivUIOp: "/", arith.RemUIOp: "%",
                                            arith.ShRUIOp: ">>"}
BINARY_FLOAT: dict[type[Operation], str] = {arith.AddfOp: "+", arith.SubfOp: "-",
                                            arith.MulfOp: "*", arith.DivfOp: "/"}
"""The scalar float ops with two operands; ``scalar_float`` prints them."""
ROUNDED_F32: dict[type[Operation], str] = {arith.AddfOp: "__fadd_rn", arith.SubfOp: "__fsub_rn",
                                           arith.MulfOp: "__fmul_rn"}
ROUNDED_F64: dict[type[Operation], str] = {arith.AddfOp: "__dadd_rn", arith.SubfOp: "__dsub_rn",
                                           arith.MulfOp: "__dmul_rn"}
"""``addf``/``subf``/``mulf`` on f32 and f64 as CUDA's round-to-nearest intrinsics (built into
NVRTC, no header): unlike ``*`` and ``+``, which NVRTC contracts into an ``FFMA``/``DFMA``
(``--fmad=true`` by default, one rounding for both), they are never contracted, so each op
rounds once, as MLIR's ``arith`` (without fastmath) and the CPU interpreter do."""
CMPI = {"eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">=",
        "ult": "<", "ule": "<=", "ugt": ">", "uge": ">="}
CMPI_NAMES = list(CMPI)  # the order of arith.cmpi's predicate numbers
CASTS = (arith.IndexCastOp, arith.ExtSIOp, arith.TruncIOp, arith.SIToFPOp, arith.FPToSIOp,
         arith.ExtFOp, arith.TruncFOp)
UNSIGNED_CASTS = (arith.ExtUIOp, arith.UIToFPOp, arith.FPToUIOp)
NARROW = ("bool", "signed char", "short", "unsigned char", "unsigned short")

SUPPORTED: tuple[type[Operation], ...] = (
    *BINARY_INT, *UNSIGNED_INT, *BINARY_FLOAT, *CASTS, *UNSIGNED_CASTS,
    arith.FloorDivSIOp, arith.CeilDivSIOp, arith.CeilDivUIOp, arith.MinSIOp, arith.MaxSIOp,
    arith.MinUIOp, arith.MaxUIOp, arith.CmpiOp, arith.SelectOp, arith.NegfOp,
    arith.MinnumfOp, arith.MaxnumfOp, arith.BitcastOp,
)
"""The arith ops with a result that ``expression`` prints (``arith.constant`` is inlined)."""


class ArithError(ValueError):
    """An arith op (or operand type) the CUDA target does not print."""


def unsigned_of(t: Attribute, ctype_of: CType) -> str:
    """The unsigned C type of the same width as integer-like ``t``."""
    name = ctype_of(t)
    if name == "bool":
        return "bool"
    if name.startswith("unsigned"):
        return name
    if name == INDEX_SWITCH:
        return UINDEX_SWITCH
    return {"signed char": "unsigned char"}.get(name, f"unsigned {name}")


def _float_check(op: Operation) -> None:
    for v in (*op.operands, *op.results):
        if is_bit_pattern(v.type):
            raise ArithError(f"arithmetic on {v.type} is not supported: 16- and 8-bit float "
                             "values are raw bit patterns in the CUDA target (NVRTC has no "
                             "cuda_fp16.h/cuda_bf16.h/cuda_fp8.h without an include path)")


def _narrowed(result_type: str, text: str) -> str:
    """Cast back to a sub-int type after C's integer promotion."""
    return f"({result_type})({text})" if result_type in NARROW else text


def expression(op: Operation, args: Sequence[str], ctype_of: CType,
               text_of: ValueText | None = None) -> str:
    """The C expression computing the single result of the arith ``op`` (``text_of``: the C
    text of a printed value; without it, no op looks through its operands' definitions)."""
    t = op.results[0].type
    rt = ctype_of(t)
    kind = type(op)
    if is_conversion(op):
        return float_cast(op, args, rt, ctype_of(op.operands[0].type))
    if isinstance(op, arith.BitcastOp):
        return scalar_bitcast(op.operands[0].type, t, rt, args[0])
    if isinstance(t, VectorType) and not isinstance(op, arith.SelectOp):
        return vector_expression(op, t, rt, args)
    if kind in BINARY_INT:
        return _narrowed(rt, f"{args[0]} {BINARY_INT[kind]} {args[1]}")
    if kind in UNSIGNED_INT:
        u = unsigned_of(t, ctype_of)
        return f"({rt})(({u}){args[0]} {UNSIGNED_INT[kind]} ({u}){args[1]})"
    if kind in BINARY_FLOAT:
        _float_check(op)
        return scalar_float(op, t, args[0], args[1])
    if isinstance(op, CASTS):
        _float_check(op)
        if rt == "bool" and isinstance(op, arith.TruncIOp | arith.IndexCastOp):
            return f"(bool)({args[0]} & 1)"  # truncation keeps bit 0 (C's (bool) tests != 0)
        if isinstance(op, arith.ExtSIOp | arith.IndexCastOp) and \
                ctype_of(op.operands[0].type) == "bool":
            return f"({rt})(-(int){args[0]})"  # both sign-extend an i1: true is -1 (all ones)
        return f"({rt}){args[0]}"
    if isinstance(op, UNSIGNED_CASTS):
        _float_check(op)
        if isinstance(op, arith.FPToUIOp):  # convert to the unsigned type of the result's width
            return f"({rt})({unsigned_of(t, ctype_of)}){args[0]}"
        return f"({rt})({unsigned_of(op.operands[0].type, ctype_of)}){args[0]}"
    return _special(op, args, t, rt, ctype_of, text_of)


BITS_OF_FLOAT = {"float": "__float_as_int", "double": "__double_as_longlong"}
FLOAT_OF_BITS = {"float": "__int_as_float", "double": "__longlong_as_double"}


def scalar_bitcast(source: Attribute, result: Attribute, rt: str, a: str) -> str:
    """``arith.bitcast`` of the value ``a``: between vectors of one size, the value itself
    (``bitcast_expression``); between scalars of one width, ``__float_as_int``/
    ``__int_as_float`` (f32), ``__double_as_longlong``/``__longlong_as_double`` (f64), a C cast
    between 16- or 8-bit types (f16, bf16 and fp8 are raw bits already)."""
    if isinstance(source, VectorType) and isinstance(result, VectorType):
        return bitcast_expression(source, result, a)
    if isinstance(source, VectorType) or isinstance(result, VectorType) or \
            element_bytes(source) != element_bytes(result) or \
            getattr(source, "bitwidth", 0) < 8:
        raise ArithError(f"from {source} to {result} is not supported by the CUDA target "
                         "(scalars of one width, 8 to 64 bits, or vectors of one size)")
    src_c = scalar_ctype(source)
    if src_c in BITS_OF_FLOAT:
        return f"({rt}){BITS_OF_FLOAT[src_c]}({a})"
    if rt in FLOAT_OF_BITS:
        return f"{FLOAT_OF_BITS[rt]}({a})"
    return f"({rt}){a}"


def scalar_float(op: Operation, t: Attribute, a: str, b: str) -> str:
    """The C expression of a scalar ``addf``/``subf``/``mulf``/``divf`` on f32 or f64:
    ``__fadd_rn(a, b)`` and the like (``ROUNDED_F32``/``ROUNDED_F64``: rounded after each op,
    never fused), ``a / b`` for ``divf``."""
    if isinstance(op, arith.DivfOp):
        # `/` is IEEE division rounded to nearest: always on double, and on float under
        # NVRTC's default -prec-div=true (compile_cuda passes neither -prec-div=false nor
        # -use_fast_math), like __fdiv_rn/__ddiv_rn; and a division is never contracted.
        return f"{a} / {b}"
    if isinstance(t, Float32Type):
        return f"{ROUNDED_F32[type(op)]}({a}, {b})"
    if isinstance(t, Float64Type):
        return f"{ROUNDED_F64[type(op)]}({a}, {b})"
    raise ArithError(f"on {t} is not supported by the CUDA target (scalar float arithmetic "
                     "on f32 and f64 only)")


def _special(op: Operation, args: Sequence[str], t: Attribute, rt: str, ctype_of: CType,
             text_of: ValueText | None) -> str:
    a, b = (list(args) + ["", ""])[:2]
    u = unsigned_of(t, ctype_of) if isinstance(t, IntegerType | IndexType) else ""
    match op:
        case arith.FloorDivSIOp():
            return _narrowed(rt, f"{a} / {b} - (({a} % {b} != 0) && (({a} < 0) != ({b} < 0)))")
        case arith.CeilDivSIOp():
            return _narrowed(rt, f"{a} / {b} + (({a} % {b} != 0) && (({a} < 0) == ({b} < 0)))")
        case arith.CeilDivUIOp():
            return f"({rt})(({u}){a} / ({u}){b} + (({u}){a} % ({u}){b} != 0))"
        case arith.MinSIOp():
            return f"{a} < {b} ? {a} : {b}"
        case arith.MaxSIOp():
            return f"{a} > {b} ? {a} : {b}"
        case arith.MinUIOp():
            return f"({u}){a} < ({u}){b} ? {a} : {b}"
        case arith.MaxUIOp():
            return f"({u}){a} > ({u}){b} ? {a} : {b}"
        case arith.CmpiOp():
            pred = CMPI_NAMES[op.predicate.value.data]
            if pred.startswith("u"):
                ut = unsigned_of(op.lhs.type, ctype_of)
                return f"({ut}){a} {CMPI[pred]} ({ut}){b}"
            return f"{a} {CMPI[pred]} {b}"
        case arith.SelectOp() if isinstance(op.cond.type, VectorType):
            raise ArithError(f"with a vector condition ({op.cond.type}) is not supported by "
                             "the CUDA target (a scalar i1 condition selects a whole vector)")
        case arith.SelectOp() if isinstance(t, VectorType):
            return vector_blend(rt, blend_mask(op, a, text_of), b, args[2])
        case arith.SelectOp():
            return f"{a} ? {b} : {args[2]}"
        case arith.NegfOp():
            _float_check(op)
            return f"-{a}"
        case arith.MinnumfOp() | arith.MaxnumfOp():
            _float_check(op)
            name = "fmin" if isinstance(op, arith.MinnumfOp) else "fmax"
            return f"{name}{'f' if rt == 'float' else ''}({a}, {b})"
        case _:
            raise ArithError("is not supported by the CUDA target")


BITWISE: dict[type[Operation], str] = {arith.AndIOp: "&", arith.OrIOp: "|", arith.XOrIOp: "^"}
"""Integer ops that act on each bit alone: on a vector they are the same op on its 32-bit words
(lane boundaries do not matter), so the CUDA target prints them on vectors too."""

VECTOR_WORDS: dict[str, tuple[str, ...]] = {"uint4": (".x", ".y", ".z", ".w"),
                                           "uint2": (".x", ".y"), "uint32_t": ("",)}
"""32-bit words of the transfer types that have them (member suffixes)."""


LANEWISE_INT: dict[type[Operation], str] = {arith.AddiOp: "+", arith.SubiOp: "-",
                                            arith.MuliOp: "*"}
"""Integer ops printed lane by lane on vectors of 32-bit integer lanes (C's ``unsigned``
arithmetic wraps around: the same bits as MLIR's two's complement)."""

LANEWISE_F32: dict[type[Operation], str] = ROUNDED_F32
"""Float ops printed lane by lane on vectors of f32 lanes, as the round-to-nearest intrinsics
of scalar f32 (``ROUNDED_F32``): never contracted into an ``FFMA``, so each op rounds once."""

VECTOR_OPS_NOTE = ("vectors take select (any lanes), addi, subi, muli, andi, ori, xori, shli, "
                   "shrui and shrsi (8- to 64-bit integer lanes), addf, subf, mulf, divf, "
                   "maxnumf, minnumf and negf (f32 lanes), truncf f32 -> f16/bf16 and extf "
                   "back, and bitcast only")
"""What the CUDA target prints on vectors (the end of every refusal of a vector op)."""


def vector_expression(op: Operation, t: VectorType, rt: str, args: Sequence[str]) -> str:
    """The C expression of an arith op (not ``select``) on vectors of transfer type ``rt``:
    bitwise ops on any lanes (``vector_bitwise``), add/sub/mul on i32 lanes and on f32 lanes
    word by word (``vector_lanewise``); anything else is an ``ArithError``."""
    kind = type(op)
    if kind in BITWISE:
        return vector_bitwise(rt, BITWISE[kind], args[0], args[1])
    lane = t.element_type
    if kind in LANEWISE_INT and lane == IntegerType(32):
        return vector_lanewise(rt, lambda x, y: f"{x} {LANEWISE_INT[kind]} {y}", *args)
    if kind in LANEWISE_F32 and isinstance(lane, Float32Type):
        fn = LANEWISE_F32[kind]
        return vector_lanewise(rt, lambda x, y: f"__float_as_uint({fn}(__uint_as_float({x}), "
                                                f"__uint_as_float({y})))", *args)
    try:
        return lanewise(op, t, rt, args)
    except LaneError:
        raise ArithError(f"on {t} is not supported by the CUDA target: "
                         f"{VECTOR_OPS_NOTE}") from None


def vector_lanewise(rt: str, word: Callable[[str, str], str], a: str, b: str) -> str:
    """``{word(a.x, b.x), word(a.y, b.y), ...}`` over the 32-bit words of the transfer type
    ``rt`` (``uint4``/``uint2``), or ``word(a, b)`` for ``uint32_t``; each word is one lane."""
    if rt not in VECTOR_WORDS:
        raise ArithError(f"internal error: {rt} has no 32-bit words")
    words = [word(f"{a}{w}", f"{b}{w}") for w in VECTOR_WORDS[rt]]
    return words[0] if rt == "uint32_t" else "{" + ", ".join(words) + "}"


def bitcast_expression(source: VectorType, result: VectorType, text: str) -> str:
    """The C expression of ``vector.bitcast`` of the value ``text`` from ``source`` to
    ``result``: vectors of the same byte size share their transfer type, so the bitcast is the
    value itself (``const uint4 b = a;``). Lanes must be integers or floats of 8 to 64 bits
    (no ``i1``, no ``index``); anything else is an ``ArithError``."""
    for t in (source, result):
        lane = t.element_type
        if isinstance(lane, IndexType) or (isinstance(lane, IntegerType)
                                           and lane.width.data == 1):
            raise ArithError(f"from {source} to {result} is not supported by the CUDA target: "
                             f"{lane} lanes have no fixed bytes here (bitcast vectors of "
                             "8- to 64-bit integer or float lanes)")
    size_in, size_out = vector_bytes(source), vector_bytes(result)
    if size_in != size_out or TRANSFER_TYPES.get(size_in) is None:
        raise ArithError(f"from {source} ({size_in} bytes) to {result} ({size_out} bytes) is "
                         "not supported by the CUDA target: it bitcasts between vectors of "
                         "the same size, 16, 8, 4, 2 or 1 bytes")
    return text


def broadcast_expression(source: Attribute, result: VectorType, text: str) -> str:
    """The C expression of ``vector.broadcast`` of the scalar ``text`` (of type ``source``) to
    ``result``: an ``i32`` in every lane of a ``vector<w x i32>`` (w = 1, 2, 4:
    ``uint32_t``/``uint2``/``uint4``), ``{(unsigned)x, (unsigned)x, ...}``; anything else is
    an ``ArithError``."""
    w = result.get_shape()[0] if result.get_num_dims() == 1 else 0
    if source != IntegerType(32) or result.element_type != IntegerType(32) or \
            w not in (1, 2, 4):
        raise ArithError(f"from {source} to {result} is not supported by the CUDA target "
                         "(it broadcasts an i32 to vector<1xi32>, vector<2xi32> or "
                         "vector<4xi32>)")
    word = f"(unsigned){text}"
    return word if w == 1 else "{" + ", ".join([word] * w) + "}"


def vector_bitwise(rt: str, c_op: str, a: str, b: str) -> str:
    """A bitwise ``a c_op b`` on vectors (transfer type ``rt``): word by word for
    ``uint4``/``uint2``, one operation on the narrower transfer types."""
    if rt in ("uint4", "uint2"):
        return "{" + ", ".join(f"{a}{w} {c_op} {b}{w}" for w in VECTOR_WORDS[rt]) + "}"
    return f"({rt})({a} {c_op} {b})"


def truncated_bit(cond: SSAValue) -> SSAValue | None:
    """The integer ``x`` when ``cond`` is ``trunci``/``index_cast`` of ``x`` to ``i1`` (so
    ``cond`` is bit 0 of ``x``), else None."""
    owner = cond.owner
    if isinstance(owner, arith.TruncIOp | arith.IndexCastOp):
        source = owner.operands[0]
        if isinstance(source.type, IntegerType | IndexType):
            return source
    return None


def blend_mask(op: arith.SelectOp, cond: str, text_of: ValueText | None) -> str:
    """The all-ones-when-true 32-bit mask of a vector select: ``0u - (unsigned)(x & 1)`` when
    the condition is bit 0 of an integer ``x`` (``truncated_bit``) and ``text_of`` names it,
    else ``0u - (unsigned)cond``.

    The difference is in SASS: from a ``bool``, NVVM rewrites ``y & -(unsigned)c`` into a
    select on a predicate, and each blended word costs ``LOP3`` + ``SEL`` + ``LOP3``; from
    integer arithmetic on ``x``, the mask is one register and each word one 3-input ``LOP3``."""
    source = truncated_bit(op.cond)
    if source is not None and text_of is not None:
        return f"(0u - (unsigned)({text_of(source)} & 1))"
    return f"(0u - (unsigned){cond})"


def vector_blend(rt: str, mask: str, a: str, b: str) -> str:
    """``cond ? a : b`` on a vector (its transfer type ``rt``) as a bitwise blend per 32-bit
    word, ``b ^ ((a ^ b) & m)`` with ``mask`` the C text of ``m`` (all ones when ``cond``,
    ``blend_mask``).

    Written as ``c ? a : b``, ptxas turned such selects into predicated duplicate stores or
    per-lane branches; the blend stays bitwise per word. 16- and 8-bit vectors
    blend in ``unsigned`` and cast back."""
    m = mask
    if rt in VECTOR_WORDS:
        words = [f"{b}{w} ^ (({a}{w} ^ {b}{w}) & {m})" for w in VECTOR_WORDS[rt]]
        return words[0] if rt == "uint32_t" else "{" + ", ".join(words) + "}"
    return f"({rt})((unsigned){b} ^ (((unsigned){a} ^ (unsigned){b}) & {m}))"


def constant_literal(op: arith.ConstantOp, index_type: str) -> str:
    """The C literal of a scalar ``arith.constant``."""
    value, t = op.value, op.result.type
    if isinstance(value, IntegerAttr) and isinstance(t, IntegerType | IndexType):
        v = value.value.data
        if isinstance(t, IntegerType) and t.width.data == 1:
            return "true" if v else "false"
        wide = (isinstance(t, IndexType) and index_type == INDEX_64) or (
            isinstance(t, IntegerType) and t.width.data == 64)
        return f"{v}LL" if wide else int_literal(v)
    if isinstance(value, FloatAttr) and isinstance(t, Float32Type | Float64Type):
        return float_literal(value.value.data, isinstance(t, Float32Type))
    if isinstance(t, VectorType):
        try:
            return vector_literal(value, t)
        except LaneError as e:
            raise ArithError(str(e)) from None
    raise ArithError(f"constant {value} of type {t} has no CUDA literal here (scalar integers, "
                     "index, f32 and f64 only)")


def float_literal(v: float, single: bool) -> str:
    """An exact C literal of an f32 (``single``) or f64 value, inf and nan included."""
    if v != v or v in (float("inf"), float("-inf")):
        if single:
            bits = struct.unpack("<I", struct.pack("<f", v))[0]
            return f"__int_as_float(0x{bits:08x})"
        bits = struct.unpack("<Q", struct.pack("<d", v))[0]
        return f"__longlong_as_double(0x{bits:016x}LL)"
    text = repr(float(v))
    return text + "f" if single else text
