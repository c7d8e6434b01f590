"""``regcopy.setmaxnreg`` (register reallocation between warpgroups, sm_90a): the CPU
interpreter runs it as a no-op (registers are not modelled), so a producer / consumer kernel
computes the same values with and without it; the op builds from Python and prints its PTX."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_dialect.setmaxnreg_op import SetMaxNRegOp, setmaxnreg_ptx
from regcopy_tools.regcopy_run import parse_and_lower

REPO = Path(__file__).resolve().parents[2]


def test_interpreter_runs_setmaxnreg_as_a_no_op() -> None:
    text = (REPO / "test" / "backend" / "cuda-setmaxnreg.mlir").read_text()
    module = parse_and_lower(text, "cuda-setmaxnreg.mlir", "lower-reg-copy")
    out = run_on_cpu(module, "roles", [np.zeros(384, np.float32)])[0]
    assert np.array_equal(out, np.repeat(np.array([1, 2, 2], np.float32), 128))


def test_ptx_text() -> None:
    assert setmaxnreg_ptx(SetMaxNRegOp("dec", 40)) == "setmaxnreg.dec.sync.aligned.u32 40;"
    assert setmaxnreg_ptx(SetMaxNRegOp("inc", 232)) == "setmaxnreg.inc.sync.aligned.u32 232;"
