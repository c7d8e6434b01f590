"""C names for MLIR symbols and SSA values in the printed CUDA.

Any MLIR name may reach the printer: a symbol may be quoted (``@"my kernel"``), a C++ keyword
(``@class``), a name the implementation reserves (``__x``, ``_Foo``), a CUDA built-in
(``@sqrt``, ``@min``) or one of the printer's own prelude names (``@rc_f16``). ``c_identifier``
maps a name to a valid, unreserved C identifier:

* a plain identifier that is not reserved stays as it is;
* otherwise every run of characters outside ``[A-Za-z0-9_]`` becomes ``_``, runs of ``_``
  collapse to one (``__`` anywhere is reserved in C++), and a name that is then empty, starts
  with a digit or ``_``, or is reserved, gets the prefix ``k_`` (kernels) / ``v_`` (values).

``unique_name`` appends ``_1``, ``_2``, ... until the name is free, so two MLIR names that map to
the same identifier get distinct C names. ``function_c_names`` assigns the C names of a module's
functions: names that need no change keep it first, then the others take free names, in order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

_KEYWORDS = """
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue co_await
co_return co_yield decltype default delete do double dynamic_cast else enum explicit export
extern false float for friend goto if inline int long mutable namespace new noexcept not not_eq
nullptr operator or or_eq private protected public register reinterpret_cast requires return
short signed sizeof static static_assert static_cast struct switch template this thread_local
throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t while
xor xor_eq restrict main override final import module
""".split()

_PRINTER = """
uint8_t uint16_t uint32_t rc_f16 rc_bf16 rc_f8e4m3 rc_f8e5m2 rc_smem
""".split()
"""Names the printed source defines itself (prelude typedefs, the dynamic shared array)."""

_CUDA_TYPES = ["dim3", "size_t", "ptrdiff_t", "std", "NULL", "va_list", "cuda", "half",
               "nv_bfloat16", "int8_t", "int16_t", "int32_t", "int64_t", "uint64_t",
               "intptr_t", "uintptr_t", "clock_t"] + [
    f"{base}{n}" for base in ("char", "uchar", "short", "ushort", "int", "uint", "long",
                              "ulong", "longlong", "ulonglong", "float", "double")
    for n in (1, 2, 3, 4)] + [
    f"make_{base}{n}" for base in ("char", "uchar", "short", "ushort", "int", "uint", "long",
                                   "ulong", "longlong", "ulonglong", "float", "double")
    for n in (1, 2, 3, 4)]

_MATH = """
acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh cospi cyl_bessel_i0
cyl_bessel_i1 erf erfc erfcinv erfcx erfinv exp exp10 exp2 expm1 fabs fdim floor fma fmax fmin
fmod frexp hypot ilogb isfinite isinf isnan j0 j1 jn ldexp lgamma llrint llround log log10 log1p
log2 logb lrint lround modf nan nearbyint nextafter norm norm3d norm4d normcdf normcdfinv pow
rcbrt remainder remquo rhypot rint rnorm rnorm3d rnorm4d round rsqrt scalbln scalbn signbit sin
sincos sincospi sinh sinpi sqrt tan tanh tgamma trunc y0 y1 yn
""".split()

_FUNCTIONS = """
printf vprintf malloc free memcpy memset assert clock clock64 abs labs llabs min max umin umax
llmin llmax ullmin ullmax fminf fmaxf isnanf isinff finite finitef threadIdx blockIdx blockDim
gridDim warpSize
""".split()

RESERVED_NAMES = frozenset(_KEYWORDS + _PRINTER + _CUDA_TYPES + _MATH
                           + [f"{m}f" for m in _MATH] + _FUNCTIONS)
"""C++ keywords, the printer's own names and the CUDA built-ins a printed name must avoid."""

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def is_reserved(name: str) -> bool:
    """Reserved in C++ (``__`` anywhere, ``_`` + capital, ``_`` first at global scope: we
    refuse a leading ``_`` everywhere) or one of ``RESERVED_NAMES``."""
    return name in RESERVED_NAMES or "__" in name or name.startswith("_")


def is_plain(name: str) -> bool:
    """Whether ``name`` can be printed as it is."""
    return bool(_IDENT.match(name)) and not is_reserved(name)


def c_identifier(name: str, prefix: str) -> str:
    """A valid, unreserved C identifier for ``name`` (the module docstring's rules)."""
    if is_plain(name):
        return name
    text = re.sub(r"[^A-Za-z0-9_]+", "_", name)
    text = re.sub(r"_+", "_", text)
    if not text or not text[0].isalpha() or is_reserved(text):
        text = re.sub(r"_+", "_", f"{prefix}_{text}").rstrip("_") or prefix
    return text


def unique_name(base: str, taken: set[str]) -> str:
    """``base``, or ``base_1``, ``base_2`` ... the first not in ``taken`` (which it joins)."""
    name, k = base, 0
    while name in taken or is_reserved(name):
        k += 1
        name = f"{base}_{k}"
    taken.add(name)
    return name


def c_names(names: Iterable[str], prefix: str) -> dict[str, str]:
    """Distinct C identifiers for distinct ``names``: plain names first keep themselves."""
    ordered = list(dict.fromkeys(names))
    taken = {n for n in ordered if is_plain(n)}
    out: dict[str, str] = {}
    for n in ordered:
        out[n] = n if is_plain(n) else unique_name(c_identifier(n, prefix), taken)
    return out


def function_c_names(module: ModuleOp) -> dict[str, str]:
    """MLIR symbol name -> C name of every ``func.func`` of ``module``."""
    return c_names((op.sym_name.data for op in module.ops if isinstance(op, func.FuncOp)), "k")


def function_c_name(f: func.FuncOp) -> str:
    """The C name of ``f``: as in its module (when it has one), else on its own."""
    parent = f.parent_op()
    if isinstance(parent, ModuleOp):
        return function_c_names(parent)[f.sym_name.data]
    return c_identifier(f.sym_name.data, "k")
