"""Scalar float arithmetic in the CUDA target rounds after every op, as MLIR's ``arith``
(without fastmath) and the CPU interpreter do: ``addf``/``subf``/``mulf`` print as the
round-to-nearest intrinsics (``__fadd_rn``... on f32, ``__dadd_rn``... on f64), which NVRTC
accepts without a header and never contracts, so a ``mulf`` feeding an ``addf`` is an
``FMUL`` + ``FADD`` (``DMUL`` + ``DADD``) in SASS, not one ``FFMA`` (``DFMA``) rounding once.
``divf`` stays ``a / b`` (IEEE round-to-nearest under NVRTC's default ``-prec-div=true``).
The four kernels read in SASS are compiled and disassembled together (``sass_batch``)."""

from __future__ import annotations

import re
from collections import Counter
from functools import cache

import pytest
from regcopy_backend.cuda.printer import print_cuda
from regcopy_backend.cuda.nvrtc import compile_cuda
from regcopy_tools.regcopy_run import parse_and_lower
from sass_batch import batched_sass

G = "#regcopy.mem<global>"


def _kernel(t: str, body: str) -> str:
    """A kernel reading ``%x`` and ``%y`` (type ``t``) at the thread's index, running
    ``body`` (which defines ``%z``) and storing ``%z``."""
    return f"""func.func @scalar(%X: memref<64x{t}, {G}>, %Y: memref<64x{t}, {G}>,
                   %Z: memref<64x{t}, {G}>)
    attributes {{regcopy.launch = #regcopy.launch<block = 64, grid = [1]>}} {{
  %t = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %x = memref.load %X[%t] : memref<64x{t}, {G}>
  %y = memref.load %Y[%t] : memref<64x{t}, {G}>
{body}
  memref.store %z, %Z[%t] : memref<64x{t}, {G}>
  func.return
}}
"""


def _mul_add(t: str) -> str:
    return _kernel(t, f"  %p = arith.mulf %x, %y : {t}\n  %z = arith.addf %p, %x : {t}")


def _all_ops(t: str) -> str:
    return _kernel(t, f"  %s = arith.addf %x, %y : {t}\n  %d = arith.subf %s, %y : {t}\n"
                      f"  %m = arith.mulf %d, %x : {t}\n  %z = arith.divf %m, %y : {t}")


def _cuda(text: str) -> str:
    return print_cuda(parse_and_lower(text, "scalar.mlir", passes=""))


def _contracted(source: str) -> str:
    """``source`` with C's ``*`` and ``+`` in place of the rounding intrinsics."""
    plain = re.sub(r"__[fd]mul_rn\((\w+), (\w+)\)", r"\1 * \2", source)
    return re.sub(r"__[fd]add_rn\((\w+), (\w+)\)", r"\1 + \2", plain)


@cache
def _all_sass_ops() -> dict[tuple[str, bool], Counter[str]]:
    """Opcodes (without modifiers) of the ``mulf`` + ``addf`` kernel's SASS for f32 and
    f64, as printed and with C's operators (``{(type, contracted): counts}``), from one
    compile and one disassembly."""
    sources = {(t, False): _cuda(_mul_add(t)) for t in ("f32", "f64")}
    sources.update({(t, True): _contracted(sources[t, False]) for t in ("f32", "f64")})
    listings = batched_sass(list(sources.values()))
    return {key: Counter(op.split(".")[0] for op in re.findall(
        r"^\s+/\*[0-9a-f]+\*/\s+(?:@!?P\w+\s+)?([A-Z][A-Z0-9_.]*)", parts["scalar"], re.M))
        for key, parts in zip(sources, listings, strict=True)}


@pytest.mark.parametrize(("t", "c", "add", "sub", "mul"), [
    ("f32", "float", "__fadd_rn", "__fsub_rn", "__fmul_rn"),
    ("f64", "double", "__dadd_rn", "__dsub_rn", "__dmul_rn"),
])
def test_scalar_addf_subf_mulf_print_as_rounding_intrinsics(t: str, c: str, add: str, sub: str,
                                                            mul: str) -> None:
    source = _cuda(_all_ops(t))
    assert f"  const {c} s = {add}(x, y);\n" in source
    assert f"  const {c} d = {sub}(s, y);\n" in source
    assert f"  const {c} m = {mul}(d, x);\n" in source
    assert f"  const {c} z = m / y;\n" in source  # IEEE division: printed as it was
    assert "#include" not in source
    assert compile_cuda(source).log == ""  # the intrinsics need no header, and warn of nothing


@pytest.mark.parametrize(("t", "mul", "add", "fma"), [("f32", "FMUL", "FADD", "FFMA"),
                                                      ("f64", "DMUL", "DADD", "DFMA")])
def test_scalar_mulf_then_addf_is_never_contracted(t: str, mul: str, add: str, fma: str) -> None:
    """MLIR's mulf + addf round twice; ``x * y + x`` in C would be one fused multiply-add."""
    source = _cuda(_mul_add(t))
    ops = _all_sass_ops()[t, False]
    assert ops[mul] == 1 and ops[add] == 1 and ops[fma] == 0, ops
    # the control: the same kernel with C's `*` and `+` is contracted by NVRTC (fmad is on by
    # default), so the check above is not vacuous
    assert _contracted(source) != source
    fused = _all_sass_ops()[t, True]
    assert fused[fma] == 1 and fused[mul] == 0 and fused[add] == 0, fused
