"""GPU tests (``-m gpu``): every kernel of test/gpu/cases.py runs on the GPU and gives exactly
the numpy-expected buffers; a misaligned launch is refused. Skipped, with the reason, where no
CUDA GPU or driver is available. test/gpu/run_all.py runs the same cases as one table."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "test" / "gpu"))
from cases import ALIGNMENT_CASE, ALL_CASES, GpuCase, bootstrap, run_case  # noqa: E402
from ldmatrix_cases import LDMATRIX_GPU_CASES  # noqa: E402

bootstrap()  # a plain checkout (GPU machine) works without `pip install -e .`

from regcopy_backend.runner import gpu_available  # noqa: E402

HAS_GPU, WHY = gpu_available()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not HAS_GPU, reason=WHY)]


@pytest.mark.parametrize("case", [*ALL_CASES, *LDMATRIX_GPU_CASES], ids=lambda c: c.name)
def test_kernel_on_gpu(case: GpuCase) -> None:
    result = run_case(case, seed=1)
    assert result.ok, f"{result.status}: {result.details}"


def test_misaligned_launch_is_refused() -> None:
    result = run_case(ALIGNMENT_CASE)
    assert result.ok and result.status == "OK (refused)", result.details


def test_regcopy_run_seed_demo_round_trips(capsys: pytest.CaptureFixture[str]) -> None:
    from regcopy_tools.regcopy_run import main

    with pytest.raises(SystemExit) as code:
        main([str(REPO / "examples" / "seed_demo.mlir")])
    out, err = capsys.readouterr()
    assert code.value.code == 0, err
    inp, res = out.splitlines()
    assert inp.startswith("seed_demo.in ") and res.startswith("seed_demo.out ")
    assert inp.split()[2:] == res.split()[2:]  # same sum and hash: out == in
