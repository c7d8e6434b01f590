"""Valid runtime-shape programs never end in a traceback: random copies between registers and
a global buffer with runtime and static (odd) extents, every element type, reads (with
padding) and writes, lower and print CUDA. Also: a static odd inner extent (``?x45xi8``, an
``IndexError`` before) is exact on the interpreter with no dead versioned branch, and every
op the pass generates carries the location of the op it came from."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from ragged_cases import parse_unverified
from regcopy_backend.cuda.function import CudaEmitError
from regcopy_backend.cuda.printer import print_cuda
from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_passes.lower_layout_access import lower_layout_access
from regcopy_tools.regcopy_run import RunInputError, parse_and_lower
from xdsl.dialects import scf
from xdsl.dialects.builtin import FileLineColLoc, ModuleOp
from xdsl.ir import Operation

from regcopy_dialect.diagnostics import LOCATED, capture_diagnostics, op_error
from regcopy_dialect.element_types import BY_NAME

ELEMENTS = tuple(BY_NAME)
"""Every element type regcopy supports."""
BITS = {name: e.bits for name, e in BY_NAME.items()}


def program(elem: str, shape: tuple[str, str], tile: tuple[int, int], vec: int, read: bool,
            write: bool, pad: bool, divisor: int) -> str:
    """One warp-group of threads (``tile[0]`` rows x ``tile[1] / vec`` threads per row, ``vec``
    elements each) copies the tile at block (bx, by) of X to registers and/or from them."""
    rows, cols = tile
    per_row = cols // vec
    g = f"memref<{shape[0]}x{shape[1]}x{elem}, #regcopy.mem<global>>"
    layout = f"({rows},{per_row},{vec}):({per_row}@tx,1@tx,1)"
    r = f"memref<{rows}x{cols}x{elem}, #regcopy.layout<{layout}>, #regcopy.mem<local>>"
    padding = ""
    if pad:
        padding = f" {{padding = {'3' if elem[0] in 'iu' else '1.5'} : {elem}}}"
    promise = ""
    if divisor > 1 and "?" in shape[1]:
        promise = f" {{regcopy.divisibility = array<i64: 1, {divisor}>}}"
    body = [f"func.func @k(%X: {g}{promise}, %Y: {g})",
            (f"    attributes {{regcopy.launch = #regcopy.launch<block = {rows * per_row}, "
             "grid = [1, 1]>} {"),
            f"  %R = memref.alloca() : {r}",
            '  %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index',
            '  %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index',
            f"  %cr = arith.constant {rows} : index",
            f"  %cc = arith.constant {cols} : index",
            "  %row = arith.muli %bx, %cr : index",
            "  %col = arith.muli %by, %cc : index"]
    if read:
        body.append(f"  regcopy.copy cta %X[%row, %col] [{rows}, {cols}] -> %R{padding} : "
                    f"{g} -> {r}")
    if write:
        body.append(f"  regcopy.copy cta %R -> %Y[%row, %col] [{rows}, {cols}] : {r} -> {g}")
    return "\n".join([*body, "  func.return", "}", ""])


@st.composite
def programs(draw: st.DrawFn) -> str:
    elem = draw(st.sampled_from(ELEMENTS))
    bits = BITS.get(elem, 8)
    vec = draw(st.sampled_from([v for v in (1, 2, 4, 8, 16) if v * bits <= 128]))
    tile = (draw(st.sampled_from((1, 2, 4, 8))), vec * draw(st.sampled_from((1, 2, 4, 8))))
    inner = draw(st.one_of(st.just("?"), st.integers(tile[1], 3 * tile[1]).map(str)))
    rw = draw(st.sampled_from(((True, True), (True, False), (False, True))))
    return program(elem, ("?", inner), tile, vec, *rw, draw(st.booleans()),
                   draw(st.sampled_from((1, 2, 3, 4, 8, 16))))


@settings(max_examples=examples(12, 400, 3000))
@given(text=programs())
def test_valid_runtime_shapes_print_cuda(text: str) -> None:
    """No traceback, every copy lowered (strict), CUDA printed."""
    module = parse_and_lower(text, "fuzz.mlir", "lower-reg-copy{strict}")
    assert 'extern "C" __global__' in print_cuda(module)


def async_program(elem: str, shape: tuple[str, str], box: tuple[int, int], col: int,
                  swizzle: str, pending: int, divisor: int) -> str:
    """Two ``copy_async`` boxes of ``X`` (runtime or static odd extents) into a shared tile
    with layout ``swizzle`` (``swizzle<...>``, ``xor<...>`` or none), both committed before
    one wait."""
    rows, cols = box
    g = f"memref<{shape[0]}x{shape[1]}x{elem}, #regcopy.mem<global>>"
    extra = f", {swizzle}" if swizzle else ""
    s = (f"memref<2x{rows}x{cols}x{elem}, #regcopy.layout<(2,{rows},{cols}):"
         f"({rows * cols},{cols},1){extra}>, #regcopy.mem<shared>>")
    promise = ""
    if divisor > 1 and "?" in shape[1]:
        promise = f" {{regcopy.divisibility = array<i64: 1, {divisor}>}}"
    body = [f"func.func @k(%X: {g}{promise})",
            "    attributes {regcopy.launch = #regcopy.launch<block = 64, grid = [1]>} {",
            f"  %S = memref.alloca() : {s}"]
    for j in range(2):
        body += [(f"  %t{j} = regcopy.copy_async cta %X[{j * rows}, {col}] [{rows}, {cols}] "
                  f"-> %S[{j}, 0, 0] [1, {rows}, {cols}] : {g} -> {s}"),
                 f"  %g{j} = regcopy.async_group %t{j}"]
    body.append(f"  regcopy.async_wait %g1 {{pending = {pending} : i64}}")
    return "\n".join([*body, "  func.return", "}", ""])


@st.composite
def async_programs(draw: st.DrawFn) -> tuple[str, str]:
    elem = draw(st.sampled_from(ELEMENTS))
    e = BITS[elem] // 8
    cols = draw(st.sampled_from([c for c in (4, 8, 16, 32, 64) if c * e <= 256]))
    k = {1: 4, 2: 3, 4: 2, 8: 1}[e]
    swizzle = draw(st.sampled_from(("", f"swizzle<{k},{1 + (cols * e >= 64)},3>",
                                    f"xor<{k + 3}:{1 << k}>", "xor<7:8, 9:16>")))
    odd = str(draw(st.integers(cols + 1, 3 * cols)))
    inner = draw(st.sampled_from(("?", "?", str(16 * cols), odd)))  # mostly lowerable
    text = async_program(elem, ("?", inner), (draw(st.sampled_from((1, 4, 8))), cols),
                         draw(st.sampled_from((0, 0, 16, 1, 2, 3, 8))), swizzle,
                         draw(st.integers(0, 1)), draw(st.sampled_from((16, 16, 1, 2))))
    return text, draw(st.sampled_from(("", "{transfer=tma}")))


@settings(max_examples=examples(12, 400, 3000))
@given(case=async_programs())
def test_async_runtime_shapes_print_cuda_or_say_why(case: tuple[str, str]) -> None:
    """Async copies (cp.async, TMA) of runtime and static odd extents into swizzled, XOR or
    plain shared tiles: CUDA printed, or one located diagnostic; never a traceback."""
    text, option = case
    try:
        module = parse_and_lower(text, "fuzz.mlir", f"lower-reg-copy{option}")
        assert 'extern "C" __global__' in print_cuda(module)
    except (RunInputError, CudaEmitError) as e:
        assert LOCATED.match(str(e)), str(e)


@pytest.mark.parametrize("elem", ["i8", "f16", "f32", "f8E4M3FN"])
def test_static_odd_inner_extent(elem: str) -> None:
    """``?x45`` (``?x43`` for 32-bit elements' vec 4): the write is not versioned on the
    static stride (whose test is constant): its misaligned vectors are realigned at run time or
    predicated, as the cost model picks, and it is exact."""
    bits = BITS.get(elem, 8)
    vec = 128 // bits
    text = program(elem, ("?", "45"), (8, 2 * vec), vec, True, True, False, 1)
    with capture_diagnostics() as diags:
        module = parse_and_lower(text, "odd.mlir", "lower-reg-copy{remarks}")
    assert "%aligned" not in str(module)  # no runtime test of a static stride
    notes = " ".join(n for d in diags for n in d.notes)
    assert "versioned" not in notes
    assert ("realigned at run time" in notes or "predicated by the cost model" in notes
            or vec == 1)
    x = (np.arange(9 * 45) % 100).astype(np.uint8 if bits == 8 else f"f{bits // 8}").reshape(
        9, 45)
    if elem == "f8E4M3FN":
        x = x % 8  # small codes: finite values
    outs = [run_on_cpu(m, "k", [x, np.zeros_like(x)], grid=(2, 1))[1]
            for m in (parse_unverified(text), module)]
    assert (outs[0].view(np.uint8) == outs[1].view(np.uint8)).all()
    assert (outs[1][:, :2 * vec] == x[:, :2 * vec]).all()


def _unlocated(module: ModuleOp) -> list[Operation]:
    """Ops without a source location, but the parser's implicit ``scf.yield``s."""
    return [op for op in module.walk() if not isinstance(op, ModuleOp)
            and not isinstance(op.location, FileLineColLoc) and not isinstance(op, scf.YieldOp)]


@pytest.mark.parametrize("passes, text", [
    ("", program("f8E4M3FN", ("?", "?"), (8, 32), 16, True, True, True, 1)),
    ("", program("i8", ("?", "45"), (8, 32), 16, False, True, False, 1)),
    ("lower-reg-copy{transfer=tma}", None), ("", None)])
def test_generated_ops_carry_the_source_location(passes: str, text: str | None) -> None:
    """After lower-reg-copy and the layout-access lowering the CUDA target runs, every op has
    a ``file:line:col``: an error about generated code names the user's line."""
    if text is None:
        from tma_cases import TmaCase, module_text
        text = module_text([TmaCase(groups=2, pending=1, swizzle=64)])
    module = lower_layout_access(parse_and_lower(text, "loc.mlir", passes))
    assert _unlocated(module) == []


def test_an_unlocated_op_is_reported_at_its_enclosing_op() -> None:
    module = parse_and_lower(program("f32", ("?", "?"), (8, 32), 4, True, True, False, 1),
                             "enclosing.mlir")
    func_op = next(iter(module.ops))
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IndexType
    const = arith.ConstantOp.from_int_and_width(3, IndexType())
    func_op.regions[0].block.insert_op_before(const, func_op.regions[0].block.first_op)
    message = op_error(const, "is refused")
    assert message.startswith("enclosing.mlir:1:1: error: 'arith.constant' op is refused")
    assert "generated inside this 'func.func'" in message
