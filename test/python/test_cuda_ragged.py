"""The CUDA target on runtime extents, without a GPU: a dynamic buffer is a pointer followed by
one ``index`` parameter per ``?`` dimension (``X_dim0``, ``X_dim1``, in dimension order),
``memref.dim`` reads them (a static size is a literal), index math is ``rc_index`` (64-bit as
printed; the 32-bit compile: test_index_width.py), ``scf.if`` with
results prints as variables assigned in both branches; NVRTC compiles it with no warning, and
the SASS of the hand-lowered ragged copy has its 128-bit interior vector, no local memory."""

from __future__ import annotations

import re

import pytest
from ragged_cases import LOWERED, parse_unverified

from regcopy_backend.cuda.kernel_info import kernel_info, kernels
from regcopy_backend.cuda.printer import CudaEmitError, print_cuda
from regcopy_backend.cuda.nvrtc import NvdisasmError, compile_cuda, disassemble
from regcopy_tools.run_report import sass_memory_ops

G = "memref<?x?xf32, #regcopy.mem<global>>"
HALF = "memref<?x64xf32, #regcopy.mem<global>>"


@pytest.fixture(scope="module")
def lowered_source() -> str:
    return print_cuda(parse_unverified(LOWERED.read_text()))


def test_parameters_follow_their_pointer(lowered_source: str) -> None:
    assert ("ragged(float* __restrict__ X, long long X_dim0, long long X_dim1, "
            "float* __restrict__ Y, long long Y_dim0, long long Y_dim1)") in lowered_source


def test_memref_dim_and_if_results(lowered_source: str) -> None:
    assert "const rc_index base = row * (rc_index)X_dim1;" in lowered_source
    assert "const bool rin = (rc_uindex)row < (rc_uindex)(rc_index)X_dim0;" \
        in lowered_source
    assert re.search(r"uint4 v;\n\s+if \(p\) \{\n.*\n\s+v = x;\n\s+\} else \{\n\s+v = uint4"
                     r"\{0x3f000000u, 0x3f000000u, 0x3f000000u, 0x3f000000u\};",
                     lowered_source)


def test_a_guarded_global_load_takes_its_address_before_the_if(lowered_source: str) -> None:
    """``guarded_accesses``: the pointer is formed unconditionally (ptxas then folds the
    neighbours' addresses into one base and offsets); the guarded store keeps its own."""
    assert re.search(r"float\* const (p\d+) = &X\[off\];\n\s+uint4 v;\n\s+if \(p\) \{\n\s+"
                     r"const uint4 x = \*reinterpret_cast<const uint4\*>\(\1\);", lowered_source)
    assert re.search(r"float\* const (p\d+) = &X\[o\];\n\s+uint32_t s;\n\s+if \(q\)",
                     lowered_source)
    assert '"l"(&Y[off])' in lowered_source


def test_nvrtc_compiles_without_warnings_and_sass(lowered_source: str) -> None:
    compiled = compile_cuda(lowered_source, name="ragged.cu")
    assert compiled.warnings == []
    try:
        sass = disassemble(compiled.cubin)
    except NvdisasmError:
        pytest.skip("nvdisasm is not installed")
    ops = sass_memory_ops(sass)
    assert ops["LDG.E.128.CONSTANT"] == 1 and ops["STG.E.128"] == 1
    assert not any(op.startswith(("LDL", "STL")) for op in ops)
    # the wide path: the 128-bit load and store are neither split nor guarded per element
    wide = sass[sass.index("LDG.E.128"):]
    assert "STG.E.128" in wide.split("BRA")[0]


def test_static_dims_are_literals_and_get_no_parameter() -> None:
    text = f"""
func.func @k(%X: {HALF}, %n: index) attributes {{regcopy.launch = #regcopy.launch<block = 32, grid = [1]>}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %X, %c0 : {HALF}
  %w = memref.dim %X, %c1 : {HALF}
  %xs = regcopy.storage %X : {HALF} -> memref<?xf32, #regcopy.mem<global>>
  %all = memref.dim %xs, %c0 : memref<?xf32, #regcopy.mem<global>>
  %t = arith.muli %m, %w : index
  %u = arith.addi %t, %all : index
  %i = arith.minsi %u, %n : index
  %v = memref.load %xs[%i] : memref<?xf32, #regcopy.mem<global>>
  memref.store %v, %xs[%c0] : memref<?xf32, #regcopy.mem<global>>
  func.return
}}"""
    module = parse_unverified(text)
    source = print_cuda(module)
    assert "k(float* __restrict__ X, long long X_dim0, long long n)" in source
    assert "const rc_index t = (rc_index)X_dim0 * 64;" in source
    assert "const rc_index u = t + ((rc_index)X_dim0 * 64);" in source
    assert compile_cuda(source, name="k.cu").warnings == []
    (param, _) = kernel_info(kernels(module)[0]).params
    assert param.dynamic_dims == (0,) and kernel_info(kernels(module)[0]).index64


def test_dim_with_a_runtime_index_is_refused() -> None:
    text = f"""
func.func @k(%X: {G}, %d: index) attributes {{regcopy.launch = #regcopy.launch<block = 32, grid = [1]>}} {{
  %m = memref.dim %X, %d : {G}
  %xs = regcopy.storage %X : {G} -> memref<?xf32, #regcopy.mem<global>>
  %v = memref.load %xs[%m] : memref<?xf32, #regcopy.mem<global>>
  memref.store %v, %xs[%m] : memref<?xf32, #regcopy.mem<global>>
  func.return
}}"""
    with pytest.raises(CudaEmitError, match="needs a constant dimension index"):
        print_cuda(parse_unverified(text))


def test_promised_ragged_tile_is_all_128_bit() -> None:
    """The benchmark's tile copy with extent divisibility 4, lowered by the pass and printed:
    its global transfers are all 128-bit (one predicate per vector, none split), no local
    memory; the stores into the dynamic buffer stay STG.E.128 under 64-bit index math."""
    from regcopy_bench.bench_ragged import WIDE, lowered

    source, info = lowered(WIDE, promised=True)
    assert info.index64 and "asm volatile(\"st.global.v4.b32" in source
    try:
        sass = disassemble(compile_cuda(source).cubin)
    except NvdisasmError:
        pytest.skip("nvdisasm is not installed")
    ops = sass_memory_ops(sass)
    assert dict(ops) == {"LDG.E.128.CONSTANT": 8, "STG.E.128": 8}
    # one predicate per vector: each is a few 64-bit compares (an ISETP pair each, fused
    # with the and: ISETP .OR.EX), never one per element
    assert len(re.findall(r"\bISETP\b", sass)) <= 4 * 16
