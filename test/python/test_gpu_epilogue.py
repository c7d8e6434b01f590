"""GPU against CPU on examples/epilogue.mlir: f32 accumulators scaled, biased, clamped,
divided and rounded to bf16 (packed ``cvt.rn.bf16x2.f32``) and f16, bf16 back to f32, i16
shifts, a scalar bf16 round trip and bitcast; the accumulators carry edge values (ties,
subnormals, overflow, inf, NaN). Every buffer equals the CPU interpreter's (the un-lowered
reference) bit for bit, except that any NaN equals any NaN in float buffers (as ``--check``);
the bf16 buffers, raw bits, must match exactly, canonical NaN ``0x7fff`` included."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from regcopy_backend.runtime.runner import gpu_available
from test_epilogue import EDGES

REPO = Path(__file__).resolve().parents[2]
HAS_GPU, WHY = gpu_available()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not HAS_GPU, reason=WHY)]


def test_epilogue_kernel_gpu_equals_cpu() -> None:
    from regcopy_backend.runtime.cpu_run import run_on_cpu
    from regcopy_backend.runtime.runner import run_kernel
    from regcopy_tools.regcopy_run import parse_module, prepare, random_inputs
    from regcopy_tools.run_report import mismatch

    path = REPO / "examples" / "epilogue.mlir"
    text = path.read_text()
    prepared = prepare(text, str(path))
    (info,) = prepared.kernels
    inputs = random_inputs(info, np.random.default_rng(5))
    edges = np.array(EDGES, dtype=np.float32)
    inputs[0][:, 0] = np.resize(edges, 32)  # the scalar path: column 0
    inputs[0][0, :] = edges[:16]
    inputs[0][1, :] = edges[-16:]
    inputs[1][0, :] = 1.0
    gpu = run_kernel(prepared.source, info, inputs).arrays
    cpu = run_on_cpu(parse_module(text, str(path))[1], info.name, inputs)
    names = [p.name for p in info.buffers]
    for name, g, c in zip(names, gpu, cpu, strict=True):
        assert mismatch(g, c, "gpu", "cpu") is None, name
    for name in ("B", "E"):  # bf16: raw bits, NaN included
        k = names.index(name)
        assert (gpu[k] == cpu[k]).all(), name
