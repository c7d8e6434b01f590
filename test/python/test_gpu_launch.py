"""Launching like a Python user, on the GPU: torch CUDA tensors, ``__cuda_array_interface__``
arrays (cupy) and DLPack-only providers go in without a host copy and are written in place;
a tensor of the wrong dtype or shape is refused before launch; a grid given as a function of
the extents covers a ragged kernel. Skipped with the reason where there is no GPU (or no
torch / cupy)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ragged_cases import LOWERED
from regcopy_backend.runtime.arguments import ArgumentError
from regcopy_backend.runtime.runner import gpu_available, run_kernel
from regcopy_tools.regcopy_run import prepare

pytestmark = pytest.mark.gpu
HAS_GPU, WHY_NOT = gpu_available()
REPO = Path(__file__).resolve().parents[2]
SEED = REPO / "examples" / "seed_demo.mlir"


@pytest.fixture(scope="module")
def torch() -> Any:
    if not HAS_GPU:
        pytest.skip(WHY_NOT)
    return pytest.importorskip("torch", reason="torch is not installed")


def test_torch_tensors_in_place(torch: Any) -> None:
    prepared = prepare(SEED.read_text(), str(SEED))
    (info,) = prepared.kernels
    a = torch.arange(256, dtype=torch.float32, device="cuda").reshape(32, 8)
    out = torch.zeros((32, 8), dtype=torch.float32, device="cuda")
    result = run_kernel(prepared.source, info, [a, out])
    assert result.arrays[1] is out
    assert torch.equal(out, a)


def test_dlpack_only_provider(torch: Any) -> None:
    class DlpackOnly:
        def __init__(self, t: Any) -> None:
            self.t = t

        def __dlpack__(self, **kw: Any) -> Any:
            return self.t.__dlpack__(**kw)

        def __dlpack_device__(self) -> Any:
            return self.t.__dlpack_device__()

    prepared = prepare(SEED.read_text(), str(SEED))
    (info,) = prepared.kernels
    a = torch.arange(256, dtype=torch.float32, device="cuda").reshape(32, 8)
    out = torch.zeros((32, 8), dtype=torch.float32, device="cuda")
    run_kernel(prepared.source, info, [DlpackOnly(a), DlpackOnly(out)])
    assert torch.equal(out, a)


def test_wrong_torch_tensors_are_refused(torch: Any) -> None:
    prepared = prepare(SEED.read_text(), str(SEED))
    (info,) = prepared.kernels
    a = torch.zeros((32, 8), dtype=torch.float32, device="cuda")
    with pytest.raises(ArgumentError, match="has dtype float16"):
        run_kernel(prepared.source, info, [a, torch.zeros((32, 8), dtype=torch.float16,
                                                          device="cuda")])
    with pytest.raises(ArgumentError, match="has shape 16x8"):
        run_kernel(prepared.source, info, [a, torch.zeros((16, 8), device="cuda")])
    with pytest.raises(ArgumentError, match="is not contiguous"):
        run_kernel(prepared.source, info, [a, torch.zeros((8, 32), device="cuda").t()])


def test_grid_function_on_a_ragged_kernel(torch: Any) -> None:
    prepared = prepare(LOWERED.read_text(), str(LOWERED))
    (info,) = prepared.kernels
    x = torch.randn((70, 300), device="cuda")
    y = torch.zeros_like(x)
    run_kernel(prepared.source, info, [x, y],
               grid=lambda f: (f["X"][0], -(-f["X"][1] // 128)))
    assert torch.equal(x, y)


def test_cupy_arrays_through_the_cuda_array_interface() -> None:
    if not HAS_GPU:
        pytest.skip(WHY_NOT)
    cp = pytest.importorskip("cupy", reason="cupy is not installed")
    prepared = prepare(SEED.read_text(), str(SEED))
    (info,) = prepared.kernels
    a = cp.arange(256, dtype=cp.float32).reshape(32, 8)
    out = cp.zeros((32, 8), dtype=cp.float32)
    run_kernel(prepared.source, info, [a, out])
    assert np.array_equal(cp.asnumpy(out), cp.asnumpy(a))
