"""Trace every NVRTC compile and nvdisasm call of every Python process that has this folder
on ``PYTHONPATH`` (``lab/suite_time.sh --trace`` puts it there): one line per real (uncached)
call in ``$SUITE_TRACE_DIR/<pid>.tsv``: kind, CPU seconds, wall seconds, the running test
(``PYTEST_CURRENT_TEST``, else the command line), the source's digest without its file name,
the file name, the architecture and options. Also every ``parse_and_lower`` of
``regcopy_tools.regcopy_run`` (kind ``lower``: the digest of the text, passes and kernel),
the parse and lowering that the tests and ``regcopy-run`` do. ``lab/suite/trace_report.py`` sums them and
counts the compiles that the content cache would have shared but for the name."""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.util
import os
import resource
import sys
import time
from typing import Any

TARGETS = ("regcopy_backend.cuda.nvrtc", "regcopy_tools.regcopy_run")


def _log(kind: str, cpu: float, wall: float, digest: str, name: str, rest: str) -> None:
    out = os.environ.get("SUITE_TRACE_DIR")
    if not out:
        return
    where = os.environ.get("PYTEST_CURRENT_TEST", " ".join(sys.argv)[:200]).replace("\t", " ")
    with open(os.path.join(out, f"{os.getpid()}.tsv"), "a") as f:
        f.write(f"{kind}\t{cpu:.3f}\t{wall:.3f}\t{where}\t{digest}\t{name}\t{rest}\n")


def _patch_lower(module: Any) -> None:
    lower = module.parse_and_lower

    def traced_lower(text: str, filename: str, passes: str = "",
                     kernel: str | None = None) -> Any:
        cpu, wall = time.thread_time(), time.perf_counter()
        try:
            return lower(text, filename, passes, kernel)
        finally:
            digest = hashlib.sha256(f"{passes}\0{kernel}\0{text}".encode()).hexdigest()[:12]
            _log("lower", time.thread_time() - cpu, time.perf_counter() - wall, digest,
                 filename, passes)

    module.parse_and_lower = traced_lower


def _patch(module: Any) -> None:
    if module.__name__ == TARGETS[1]:
        _patch_lower(module)
        return
    compile_, disassemble = module._compile, module._disassemble

    def traced_compile(source: str, arch: str, name: str, options: tuple[str, ...]) -> Any:
        cpu, wall = time.thread_time(), time.perf_counter()
        try:
            return compile_(source, arch, name, options)
        finally:
            digest = hashlib.sha256(source.encode()).hexdigest()[:12]
            _log("nvrtc", time.thread_time() - cpu, time.perf_counter() - wall, digest, name,
                 f"{arch} {' '.join(options)}")

    def traced_disassemble(cubin: bytes) -> str:
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        before, wall = kids.ru_utime + kids.ru_stime, time.perf_counter()
        try:
            return disassemble(cubin)
        finally:
            kids = resource.getrusage(resource.RUSAGE_CHILDREN)
            _log("nvdisasm", kids.ru_utime + kids.ru_stime - before,
                 time.perf_counter() - wall, hashlib.sha256(cubin).hexdigest()[:12], "", "")

    module._compile, module._disassemble = traced_compile, traced_disassemble


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname not in TARGETS:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        exec_module = loader.exec_module  # type: ignore[attr-defined]

        def traced_exec(module: Any) -> None:
            exec_module(module)
            _patch(module)

        loader.exec_module = traced_exec  # type: ignore[method-assign]
        return spec


if os.environ.get("SUITE_TRACE_DIR"):
    sys.meta_path.insert(0, _Finder())
