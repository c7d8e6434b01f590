"""test/gpu/kernels/ldmatrix_*.mlir on the CPU: each kernel verifies, its copies get the
ld/stmatrix decision ``ldmatrix_cases.MATRIX_KINDS`` names, and its un-lowered (reference)
and per-thread-path (``transfer=vector``) runs on the interpreter give exactly the buffers the PTX ISA's fragment tables
predict (``ldmatrix_cases``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
from cases import GpuCase, compare, lowering_plan  # noqa: E402
from ldmatrix_cases import LDMATRIX_CASES, MATRIX_KINDS  # noqa: E402

from copy_harness import lower, parse  # noqa: E402
from regcopy_backend.runtime.cpu_run import run_on_cpu  # noqa: E402
from regcopy_backend.cuda.kernel_info import kernel_info, kernels  # noqa: E402
from regcopy_dialect.matrix_ops import LdMatrixOp, MatrixOpBase  # noqa: E402
from regcopy_dialect.regcopy import CopyOp, MemSpace, memory_space  # noqa: E402
from regcopy_passes.lower_reg_copy import plan_for  # noqa: E402
from regcopy_passes.reg_copy.matrix_plan import MatrixTransfer, plan_matrix  # noqa: E402
from regcopy_tools.regcopy_run import random_inputs  # noqa: E402


@pytest.mark.parametrize("case", LDMATRIX_CASES, ids=lambda c: c.name)
def test_matrix_decision(case: GpuCase) -> None:
    ops = [op for op in parse(case.path.read_text()).walk() if isinstance(op, CopyOp)]
    got: list[str | None] = []
    for op in ops:
        _lp = plan_for(op)
        acc, plan = _lp.acc, _lp.copy
        s_type = op.src_type if acc.r_is_dst else op.dst_type
        transfer = plan_matrix(acc, plan, memory_space(s_type) == MemSpace.SHARED)
        got.append(transfer.mnemonic(transfer.ops[0].count)
                   if isinstance(transfer, MatrixTransfer) else None)
    assert tuple(got) == MATRIX_KINDS[case.name]


@pytest.mark.parametrize("lowered", [None, "vector", "auto", "matrix"],
                         ids=["reference", "vector", "auto", "matrix"])
@pytest.mark.parametrize("case", LDMATRIX_CASES, ids=lambda c: c.name)
def test_kernel_on_cpu(case: GpuCase, lowered: str | None) -> None:
    """The reference semantics, the per-thread lowering and the default lowering (ld/stmatrix
    where chosen, run by the interpreter's warp lockstep) all give the PTX-table expectation."""
    text = case.path.read_text()
    module = lower(text, transfer=lowered) if lowered else parse(text)
    assert (lowered is not None) != any(isinstance(op, CopyOp) for op in module.walk())
    if lowered == "vector":  # the per-thread path's plan (GpuCase.plan)
        assert lowering_plan(module) == list(case.plan)
    if lowered == "matrix":  # every applicable matrix kind appears
        kinds = [f"{'ldmatrix' if isinstance(op, LdMatrixOp) else 'stmatrix'}"
                 for op in module.walk() if isinstance(op, MatrixOpBase)]
        want = [k.split(".")[0] for k in MATRIX_KINDS[case.name] if k is not None]
        assert sorted(set(kinds)) == sorted(set(want))
    (fn,) = kernels(module)
    info = kernel_info(fn)
    before = random_inputs(info, np.random.default_rng(3))
    after = run_on_cpu(module, fn.sym_name.data, before)
    assert compare(case, [p.name for p in info.buffers], before, after) == []
