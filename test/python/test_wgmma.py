"""``regcopy.wgmma``: descriptors derived from shared layouts against the PTX ISA's canonical
layouts (computed here independently, cell by cell, from the core-matrix description), every
swizzle mode and both major-nesses; verifier refusals; the lowered CUDA's SASS (HGMMA, no
local memory, sm_90a); on the H200 the result equals numpy's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_backend.runtime.runner import gpu_available
from regcopy_tools.regcopy_run import parse_and_lower
from wgmma_cases import Case, data, kernel

from regcopy_dialect.builders import parse_module
from regcopy_dialect.layout import Layout
from regcopy_dialect.wgmma_layouts import (
    Descriptor,
    WgmmaSwizzle,
    accumulator_cell,
    derive_descriptor,
    match_warpgroup,
    panel_layout,
)

HAS_GPU, WHY = gpu_available()
EXAMPLE = Path(__file__).parents[2] / "examples" / "wgmma_tile.mlir"
MODES = list(WgmmaSwizzle)


def isa_k_major(mode: WgmmaSwizzle, mn: int, k: int, lbo: int, sbo: int) -> int:
    """K-major: core matrices of 8 rows x 16 bytes; unswizzled, rows of a core matrix 16 bytes
    apart, core matrices LBO apart along K and SBO along M/N; swizzled, the 8 rows of an
    atom are W bytes apart and hold W bytes of K."""
    if mode is WgmmaSwizzle.NONE:
        core = (mn // 8) * sbo + (k // 8) * lbo
        return core + (mn % 8) * 16 + (k % 8) * 2
    return (mn // 8) * sbo + (mn % 8) * mode.value + 2 * k


def isa_mn_major(mode: WgmmaSwizzle, mn: int, k: int, lbo: int, sbo: int) -> int:
    """MN-major: a core matrix is 8 K-rows of 16 bytes of M/N; swizzled, an atom is 8 K-rows
    of W bytes of M/N, atoms LBO apart along M/N and SBO apart along K."""
    if mode is WgmmaSwizzle.NONE:
        return (mn // 8) * sbo + (k // 8) * lbo + (k % 8) * 16 + (mn % 8) * 2
    per = mode.value // 2
    return (mn // per) * lbo + (k // 8) * sbo + (k % 8) * mode.value + (mn % per) * 2


@pytest.mark.parametrize("mode", MODES, ids=str)
@pytest.mark.parametrize("mn", [64, 128])
def test_k_major_descriptor(mode: WgmmaSwizzle, mn: int) -> None:
    lbo, sbo = (mn * 16, 128) if mode is WgmmaSwizzle.NONE else (16, 8 * mode.value)
    got = derive_descriptor(lambda m, k: isa_k_major(mode, m, k, lbo, sbo) // 2, mn, 16, mode)
    assert not isinstance(got, str)
    assert got[0] == Descriptor(mode, True, lbo, sbo)


@pytest.mark.parametrize("mode", MODES, ids=str)
def test_mn_major_descriptor(mode: WgmmaSwizzle) -> None:
    mn = 128
    lbo, sbo = (1024, 128 * 16) if mode is WgmmaSwizzle.NONE else (8 * mode.value * 2,
                                                                  8 * mode.value)
    if mode is WgmmaSwizzle.NONE:
        lbo, sbo = 128 * 16 // 1, 128  # k-groups 2048 B apart, m core matrices 128 B apart
    got = derive_descriptor(lambda m, k: isa_mn_major(mode, m, k, lbo, sbo) // 2, mn, 16,
                            mode)
    assert not isinstance(got, str)
    assert got[0].k_major is False and (got[0].lbo, got[0].sbo) == (lbo, sbo)


@settings(max_examples=examples(40, 300), deadline=None)
@given(mode=st.sampled_from(MODES), k_major=st.booleans(), mn=st.sampled_from([64, 128, 256]),
       gap=st.integers(0, 4), order=st.booleans())
def test_descriptor_recovered(mode: WgmmaSwizzle, k_major: bool, mn: int, gap: int,
                              order: bool) -> None:
    """Any canonical placement of core matrices / atoms (the two strides in either order,
    with ``gap`` unused 16-byte units between them) is read back as that descriptor."""
    atom = 128 if mode is WgmmaSwizzle.NONE else 8 * mode.value  # bytes of a core matrix/atom
    if k_major:  # core matrices along K (k16: 2; swizzled, one row holds the k16) and M/N
        inner, outer = (2 if mode is WgmmaSwizzle.NONE else 1), mn // 8
    else:
        per = 8 if mode is WgmmaSwizzle.NONE else mode.value // 2
        inner, outer = max(1, mn // per), 2
    first = inner if order else outer
    s1 = atom + 16 * gap
    s2 = first * s1 + 16 * gap
    strides = {"inner": s1 if order else s2, "outer": s2 if order else s1}
    if k_major:
        lbo = strides["inner"] if mode is WgmmaSwizzle.NONE else 16
        sbo = strides["outer"]
        fn = isa_k_major
    elif mode is WgmmaSwizzle.NONE:  # inner: along M/N (SBO), outer: along K (LBO)
        lbo, sbo, fn = strides["outer"], strides["inner"], isa_mn_major
    else:  # inner: along M/N (LBO), outer: along K (SBO)
        lbo = strides["inner"] if inner > 1 else 16
        sbo, fn = strides["outer"], isa_mn_major
    got = derive_descriptor(lambda m, k: fn(mode, m, k, lbo, sbo) // 2, mn, 16, mode)
    assert not isinstance(got, str), got
    assert got[0] == Descriptor(mode, k_major, lbo, sbo)


def test_descriptor_encoding() -> None:
    d = Descriptor(WgmmaSwizzle.B128, True, 16, 1024)
    v = d.encode(0x12340)
    assert v & 0x3FFF == 0x12340 >> 4
    assert (v >> 16) & 0x3FFF == 1 and (v >> 32) & 0x3FFF == 64
    assert v >> 62 == 1
    assert {m: Descriptor(m, True, 16, 16).encode(0) >> 62 for m in MODES} == {
        WgmmaSwizzle.NONE: 0, WgmmaSwizzle.B128: 1, WgmmaSwizzle.B64: 2, WgmmaSwizzle.B32: 3}


@pytest.mark.parametrize(("cols", "mode"), [(64, WgmmaSwizzle.B128), (32, WgmmaSwizzle.B64),
                                            (16, WgmmaSwizzle.B32), (128, WgmmaSwizzle.B128)])
def test_panel_layout_is_canonical_both_ways(cols: int, mode: WgmmaSwizzle) -> None:
    rows = 64
    lay = panel_layout((rows, cols))
    assert lay is not None and lay.swizzle == mode.swizzle(2)
    plain = lay.without_swizzle()
    k_major = derive_descriptor(lambda m, k: plain.apply(m * cols + k)[1], rows, cols, mode)
    assert not isinstance(k_major, str) and k_major[0].k_major
    mn_major = derive_descriptor(lambda m, k: plain.apply(k * cols + m)[1], cols, rows, mode)
    assert not isinstance(mn_major, str) and not mn_major[0].k_major


def test_padded_rows_refused() -> None:
    got = derive_descriptor(lambda m, k: m * 72 + k, 64, 64, WgmmaSwizzle.NONE)
    assert isinstance(got, str) and "canonical" in got


def test_accumulator_layout_matches() -> None:
    lay = Layout.parse("(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)") if hasattr(
        Layout, "parse") else None
    if lay is None:
        from regcopy_dialect.layout import Iter
        lay = Layout((Iter(4, 1, "wid_in_wg"), Iter(2, 2), Iter(8, 4, "laneid"), Iter(8, 4),
                      Iter(4, 1, "laneid"), Iter(2, 1)))
    (words,) = match_warpgroup(lay, (64, 64), (64, 64), accumulator_cell, 32, 32)
    assert words == tuple(range(32))


def _example(old: str = "", new: str = "") -> str:
    return EXAMPLE.read_text().replace(old, new)


@pytest.mark.parametrize(("old", "new", "message"), [
    ("#regcopy.layout<auto>", "#regcopy.layout<(64,32):(40,1)>", None),
    ("(4,2,8,8,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)",
     "(4,2,8,8,4,2):(1@wid_in_wg,2,1@laneid,4,8@laneid,1)", "not a m64n64k16 accumulator"),
    ("regcopy.wgmma warpgroup", "regcopy.wgmma warp", "scope must be warpgroup"),
    ("{transpose_b}", "{transpose_b, fast}", "unknown attribute"),
    ("#regcopy.layout<auto>", "#regcopy.layout<(64,32):(32,1), swizzle<2,3,3>>",
     "is none of wgmma's"),
    ("xf32", "xf16", "no wgmma for f16, f16 -> f16"),
    ("%Bs[0, 0] [64, 32]", "%Bs[0, 0] [64, 16]", "shapes do not multiply"),
    ("xf16", "xi8", "no wgmma for i8, i8 -> f32"),
    ("block = 128", "block = 96", "not a multiple of 128"),
])
def test_refusals(old: str, new: str, message: str | None) -> None:
    from regcopy_tools.regcopy_run import parse_and_lower
    text = _example(old, new)
    assert text != _example()
    with pytest.raises(Exception) as info:
        parse_and_lower(text, "w.mlir")
    assert (message or "e.g. #regcopy.layout<") in str(info.value)


def test_sass_hgmma() -> None:
    from regcopy_backend.cuda.printer import print_cuda
    from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
    from regcopy_tools.regcopy_run import parse_and_lower
    source = print_cuda(parse_and_lower(_example(), "w.mlir"))
    assert "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16" in source
    assert "fence.proxy.async.shared::cta" in source  # cp.async writes: generic proxy
    compiled = compile_cuda(source)
    assert compiled.arch == "sm_90a"
    listing = disassemble(compiled.cubin)
    assert listing.count("HGMMA.64x64x16.F32") == 2
    assert "LDL" not in listing and "STL" not in listing


def test_fp8_mn_major_refused() -> None:
    with pytest.raises(Exception, match="8-bit ones are read K-major only"):
        parse_and_lower(kernel(Case(t="f8E4M3FN", k=64, transpose_b=False)), "w.mlir")


def test_sass_fp8() -> None:
    """8-bit inputs: m64nNk32 (QGMMA), e5m2 A from registers (four words a k32 step)."""
    from regcopy_backend.cuda.printer import print_cuda
    from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
    source = print_cuda(parse_and_lower(kernel(CASES["e5m2-registers-A"]), "w.mlir"))
    assert "wgmma.mma_async.sync.aligned.m64n16k32.f32.e5m2.e5m2" in source
    listing = disassemble(compile_cuda(source).cubin)
    assert listing.count("QGMMA.64x16x32.F32.E5M2.E5M2") == 2
    assert "LDL" not in listing and "STL" not in listing


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_GPU, reason=WHY)
def test_wgmma_gpu_equals_numpy() -> None:
    from regcopy_backend.runtime.runner import run_kernel
    from regcopy_tools.regcopy_run import prepare
    rng = np.random.default_rng(5)
    x = rng.integers(-3, 4, (64, 32)).astype(np.float16)
    y = rng.integers(-3, 4, (64, 32)).astype(np.float16)
    z = rng.integers(-8, 9, (64, 64)).astype(np.float32)
    prepared = prepare(_example(), "wgmma_tile.mlir")
    out = run_kernel(prepared.source, prepared.kernels[0], [x, y, z.copy()]).arrays[2]
    want = z + x.astype(np.float32) @ y.astype(np.float32).T
    assert np.array_equal(out, want)


# ---- the interpreter against numpy -----------------------------------------------------

CASES = {
    "shared-A-K-major-128B": Case(),
    "bf16": Case(t="bf16", n=16),
    "registers-A": Case(a_regs=True, n=24),
    "B-MN-major": Case(transpose_b=False),
    "B-32B": Case(b_layout="(64,2,16):(16,1024,1), swizzle<3,1,3>"),
    "B-no-swizzle": Case(b_layout="(8,8,4,8):(256,8,64,1)"),
    "A-64B-k64": Case(k=64, n=8, a_layout="(64,2,32):(32,2048,1), swizzle<3,2,3>"),
    # MN-major B without swizzle: LBO steps K (core matrices 8 k x 16 bytes), SBO steps N
    "B-MN-major-no-swizzle": Case(transpose_b=False, b_layout="(4,8,8,8):(512,8,64,1)"),
    # MN-major B in two 64B atoms along N: LBO steps N, SBO steps K
    "B-MN-major-64B-two-atoms": Case(transpose_b=False,
                                     b_layout="(32,2,32):(32,1024,1), swizzle<3,2,3>"),
    "e4m3-k64": Case(t="f8E4M3FN", k=64),  # 64-byte rows: 64B swizzle, two k32 steps
    "e5m2-registers-A": Case(t="f8E5M2", k=64, a_regs=True, n=16),
}


@pytest.mark.parametrize("name", CASES)
def test_interpreter_equals_numpy(name: str) -> None:
    case = CASES[name]
    text = kernel(case)
    args, want = data(case, seed=len(name))
    for module in (parse_module(text), parse_and_lower(text, "w.mlir")):
        out = run_on_cpu(module, "g", [a.copy() for a in args])
        assert np.array_equal(out[2].astype(np.float64), want), name


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_GPU, reason=WHY)
@pytest.mark.parametrize("name", CASES)
def test_wgmma_cases_gpu_equal_numpy(name: str) -> None:
    from regcopy_backend.runtime.runner import run_kernel
    from regcopy_tools.regcopy_run import prepare
    case = CASES[name]
    args, want = data(case, seed=len(name))
    prepared = prepare(kernel(case), "w.mlir")
    out = run_kernel(prepared.source, prepared.kernels[0], args).arrays[2]
    assert np.array_equal(out.astype(np.float64), want), name


def test_check_tolerance_of_tensor_core_sums() -> None:
    """``regcopy-run --check`` of a kernel with a wgmma: its f32 sums are the tensor cores'
    (order and rounding unspecified), so float buffers compare within SUM_ULPS ulps of the
    buffer's largest magnitude; the GPU's 1-ulp difference of examples/wgmma_tile.mlir at
    5.6e6 passes, a wrong element does not."""
    from xdsl.dialects.builtin import f32

    from regcopy_tools.tolerance import SUM_ULPS, accumulating_ops, scaled_mismatch
    text = (Path(__file__).resolve().parents[2] / "examples" / "wgmma_tile.mlir").read_text()
    module = parse_and_lower(text, "wgmma_tile.mlir", "lower-reg-copy")
    assert accumulating_ops(module) == ["regcopy.wgmma_async"]
    want = np.array([[5598883.0, 1.0]], np.float32)

    def check(got: np.ndarray) -> str | None:
        return scaled_mismatch(got, want, got.astype(np.float64), want.astype(np.float64), f32,
                               SUM_ULPS, "gpu", "reference")
    assert check(np.array([[5598882.5, 1.0]], np.float32)) is None
    assert "1 of 2 elements differ" in (check(np.array([[5598882.5, 1.5e3]], np.float32)) or "")
    # an f16 output whose sums overflow: the same infinity on both sides is equal (the H200
    # run of examples/gemm_hopper.mlir's --check reported "gpu -inf, reference -inf" before)
    from xdsl.dialects.builtin import f16
    want16 = np.array([[-np.inf, np.inf, 2.0, np.nan]], np.float16)

    def check16(got: np.ndarray) -> str | None:
        return scaled_mismatch(got, want16, got.astype(np.float64), want16.astype(np.float64),
                               f16, SUM_ULPS, "gpu", "reference")
    assert check16(want16.copy()) is None
    assert "1 of 4 elements differ" in (check16(
        np.array([[np.inf, np.inf, 2.0, np.nan]], np.float16)) or "")
    assert "1 of 4 elements differ" in (check16(
        np.array([[-np.inf, np.inf, 2.0, 0.0]], np.float16)) or "")


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_GPU, reason=WHY)
def test_gpu_check_wgmma_tile_example() -> None:
    """The example passes --check on the GPU (its random f16 data's sums round differently in
    the tensor cores than in the interpreter: compared within the tolerance, which it says)."""
    from tool_runner import run_tool
    root = Path(__file__).resolve().parents[2]
    r = run_tool("regcopy-run --check examples/wgmma_tile.mlir", cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "g.Z f32[64x64] equal (4096 elements, within 16 ulp of the largest" in r.stdout
