"""The pieces of ``regcopy-run`` that need no GPU: host arguments of a kernel (deterministic
random buffers, scalars from ``--arg``), bit-exact comparison of two runs, and the summary of a
compiled kernel (ptxas resources and SASS memory instructions)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import cast

import numpy as np
from regcopy_backend.host_data import random_values
from xdsl.dialects import func
from xdsl.dialects.builtin import Float32Type, Float64Type, MemRefType

from regcopy_dialect.buffers import is_dynamic
from regcopy_dialect.promises import argument_promise
from regcopy_dialect.regcopy import DIVISIBILITY, buffer_layout
from regcopy_dialect.strided import argument_stride_divisors, is_strided

HostArg = np.ndarray | int | float


class ArgumentSpecError(ValueError):
    """A ``--arg`` is malformed, unknown, missing or breaks its parameter's promise."""


def parse_arg_specs(specs: Sequence[str]) -> dict[str, str]:
    """``["K=512", "n=3"]`` -> ``{"K": "512", "n": "3"}`` (a leading ``%`` is dropped)."""
    out: dict[str, str] = {}
    for spec in specs:
        name, sep, value = spec.partition("=")
        name = name.strip().lstrip("%")
        if not sep or not name or not value.strip():
            raise ArgumentSpecError(f"--arg {spec!r}: expected NAME=VALUE, e.g. --arg K=512")
        out[name] = value.strip()
    return out


def param_name(fn: func.FuncOp, k: int) -> str:
    return fn.args[k].name_hint or f"arg{k}"


def promise(fn: func.FuncOp, k: int) -> int | None:
    """The ``regcopy.divisibility`` promise of argument ``k`` (None without one)."""
    return argument_promise(fn, k)


def _scalar(fn: func.FuncOp, k: int, text: str) -> int | float:
    t, name = fn.args[k].type, param_name(fn, k)
    try:
        value: int | float = float(text) if isinstance(t, Float32Type | Float64Type) \
            else int(text, 0)
    except ValueError:
        raise ArgumentSpecError(f"--arg {name}={text}: %{name} is {t}; give a number") from None
    if isinstance(value, int) and (n := promise(fn, k)) is not None and value % n:
        raise ArgumentSpecError(f"--arg {name}={text}: %{name} promises {DIVISIBILITY} = {n}; "
                                f"give a multiple of {n}")
    return value


def scalar_params(fn: func.FuncOp) -> list[int]:
    """Indices of the scalar (non-memref) parameters of ``fn``."""
    return [k for k, a in enumerate(fn.args) if not isinstance(a.type, MemRefType)]


def dynamic_params(fn: func.FuncOp) -> list[int]:
    """Indices of the dynamic memref parameters of ``fn`` (their shape comes from ``--arg``)."""
    return [k for k, a in enumerate(fn.args)
            if isinstance(a.type, MemRefType) and is_dynamic(cast(MemRefType, a.type))]


def _spelled(t: MemRefType) -> str:
    return "x".join("?" if d < 0 else str(d) for d in t.get_shape())


def parse_shape(fn: func.FuncOp, k: int, text: str) -> tuple[int, ...]:
    """The shape ``AxB..`` given by ``--arg NAME=AxB`` for the dynamic memref argument ``k``:
    its rank and static sizes must match the type, every extent be >= 0 (0: an empty
    buffer, nothing to launch) and keep the
    argument's ``regcopy.divisibility`` promise (``ArgumentSpecError`` otherwise)."""
    from regcopy_backend.cuda.kernel_info import extent_divisors
    from regcopy_backend.interpreter.extents import divisor_problem, shape_problem

    t, name = cast(MemRefType, fn.args[k].type), param_name(fn, k)
    example = "x".join("1000" if d < 0 else str(d) for d in t.get_shape())
    text = text.partition(":")[0]  # a strided buffer's strides follow (``strided_args``)
    try:
        shape = tuple(int(x, 10) for x in text.lower().split("x"))
    except ValueError:
        raise ArgumentSpecError(f"--arg {name}={text}: %{name} is a {_spelled(t)} buffer; give "
                                f"its shape, e.g. --arg {name}={example}") from None
    try:
        divisors = extent_divisors(fn, k)
    except ValueError as e:
        raise ArgumentSpecError(str(e)) from None
    if (problem := shape_problem(t, shape, allow_empty=True)
            or divisor_problem(shape, divisors)) is not None:
        raise ArgumentSpecError(f"--arg {name}={text}: the shape {problem} (%{name} is "
                                f"{_spelled(t)}; e.g. --arg {name}={example})")
    return shape


def host_arguments(fn: func.FuncOp, rng: np.random.Generator,
                   scalars: Mapping[str, str]) -> list[HostArg]:
    """One argument per parameter of ``fn``, in order: a random array per buffer (its layout's
    whole span, values exact in the element type) and the ``--arg`` value per scalar."""
    missing = [k for k in scalar_params(fn) + dynamic_params(fn)
               if param_name(fn, k) not in scalars]
    if missing:
        need = ", ".join(f"%{param_name(fn, k)}: {fn.args[k].type}"
                         + (f" (a multiple of {n})" if (n := promise(fn, k)) else "")
                         for k in missing)
        example = " ".join(f"--arg {param_name(fn, k)}=" + (
            "x".join("1000" if d < 0 else str(d) for d in t.get_shape())
            if isinstance(t := fn.args[k].type, MemRefType) else "...") for k in missing)
        raise ArgumentSpecError(f"kernel @{fn.sym_name.data} needs a value for each scalar "
                                f"parameter and a shape for each dynamic buffer: {need}; "
                                f"pass {example}")
    out: list[HostArg] = []
    for k, arg in enumerate(fn.args):
        if not isinstance(arg.type, MemRefType):
            out.append(_scalar(fn, k, scalars[param_name(fn, k)]))
            continue
        t = cast(MemRefType, arg.type)
        if is_dynamic(t):
            shape = parse_shape(fn, k, scalars[param_name(fn, k)])
            if is_strided(t):
                out.append(_strided(fn, k, shape, scalars[param_name(fn, k)], rng))
                continue
            n = int(np.prod(shape))
            out.append(random_values(t.element_type, n, rng).reshape(shape))
            continue
        span = buffer_layout(t).span()
        values = random_values(t.element_type, span, rng)
        shape = tuple(t.get_shape())
        out.append(values.reshape(shape) if span == int(np.prod(shape)) else values)
    return out


def _strided(fn: func.FuncOp, k: int, shape: tuple[int, ...], text: str,
             rng: np.random.Generator) -> np.ndarray:
    """The random view ``--arg NAME=AxB:S`` gives the strided argument ``k``
    (``strided_args``)."""
    from regcopy_tools.strided_args import parse_strides, strided_array

    t = cast(MemRefType, fn.args[k].type)
    try:
        strides = parse_strides(t, param_name(fn, k), text, shape,
                                argument_stride_divisors(fn, k))
    except ValueError as e:
        raise ArgumentSpecError(str(e)) from None
    return strided_array(t, shape, strides, rng)


def unknown_args(fns: Sequence[func.FuncOp], scalars: Mapping[str, str]) -> list[str]:
    """``--arg`` names that are no scalar parameter or dynamic buffer of any kernel."""
    known = {param_name(f, k) for f in fns for k in scalar_params(f) + dynamic_params(f)}
    return sorted(set(scalars) - known)


# ---- comparing two runs ----------------------------------------------------------------------


def _bits(a: np.ndarray) -> np.ndarray:
    """A bit-exact view (so that -0.0 != 0.0 and NaN payloads compare)."""
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.itemsize}") if a.dtype.kind == "f" else a


def mismatch(got: np.ndarray, want: np.ndarray, got_name: str, want_name: str) -> str | None:
    """None when bit-identical, else ``n of N elements differ, first at (i, j): ...``. In a
    float array any NaN equals any NaN: a NaN made by arithmetic is ``0x7fffffff`` on the GPU
    and ``0x7fc00000`` in Python, and neither payload is defined by MLIR."""
    got = got.reshape(want.shape)
    bad = _bits(got) != _bits(want)
    if got.dtype.kind == "f" and want.dtype.kind == "f":
        bad &= ~(np.isnan(got) & np.isnan(want))
    if not bad.any():
        return None
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    return (f"{int(bad.sum())} of {bad.size} elements differ, first at {first}: "
            f"{got_name} {got[first]}, {want_name} {want[first]}")


# ---- what a compiled kernel uses ---------------------------------------------------------------


SASS_MEMORY = re.compile(
    r"\b((?:LDGSTS|UTMALDG|UTMASTG|UBLKCP|LDSM|STSM|LDG|STG|LDS|STS|LDL|STL)"
    r"(?![A-Z0-9_])(?:\.[A-Z0-9_]+)*)")
"""A memory instruction's full mnemonic and modifiers: ``LDGSTS`` (``cp.async``, global to
shared without registers), the TMA bulk copies (``UTMALDG``/``UTMASTG``, ``UBLKCP``), the
ld/stmatrix ``LDSM``/``STSM`` and the plain loads and stores. The lookahead keeps ``LDS`` from
matching the start of ``LDSM`` or ``LDG`` the start of ``LDGSTS`` (or those being counted as
the shorter ones)."""


def sass_memory_ops(sass: str) -> Counter[str]:
    """Memory instructions of a SASS listing by kind and width (``LDG.E.128`` ...)."""
    return Counter(SASS_MEMORY.findall(sass))
