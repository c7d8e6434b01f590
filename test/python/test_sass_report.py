"""The SASS reports of ``regcopy-run --compile-only`` and ``-t sass`` (NVRTC + nvdisasm, no
GPU): memory instructions counted by their full mnemonic, local-memory traffic warned about."""

from __future__ import annotations

from pathlib import Path

from regcopy_tools.regcopy_run import compile_summary, prepare
from regcopy_tools.run_report import sass_memory_ops

REPO = Path(__file__).resolve().parents[2]


def test_ldsm_is_not_counted_as_lds() -> None:
    listing = "LDSM.16.M88.4 R4, [R2] ;\nLDS.128 R8, [R3] ;\nSTSM.16.M88.4 [R2], R4 ;\n"
    assert sass_memory_ops(listing) == {"LDSM.16.M88.4": 1, "LDS.128": 1, "STSM.16.M88.4": 1}


def test_gemm_tiles_reports_its_ldmatrix() -> None:
    path = REPO / "examples" / "gemm_tiles.mlir"
    (line,) = compile_summary(prepare(path.read_text(), str(path)))
    assert "LDSM.16.M88.4*96" in line
    assert " LDS*" not in line and "LDS.128" not in line
