"""GPU tests (``-m gpu``) of strided buffers: numpy views of larger arrays (odd leading
dimensions, ragged sizes) go through ``run_kernel``; every result equals numpy slicing and
the CPU interpreter bit for bit; a broken stride promise is refused before launch; cp.async
reads a view. Skipped, with the reason, where no CUDA GPU or driver is available."""

from __future__ import annotations

import numpy as np
import pytest
from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_backend.runtime.runner import ArgumentError, gpu_available
from strided_cases import ELEMENTS, async_view_copy, grid_for, parent, view_copy
from xdsl.parser import Parser

from regcopy_dialect.context import regcopy_context

HAS_GPU, WHY = gpu_available()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not HAS_GPU, reason=WHY)]

CASES = {
    "f32": ("f32", 8, 1, 1),     # no promise: versioned on stride % 4, realigned stores
    "f32_4": ("f32", 8, 4, 4),   # promised: 128-bit only
    "f16_2": ("f16", 8, 1, 2),
    "i8": ("i8", 16, 1, 1),
}
SHAPES = [(1, 1, 1, 1), (5, 7, 9, 8), (33, 12, 50, 13), (64, 4001, 4096, 4003),
          (127, 100, 4099, 128), (1000, 333, 1024, 335)]
"""``(m, n, ld_x, ld_y)``: ragged sizes, odd and aligned leading dimensions."""


@pytest.fixture(scope="module")
def compiled():
    from regcopy_tools.regcopy_run import prepare

    out = {}
    for key, (elem, k, extent, stride) in CASES.items():
        text = view_copy(elem, k, extent, stride)
        prepared = prepare(text, f"{key}.mlir")
        (info,) = prepared.kernels
        out[key] = (prepared, info, Parser(regcopy_context(), text).parse_module(), k)
    return out


def _round(n: int, d: int) -> int:
    return -(-n // d) * d


@pytest.mark.parametrize("key", sorted(CASES))
@pytest.mark.parametrize(("m", "n", "ld_x", "ld_y"), SHAPES)
def test_views_copy_bit_exact(compiled, key: str, m: int, n: int, ld_x: int,
                              ld_y: int) -> None:
    from regcopy_backend.runtime.runner import run_kernel

    prepared, info, reference, k = compiled[key]
    elem, _, extent, stride = CASES[key]
    n = _round(n, extent)
    ld_x, ld_y = _round(max(ld_x, n + 3), stride), _round(max(ld_y, n), stride)
    dtype = ELEMENTS[elem]
    px, py = parent(m + 1, ld_x, dtype, m + n), parent(m, ld_y, dtype, ld_x)
    x, y = px[1:, 3:3 + n], py[:, :n]
    grid = grid_for(m, n, k)
    gpu = run_kernel(prepared.source, info, [x, y], grid=grid).arrays
    assert gpu[0].shape == x.shape and (gpu[0] == x).all()
    assert (gpu[1] == x).all()
    if m * n <= 5000:
        cpu = run_on_cpu(reference, "view", [x, y], grid=grid)
        assert (cpu[1] == gpu[1]).all()


def test_a_broken_stride_promise_launches_nothing(compiled) -> None:
    from regcopy_backend.runtime.runner import run_kernel

    prepared, info, _, _ = compiled["f32_4"]
    x = np.zeros((8, 10), np.float32)[:, :8]
    with pytest.raises(ArgumentError, match=r"breaks its promise regcopy\.stride_divisibility"):
        run_kernel(prepared.source, info, [x, x.copy()], grid=(1, 1))


def test_cp_async_reads_a_view() -> None:
    from regcopy_backend.runtime.runner import run_kernel
    from regcopy_tools.regcopy_run import prepare

    prepared = prepare(async_view_copy(stride=2), "async_view.mlir")
    (info,) = prepared.kernels
    for m, n, ld in ((69, 128, 202), (200, 512, 520), (33, 64, 66)):
        px, py = parent(m + 3, ld, np.float16, m), parent(m, n + 8, np.float16, n)
        x, y = px[3:, 2:2 + n], py[:, :n]
        out = run_kernel(prepared.source, info, [x, y], grid=grid_for(m, n, 64)).arrays
        assert (out[1] == x).all()


def test_regcopy_run_check_on_a_view(capsys, tmp_path) -> None:
    from regcopy_tools.regcopy_run import main

    src = tmp_path / "view.mlir"
    src.write_text(view_copy())
    with pytest.raises(SystemExit) as done:
        main([str(src), "--check", "--arg", "X=100x333:4099", "--arg", "Y=100x333:336",
              "--grid", "4,42"])
    out, err = capsys.readouterr()
    assert int(done.value.code or 0) == 0, err
    assert out.splitlines() == ["view.X f32[100x333] equal (33300 elements)",
                                "view.Y f32[100x333] equal (33300 elements)"]
