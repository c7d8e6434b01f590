"""``REGCOPY_CACHE_DIR``: NVRTC and nvdisasm results cached by content (backend/cuda/nvrtc.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from regcopy_backend.cuda import nvrtc

SOURCE = 'extern "C" __global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }\n'


def test_a_second_compile_is_read_from_the_cache(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(nvrtc.CACHE_ENV, str(tmp_path))
    first = nvrtc.compile_cuda(SOURCE)
    entries = sorted(tmp_path.glob("nvrtc-*.pickle"))
    assert len(entries) == 1

    def no_compile(*args: object) -> nvrtc.Compiled:
        raise AssertionError("compiled again")

    monkeypatch.setattr(nvrtc, "_compile", no_compile)
    assert nvrtc.compile_cuda(SOURCE) == first
    # another option is another key, so a real compile
    with pytest.raises(AssertionError, match="compiled again"):
        nvrtc.compile_cuda(SOURCE, options=("-lineinfo",))


def test_a_damaged_entry_is_ignored_and_rewritten(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(nvrtc.CACHE_ENV, str(tmp_path))
    first = nvrtc.compile_cuda(SOURCE)
    (entry,) = tmp_path.glob("nvrtc-*.pickle")
    entry.write_bytes(b"not a pickle")
    assert nvrtc.compile_cuda(SOURCE) == first
    assert entry.read_bytes() != b"not a pickle"


def test_sass_is_cached_by_cubin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(nvrtc.CACHE_ENV, str(tmp_path))
    cubin = nvrtc.compile_cuda(SOURCE).cubin
    sass = nvrtc.disassemble(cubin)
    assert "LDG.E" in sass and "STG.E" in sass
    monkeypatch.setattr(nvrtc, "_disassemble", lambda c: "fresh")
    assert nvrtc.disassemble(cubin) == sass
    monkeypatch.delenv(nvrtc.CACHE_ENV)
    assert nvrtc.disassemble(cubin) == "fresh"


WARNS = 'extern "C" __global__ void k(float* x) { int unused = 1; x[threadIdx.x] = 2.0f; }\n'
"""A source whose log names its file (``name.cu(1): warning #177-D: ... never referenced``)."""


def test_a_clean_compile_is_shared_by_every_file_name(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(nvrtc.CACHE_ENV, str(tmp_path))
    first = nvrtc.compile_cuda(SOURCE, name="first.cu")
    assert first.log == ""

    def no_compile(*args: object) -> nvrtc.Compiled:
        raise AssertionError("compiled again")

    monkeypatch.setattr(nvrtc, "_compile", no_compile)
    assert nvrtc.compile_cuda(SOURCE, name="second.cu") == first


def test_a_log_that_names_the_file_is_cached_under_that_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(nvrtc.CACHE_ENV, str(tmp_path))
    first = nvrtc.compile_cuda(WARNS, name="first.cu")
    assert first.log.startswith("first.cu(1): warning")
    second = nvrtc.compile_cuda(WARNS, name="second.cu")
    assert second.log.startswith("second.cu(1): warning")
    assert second.cubin == first.cubin
    assert len(list(tmp_path.glob("nvrtc-named-*.pickle"))) == 2

    def no_compile(*args: object) -> nvrtc.Compiled:
        raise AssertionError("compiled again")

    monkeypatch.setattr(nvrtc, "_compile", no_compile)
    assert nvrtc.compile_cuda(WARNS, name="first.cu") == first
