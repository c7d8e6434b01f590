"""Bounds-checked reads of f64 and fp8 buffers: the padding constant in every target. The
CUDA target writes it as the lanes' bits (fp8 rounded as ``cvt.rn.satfinite`` rounds, which
``host_data.fp8_bits`` implements), the interpreter holds the same bits, NVRTC compiles the
module, and on a GPU (``-m gpu``) the kernel's result equals the interpreter's bit for bit."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from ragged_cases import parse_unverified, tile_copy, tiles
from regcopy_backend.cuda.lanes import lane_bytes
from regcopy_backend.cuda.printer import print_cuda
from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_backend.host_data import fp8_bits, numpy_dtype, random_values
from regcopy_backend.runtime.runner import gpu_available
from regcopy_tools.regcopy_run import parse_and_lower
from xdsl.dialects.builtin import Float8E4M3FNType, Float8E5M2Type, Float64Type

E4M3, E5M2 = Float8E4M3FNType(), Float8E5M2Type()
TYPES = ("f64", "f8E4M3FN", "f8E5M2")


@pytest.mark.parametrize("x, e4m3, e5m2", [
    (0.0, 0x00, 0x00), (-0.0, 0x80, 0x80), (1.0, 0x38, 0x3C), (1.5, 0x3C, 0x3E),
    (-2.0, 0xC0, 0xC0), (448.0, 0x7E, 0x5F), (1e9, 0x7E, 0x7B), (-1e9, 0xFE, 0xFB),
    (1.0625, 0x38, 0x3C),   # e4m3: halfway between 0x38 and 0x39: the even code
    (1.1875, 0x3A, 0x3D),   # e4m3: halfway between 0x39 and 0x3a: the even code
    (float("nan"), 0x7F, 0x7F)])
def test_fp8_bits_round_as_satfinite(x: float, e4m3: int, e5m2: int) -> None:
    assert fp8_bits(x, E4M3) == e4m3 and fp8_bits(x, E5M2) == e5m2


def test_lane_bytes_of_f64_and_fp8() -> None:
    assert lane_bytes([1.5, -2.0], Float64Type()) == struct.pack("<2d", 1.5, -2.0)
    assert lane_bytes([1.5] * 4, E4M3) == bytes([0x3C] * 4)


def kernel(t: str, pad: str = "1.5") -> str:
    """A warp's 32x8 tile of X (runtime extents) into registers, padding ``pad``, then Y."""
    return tile_copy(f"{{padding = {pad} : {t}}}").replace("xf32", f"x{t}").replace(
        "@tile", f"@tile_{t}")


def test_padding_reaches_cuda_and_nvrtc() -> None:
    """One module with an f64, an e4m3 and an e5m2 kernel: the padding prints as bits
    (f64 1.5 is 0x3ff80000 in its high word, e4m3 0x3c, e5m2 0x3e) and NVRTC compiles it."""
    from regcopy_tools.regcopy_run import prepare

    text = "\n".join(kernel(t) for t in TYPES)
    source = print_cuda(parse_and_lower(text, "pad.mlir"))
    assert "0x3ff80000u" in source
    assert "0x3c3c3c3cu" in source and "0x3e3e3e3eu" in source
    prepared = prepare(text, "pad.mlir")
    assert len(prepared.kernels) == 3


@pytest.mark.parametrize("t", TYPES)
@pytest.mark.parametrize("m, n", [(5, 3), (33, 9)])
def test_lowered_padding_equals_the_reference(t: str, m: int, n: int) -> None:
    """The lowered copy on the interpreter equals the reference copy (elements outside X's
    extents are the padding's bits)."""
    text = kernel(t)
    low = parse_and_lower(text, "pad.mlir")
    elem = next(iter(low.ops)).function_type.inputs.data[0].element_type  # type: ignore[attr-defined]
    x = random_values(elem, m * n, np.random.default_rng(0)).reshape(m, n)
    gm, gn = tiles(m, n)
    outs = [run_on_cpu(module, f"tile_{t}", [x, np.zeros((32 * gm, 8 * gn), numpy_dtype(elem))],
                       grid=(gm, gn))[1] for module in (parse_unverified(text), low)]
    assert (outs[0].view(np.uint8) == outs[1].view(np.uint8)).all()
    pad = outs[1][-1, -1]
    want = np.float64(1.5) if t == "f64" else fp8_bits(1.5, elem)
    assert pad == want


HAS_GPU, WHY = gpu_available()


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_GPU, reason=WHY)
@pytest.mark.parametrize("t", TYPES)
def test_padding_on_the_gpu(t: str) -> None:
    from regcopy_backend.runtime.runner import run_kernel
    from regcopy_tools.regcopy_run import prepare

    text = kernel(t)
    prepared = prepare(text, "pad.mlir")
    (info,) = prepared.kernels
    elem = next(iter(prepared.module.ops)).function_type.inputs.data[0].element_type  # type: ignore[attr-defined]
    m, n = 37, 13
    x = random_values(elem, m * n, np.random.default_rng(3)).reshape(m, n)
    gm, gn = tiles(m, n)
    y = np.zeros((32 * gm, 8 * gn), numpy_dtype(elem))
    got = run_kernel(prepared.source, info, [x, y.copy()], grid=(gm, gn)).arrays[1]
    want = run_on_cpu(parse_unverified(text), f"tile_{t}", [x, y], grid=(gm, gn))[1]
    assert (got.view(np.uint8) == want.view(np.uint8)).all()
