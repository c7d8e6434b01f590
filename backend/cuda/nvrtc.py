"""Compile CUDA C++ to PTX and cubin with NVRTC (``cuda.bindings.nvrtc``; no GPU or driver
needed) and disassemble a cubin to SASS with ``nvdisasm`` (``nvidia-cuda-nvdisasm`` wheel).

With ``REGCOPY_CACHE_DIR`` set, both results are cached there by content: a compile by the
SHA-256 of (NVRTC version, arch, options, source) and, when its output names the file (a
warning's ``name.cu(12):``, ``-lineinfo``), the file name too; a disassembly by that of the
cubin. Both tools are deterministic, so a hit returns exactly what the tool would; the test
suite sets it to one directory per run, shared by its workers and the tools they start."""

from __future__ import annotations

import hashlib
import os
import pickle
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_ARCH = "sm_90"


class NvrtcError(RuntimeError):
    """NVRTC refused the source; the message carries its log."""


class NvdisasmError(RuntimeError):
    """``nvdisasm`` is missing or failed."""


WARN_LOCAL_MEMORY = "--ptxas-options=--warn-on-local-memory-usage"
"""The NVRTC option under which ptxas warns of every kernel that uses local memory
(``Compiled.local_memory``)."""


@dataclass(frozen=True)
class Compiled:
    """NVRTC's output for one source: PTX text, cubin bytes and the (warnings) log."""

    ptx: str
    cubin: bytes
    log: str
    arch: str

    @property
    def warnings(self) -> list[str]:
        """The log's warning lines (empty for a clean compile)."""
        return [ln for ln in self.log.splitlines() if "warning" in ln]

    @property
    def local_memory(self) -> list[str]:
        """The warnings that a kernel uses local memory (a stack frame: spills or local
        arrays, the only source of ``LDL``/``STL``), given ``WARN_LOCAL_MEMORY``."""
        return [w for w in self.warnings if "Local memory used" in w]


def _check(result: Any, what: str) -> Any:
    """Unpack a ``cuda.bindings`` ``(err, *values)`` tuple, raising on a non-success code."""
    from cuda.bindings import nvrtc

    err, *values = result if isinstance(result, tuple) else (result,)
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise NvrtcError(f"{what} failed: {err.name}")
    return values[0] if len(values) == 1 else values


def _bytes(prog: Any, size_fn: Any, get_fn: Any, what: str) -> bytes:
    size = _check(size_fn(prog), f"{what} size")
    buf = b" " * size
    _check(get_fn(prog, buf), what)
    return buf


CACHE_ENV = "REGCOPY_CACHE_DIR"


def _cache_path(kind: str, *parts: bytes) -> Path | None:
    """Where the cached ``kind`` result for ``parts`` lives, or None without a cache."""
    root = os.environ.get(CACHE_ENV)
    if not root:
        return None
    digest = hashlib.sha256(b"\0".join(parts)).hexdigest()
    return Path(root) / f"{kind}-{digest}.pickle"


def _cache_load(path: Path | None) -> Any:
    if path is None or not path.exists():
        return None
    try:
        return pickle.loads(path.read_bytes())
    except (OSError, pickle.UnpicklingError, EOFError):
        return None


def _cache_store(path: Path | None, value: object) -> None:
    """Write atomically (a temporary file renamed), so concurrent processes never read half."""
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(pickle.dumps(value))
        os.replace(tmp, path)
    except OSError:
        pass  # a cache that cannot be written is no cache, not an error


def _nvrtc_version() -> bytes:
    from cuda.bindings import nvrtc

    return repr(nvrtc.nvrtcVersion()).encode()


SM90A_MARKER = "// regcopy: needs sm_90a (wgmma)"
"""First line of a CUDA source whose kernels use sm_90a-only instructions."""


def module_arch(source: str, arch: str) -> str:
    """``arch`` with the ``a`` suffix when ``source`` starts with ``SM90A_MARKER`` and
    ``arch`` is ``sm_90``: the per-module choice of the architecture."""
    if arch == "sm_90" and source.startswith(SM90A_MARKER):
        return "sm_90a"
    return arch


def compile_cuda(source: str, arch: str = DEFAULT_ARCH, name: str = "regcopy.cu",
                 options: tuple[str, ...] = ()) -> Compiled:
    """Compile ``source`` for ``arch`` (``sm_90``); ``NvrtcError`` with the log on failure.
    Cached under ``REGCOPY_CACHE_DIR`` when set (a failed compile is not cached). A source
    whose kernels need the architecture-specific ``sm_90a`` (wgmma) says so in its first
    line, and ``sm_90`` becomes ``sm_90a`` (``module_arch``)."""
    arch = module_arch(source, arch)
    key = (_nvrtc_version(), arch.encode(), *(o.encode() for o in options), source.encode())
    anonymous = _cache_path("nvrtc", *key)
    named = _cache_path("nvrtc-named", name.encode(), *key)
    for path in (anonymous, named):
        if isinstance(hit := _cache_load(path), Compiled):
            return hit
    compiled = _compile(source, arch, name, options)
    _cache_store(named if names_file(compiled, name) else anonymous, compiled)
    return compiled


def names_file(compiled: Compiled, name: str) -> bool:
    """Whether NVRTC's output for the file ``name`` mentions it (in a diagnostic of the log,
    line information of the PTX, a string of the cubin). One that does not is the output for
    any file name: NVRTC names the file nowhere else, so the cache shares it across names."""
    return name in compiled.log or name in compiled.ptx or name.encode() in compiled.cubin


def _compile(source: str, arch: str, name: str, options: tuple[str, ...]) -> Compiled:
    from cuda.bindings import nvrtc

    prog = _check(nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], []),
                  "nvrtcCreateProgram")
    try:
        opts = [f"--gpu-architecture={arch}", "--std=c++17", *options]
        (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), [o.encode() for o in opts])
        log = _bytes(prog, nvrtc.nvrtcGetProgramLogSize, nvrtc.nvrtcGetProgramLog, "log")
        log_text = log.rstrip(b"\x00 ").decode(errors="replace").strip()
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise NvrtcError(f"NVRTC could not compile {name} for {arch}:\n{log_text}")
        ptx = _bytes(prog, nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX, "PTX")
        cubin = _bytes(prog, nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN, "cubin")
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
    return Compiled(ptx.rstrip(b"\x00").decode(), cubin, log_text, arch)


def find_nvdisasm() -> str:
    """Path of ``nvdisasm``: the ``nvidia-cuda-nvdisasm`` wheel's, else the one on ``PATH``."""
    try:
        from cuda.pathfinder import find_nvidia_binary_utility

        if (found := find_nvidia_binary_utility("nvdisasm")) is not None:
            return str(found)
    except Exception:  # noqa: BLE001 - pathfinder missing or too old: fall back to PATH
        pass
    if (found := shutil.which("nvdisasm")) is not None:
        return found
    raise NvdisasmError("nvdisasm not found: install the nvidia-cuda-nvdisasm wheel "
                        "(pip install nvidia-cuda-nvdisasm) or put nvdisasm on PATH")


def disassemble(cubin: bytes) -> str:
    """The SASS text of a cubin (``nvdisasm -c``); cached under ``REGCOPY_CACHE_DIR``."""
    path = _cache_path("sass", cubin)
    if isinstance(hit := _cache_load(path), str):
        return hit
    sass = _disassemble(cubin)
    _cache_store(path, sass)
    return sass


NVDISASM_OPTIONS = ("--print-code",)
"""nvdisasm's options: the code sections only."""
LEAN_OPTIONS = (*NVDISASM_OPTIONS, "--no-dataflow")
"""The same without nvdisasm's dataflow pass, which costs about a third of its 0.3 CPU-seconds
a call. All that pass adds to regcopy's listings is the ``(*"SpillRefill"*)`` note on spilled
registers' ``LDL``/``STL`` (the same listing for every other kernel of the test suite, 315
cubins: ``lab/suite/sass_options_check.py``), so a listing without local memory is disassembled
without it, and one with ``LDL``/``STL`` again with it."""
LOCAL_MEMORY = re.compile(r"\b(?:LDL|STL)\b")


def _disassemble(cubin: bytes) -> str:
    """``nvdisasm``'s listing of ``cubin`` under ``NVDISASM_OPTIONS``."""
    lean = _nvdisasm(cubin, LEAN_OPTIONS)
    return _nvdisasm(cubin, NVDISASM_OPTIONS) if LOCAL_MEMORY.search(lean) else lean


def _nvdisasm(cubin: bytes, options: tuple[str, ...]) -> str:
    tool = find_nvdisasm()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kernel.cubin"
        path.write_bytes(cubin)
        proc = subprocess.run([tool, *options, str(path)], capture_output=True, text=True,
                              check=False)
    if proc.returncode != 0:
        raise NvdisasmError(f"nvdisasm failed ({proc.returncode}): {proc.stderr.strip()}")
    return proc.stdout
