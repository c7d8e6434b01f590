"""ldmatrix for a replicated register tile (test/gpu/kernels/ldmatrix_replicated.mlir: a Triton
dot A operand replicated over 2 warps, from a 128-byte-swizzled shared tile): the remark, the
SASS (4 ``LDSM.16.M88.4`` a warp, no 16- or 32-bit shared loads), every replica's registers on
the interpreter against the un-lowered copy, and on a GPU (``-m gpu``) against the
interpreter."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_backend.runtime.runner import gpu_available
from regcopy_tools.regcopy_run import parse_and_lower, parse_module

from regcopy_dialect.diagnostics import capture_diagnostics

KERNEL = Path(__file__).resolve().parents[2] / "test" / "gpu" / "kernels" / \
    "ldmatrix_replicated.mlir"
NAME = "dot_a_replicated"


def _inputs() -> list[np.ndarray]:
    g = (np.arange(32 * 64) % 2000 - 1000).astype(np.float16).reshape(32, 64)
    return [g, np.zeros((128, 32), np.float16)]


def test_each_replica_group_issues_the_same_ldmatrix() -> None:
    with capture_diagnostics() as diags:
        module = parse_and_lower(KERNEL.read_text(), str(KERNEL), "lower-reg-copy{remarks}")
    (load,) = [d for d in diags if "[copy %S -> %R" in d.label or "%S -> %R" in d.label]
    assert load.message.startswith("ldmatrix.x4 (4 instructions a warp, 64 bytes a lane)")
    assert "2 replicas (each loads)" in load.message
    assert load.notes[0].startswith("each of the 2 replica groups issues the same ldmatrix")
    assert str(module).count("regcopy.ldmatrix") == 4


def test_every_replica_holds_the_operand_on_the_interpreter() -> None:
    """Lowered (ldmatrix) and un-lowered (the reference copy) agree on every thread's 32
    registers; warps 2 wm and 2 wm + 1 (replicas) hold the same."""
    text = KERNEL.read_text()
    lowered = parse_and_lower(text, str(KERNEL))
    _, reference = parse_module(text, str(KERNEL))
    got = run_on_cpu(lowered, NAME, _inputs())[1]
    want = run_on_cpu(reference, NAME, _inputs())[1]
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got[0:32], got[32:64])
    np.testing.assert_array_equal(got[64:96], got[96:128])
    assert not (got[0:32] == got[64:96]).all()


def test_sass_has_ldsm_and_no_narrow_shared_loads() -> None:
    from regcopy_tools.regcopy_run import prepare, sass_listing

    sass = sass_listing(prepare(KERNEL.read_text(), str(KERNEL)))
    if sass is None:
        pytest.skip("nvdisasm is not installed")
    assert len(re.findall(r"\bLDSM\.16\.M88\.4\b", sass)) == 4
    # (ptxas pads with never-executed ``@!PT LDS RZ, [RZ]``: not loads)
    executed = [line for line in sass.splitlines() if "@!PT" not in line]
    assert not [line for line in executed if re.search(r"\bLDS(\.U16|\.32|\.64|\.128)?\s",
                                                        line)]


HAS_GPU, WHY = gpu_available()


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_GPU, reason=WHY)
def test_replicated_ldmatrix_on_the_gpu() -> None:
    from regcopy_backend.runtime.runner import run_kernel
    from regcopy_tools.regcopy_run import prepare

    text = KERNEL.read_text()
    prepared = prepare(text, str(KERNEL))
    (info,) = prepared.kernels
    got = run_kernel(prepared.source, info, _inputs()).arrays[1]
    _, reference = parse_module(text, str(KERNEL))
    np.testing.assert_array_equal(got, run_on_cpu(reference, NAME, _inputs())[1])
