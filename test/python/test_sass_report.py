"""The SASS reports of ``regcopy-run --compile-only`` and ``-t sass`` (NVRTC + nvdisasm, no
GPU): memory instructions counted by their full mnemonic, local-memory traffic warned about."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from regcopy_backend.cuda import nvrtc
from regcopy_backend.cuda.spills import (
    LocalTraffic,
    kernel_sass,
    local_ops,
    max_registers,
)
from regcopy_tools.regcopy_run import (
    VERBOSE,
    compile_summary,
    prepare,
    sass_listing,
    spill_warnings,
)
from regcopy_tools.run_report import sass_memory_ops

REPO = Path(__file__).resolve().parents[2]


def test_ldsm_is_not_counted_as_lds() -> None:
    listing = "LDSM.16.M88.4 R4, [R2] ;\nLDS.128 R8, [R3] ;\nSTSM.16.M88.4 [R2], R4 ;\n"
    assert sass_memory_ops(listing) == {"LDSM.16.M88.4": 1, "LDS.128": 1, "STSM.16.M88.4": 1}


def test_async_copies_are_counted() -> None:
    """cp.async is LDGSTS in SASS (global -> shared, no register); TMA is UTMALDG: both are
    memory instructions of the summary, not lost (nor counted as LDG/STS)."""
    listing = ("LDGSTS.E.BYPASS.128 [R3], desc[UR4][R4.64] ;\nLDGDEPBAR ;\n"
               "UTMALDG.2D [UR8], [UR4] ;\nLDG.E.128 R4, desc[UR4][R2.64] ;\n")
    assert sass_memory_ops(listing) == {"LDGSTS.E.BYPASS.128": 1, "UTMALDG.2D": 1,
                                        "LDG.E.128": 1}


def test_gemm_async_reports_its_cp_async() -> None:
    path = REPO / "examples" / "gemm_async.mlir"
    (line,) = compile_summary(prepare(path.read_text(), str(path)))
    # 8 chunks a thread a stage (4 of A, 4 of B): the prologue's 2 stages and the loop's
    assert "LDGSTS.E.BYPASS.128*24" in line
    assert not re.search(r" (LDG|STS)\.", line)  # no register-staged copy


def test_gemm_tiles_reports_its_ldmatrix() -> None:
    path = REPO / "examples" / "gemm_tiles.mlir"
    (line,) = compile_summary(prepare(path.read_text(), str(path)))
    assert "LDSM.16.M88.4*24" in line  # 16 (A) + 8 (B) a K tile; K is a runtime extent
    assert " LDS*" not in line and "LDS.128" not in line


def test_spilling_kernel_is_warned_about_with_the_fix() -> None:
    path = REPO / "test" / "backend" / "sass-local-memory.mlir"
    prepared = prepare(path.read_text(), str(path))
    sass = sass_listing(prepared)
    (warning,) = spill_warnings(prepared, sass)  # @fits (min_blocks = 1) does not spill
    assert warning.startswith("regcopy-run: warning: kernel spill_tile uses local memory: ")
    assert "under __launch_bounds__(256, 2); set min_blocks = 1" in warning
    loads, stores = local_ops(kernel_sass(sass, "spill_tile"))
    assert f"{loads + stores} LDL/STL in its SASS ({loads} LDL, {stores} STL)" in warning
    assert local_ops(kernel_sass(sass, "fits")) == (0, 0)


def test_the_fix_depends_on_why_local_memory_is_used() -> None:
    spill = LocalTraffic("k", 3, 2, 64, 40, 1024, None)
    assert "5 LDL/STL" in spill.warning() and "64 registers" in spill.warning()
    assert "fewer threads a block" in spill.warning()  # 64 is all that 1024 threads get
    lifted = LocalTraffic("k", 3, 2, 126, 40, 256, 2).warning()
    assert "set min_blocks = 1 in its #regcopy.launch (up to 255 registers" in lifted
    at_one = LocalTraffic("k", 3, 2, 255, 40, 256, 1).warning()
    assert "min_blocks = 1 in" not in at_one and "smaller register tile" in at_one
    array = LocalTraffic("k", 1, 64, 64, 0, 32, None).warning()
    assert "indexed at run time" in array


def test_register_cap_of_launch_bounds() -> None:
    assert [max_registers(b, 1) for b in (32, 128, 256, 512, 1024)] == [255, 255, 255, 128, 64]
    assert max_registers(256, 2) == 128 and max_registers(384, 1) == 168


def test_compile_only_compiles_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--compile-only`` prepares with ptxas's resource report (``VERBOSE``) and reads the
    summary from that log: one NVRTC compile (no cache), the same lines as from a plain
    prepare and a second, verbose compile."""
    path = REPO / "examples" / "gemm_async.mlir"
    monkeypatch.delenv(nvrtc.CACHE_ENV, raising=False)
    calls: list[tuple[str, ...]] = []
    real = nvrtc._compile

    def counted(source: str, arch: str, name: str, options: tuple[str, ...]) -> nvrtc.Compiled:
        calls.append(options)
        return real(source, arch, name, options)

    monkeypatch.setattr(nvrtc, "_compile", counted)
    once = compile_summary(prepare(path.read_text(), str(path), options=VERBOSE))
    assert calls == [VERBOSE]
    assert compile_summary(prepare(path.read_text(), str(path))) == once
    assert calls == [VERBOSE, (), VERBOSE]
