"""GPU tests (``-m gpu``): every kernel of test/gpu/cases.py runs on the GPU and gives exactly
the numpy-expected buffers; a misaligned launch is refused. Skipped, with the reason, where no
CUDA GPU or driver is available. test/gpu/run_all.py runs the same cases as one table."""

from __future__ import annotations

from pathlib import Path

import pytest
from cases import ALIGNMENT_CASE, ALL_CASES, GpuCase, run_case
from ldmatrix_cases import LDMATRIX_GPU_CASES

from regcopy_backend.runtime.runner import gpu_available

REPO = Path(__file__).resolve().parents[2]

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


def test_vector_arith_example_gpu_equals_cpu() -> None:
    """examples/vector_arith.mlir (lane-wise i32/f32 arithmetic, vector.bitcast): the GPU's
    buffers equal the CPU interpreter's and numpy's, bit for bit."""
    import numpy as np
    from cases import VECTOR_ARITH, _bits, vector_arith_expected

    from regcopy_backend.runtime.cpu_run import run_on_cpu
    from regcopy_backend.runtime.runner import run_kernel
    from regcopy_tools.regcopy_run import prepare, random_inputs

    prepared = prepare(VECTOR_ARITH.read_text(), str(VECTOR_ARITH))
    (info,) = prepared.kernels
    before = random_inputs(info, np.random.default_rng(7))
    gpu = run_kernel(prepared.source, info, before).arrays
    cpu = run_on_cpu(prepared.module, info.name, before)
    for k, (g, c) in enumerate(zip(gpu, cpu, strict=True)):
        assert (_bits(g) == _bits(c)).all(), info.buffers[k].name
    for k, want in vector_arith_expected(before).items():
        assert (_bits(gpu[k]) == _bits(want)).all(), info.buffers[k].name


def test_casts_kernel_gpu_equals_cpu() -> None:
    """test/gpu/kernels/casts.mlir (saturating float -> int, NaN -> 0, i1/i8 extensions,
    int -> f32 and f64 -> f32 rounding, negf, minnumf with a NaN, maxnumf): the GPU's buffers
    equal the CPU interpreter's (un-lowered reference) bit for bit."""
    import numpy as np
    from cases import _bits

    from regcopy_backend.runtime.cpu_run import run_on_cpu
    from regcopy_backend.runtime.runner import run_kernel
    from regcopy_tools.regcopy_run import parse_module, prepare, random_inputs

    path = REPO / "test" / "gpu" / "kernels" / "casts.mlir"
    text = path.read_text()
    prepared = prepare(text, str(path))
    (info,) = prepared.kernels
    before = random_inputs(info, np.random.default_rng(11))
    gpu = run_kernel(prepared.source, info, before).arrays
    cpu = run_on_cpu(parse_module(text, str(path))[1], info.name, before)
    for k, (g, c) in enumerate(zip(gpu, cpu, strict=True)):
        assert (_bits(g) == _bits(c)).all(), info.buffers[k].name
    saturated = gpu[2][:, 0]
    assert ((saturated == 2**31 - 1) | (saturated == -(2**31))).any()  # the inputs reach it
