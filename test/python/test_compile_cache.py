"""``REGCOPY_CACHE_DIR``: NVRTC and nvdisasm results cached by content (backend/cuda/nvrtc.py);
and nvdisasm's listing, run without its dataflow pass where that changes nothing."""

from __future__ import annotations

import subprocess
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


SPILLS = """extern "C" __global__ void spills(float* x) {
  float a[64];
  #pragma unroll
  for (int i = 0; i < 64; i++) a[i] = x[i * 256 + threadIdx.x];
  float s = 0;
  #pragma unroll
  for (int i = 0; i < 64; i++) s += a[63 - i] * a[i] * x[i + 7];
  #pragma unroll
  for (int i = 0; i < 64; i++) x[i * 256 + threadIdx.x] = a[i] * s;
}
"""


@pytest.mark.parametrize("source, options", [(SOURCE, ()), (SPILLS, ("--maxrregcount=24",))],
                         ids=["no local memory", "spills"])
def test_the_listing_is_plain_nvdisasm_c(source: str, options: tuple[str, ...],
                                         tmp_path: Path) -> None:
    """``disassemble`` runs nvdisasm without its dataflow pass where that changes nothing (no
    local memory), and with it where it notes the spills (``(*"SpillRefill"*)``): either way
    the listing is ``nvdisasm -c``'s."""
    cubin = nvrtc.compile_cuda(source, options=options).cubin
    (tmp_path / "k.cubin").write_bytes(cubin)
    plain = subprocess.run([nvrtc.find_nvdisasm(), "-c", str(tmp_path / "k.cubin")],
                           capture_output=True, text=True, check=True).stdout
    assert nvrtc._disassemble(cubin) == plain
    assert ('(*"SpillRefill"*)' in plain) == (source is SPILLS)
