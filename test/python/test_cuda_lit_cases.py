"""Every lowered case of the pass's and the backend's lit tests (test/transforms/*.mlir and
test/backend/*.mlir but the error tests, each `// -----` chunk) prints as CUDA that NVRTC
compiles for sm_90 without warnings (but "set and never used": these kernels are copies
alone), and uses no local memory. Chunks whose copies the dispatch rejects (the rejection
tests) stay un-lowered and are not CUDA; they are counted, so the test cannot pass vacuously.

No local memory: ptxas warns in NVRTC's log of any kernel that has a stack frame
(``--warn-on-local-memory-usage``; spills and local arrays, the only source of
``LDL``/``STL``), checked for every chunk; on the lit case that spills on purpose,
``test_ptxas_warns_of_the_local_memory_the_sass_shows`` shows that the warning catches what
the SASS shows. Under ``REGCOPY_HYPOTHESIS=thorough`` (or ``big``) the SASS of every chunk
(nvdisasm, about a quarter of a CPU-second a kernel, its start-up) is read for
``LDL``/``STL`` as well, each chunk compiled alone; in the default run the chunks are compiled
together, one translation unit an architecture (``sass_batch.merged``: NVRTC's start-up once,
not once a chunk), and alone only when that compile warns, to name the chunks that do."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis_profiles import PROFILE
from regcopy_backend.cuda.printer import print_cuda
from regcopy_backend.cuda.nvrtc import SM90A_MARKER, WARN_LOCAL_MEMORY, compile_cuda, disassemble
from sass_batch import merged
from regcopy_passes.lower_reg_copy import LowerRegCopyPass
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from regcopy_dialect.context import regcopy_context
from regcopy_dialect.async_ops import CopyAsyncOp
from regcopy_dialect.regcopy import CopyOp

TEST = Path(__file__).resolve().parents[1]
SPILLS = "sass-local-memory.mlir"
"""A lit case that uses local memory on purpose (the warning's test)."""
SASS = PROFILE != "ci"
"""Disassemble every chunk (thorough), else none (ptxas's warning stands for the SASS)."""
OPTIONS = ("--diag-suppress=550,549", WARN_LOCAL_MEMORY)
"""The lit kernels are copies alone: registers filled and never read are expected there
(NVRTC warning 550, "set but never used"), and, R -> S alone (which lane-rotated rounds read
directly), read and never written (549, "used before its value is set"); any other warning
fails, ptxas's "Local memory used for function ..." included."""
FILES = [p for folder in ("transforms", "backend")
         for p in sorted((TEST / folder).glob("*.mlir"))
         if "error" not in p.name and p.name != SPILLS]
"""Every lit input that lowers (``*error*`` files test a located failure of the pass or the
target: their own lit RUN lines check it)."""
CHUNKS = [(path, k, chunk)
          for path in FILES
          for k, chunk in enumerate(path.read_text().split("// -----"))]


def _lowered(path: Path, k: int, chunk: str) -> ModuleOp | None:
    """The chunk lowered, or None when a copy stays (asserting that the chunk is a rejection
    test then)."""
    ctx = regcopy_context()
    module = Parser(ctx, chunk, f"{path.name}#{k}").parse_module()
    LowerRegCopyPass().apply(ctx, module)
    if any(isinstance(op, CopyOp | CopyAsyncOp) for op in module.walk()):
        assert "reject" in path.name or "rejected" in chunk or "not lowered" in chunk, \
            f"{path.name}#{k}: a copy stayed un-lowered outside a rejection test"
        return None
    return module


def _compile_and_disassemble(source: str, sass: bool) -> tuple[list[str], str | None]:
    """NVRTC's warnings for ``source`` and, when ``sass``, its SASS."""
    compiled = compile_cuda(source, options=OPTIONS)
    return compiled.warnings, disassemble(compiled.cubin) if sass else None


def _compile_together(sources: list[str]) -> bool:
    """Whether ``sources``, compiled as one translation unit an architecture, warn of
    nothing (a chunk that warns alone warns there too)."""
    groups = ([s for s in sources if s.startswith(SM90A_MARKER) == a] for a in (False, True))
    return all(not compile_cuda(merged(group)[0], options=OPTIONS).warnings
               for group in groups if group)


@pytest.fixture(scope="module")
def compiled_cases() -> Iterator[dict[tuple[str, int], Future | None]]:
    """Every chunk lowered and printed here (xDSL in one thread), then compiled: together
    (no SASS), or (and, under ``thorough``, disassembled: nvdisasm in its own process) by as
    many workers as cores, when the SASS is read or the chunks together warn."""
    sources: dict[tuple[str, int], str | None] = {}
    for path, k, chunk in CHUNKS:
        module = _lowered(path, k, chunk)
        sources[path.name, k] = None if module is None else print_cuda(module)
    printed = [s for s in sources.values() if s is not None]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        cases: dict[tuple[str, int], Future | None] = {}
        clean = not SASS and _compile_together(printed)
        for key, source in sources.items():
            if source is None:
                cases[key] = None
            elif clean:
                cases[key] = Future()
                cases[key].set_result(([], None))  # type: ignore[union-attr]
            else:
                cases[key] = pool.submit(_compile_and_disassemble, source, SASS)
        yield cases


@pytest.mark.parametrize("path,k,chunk", CHUNKS,
                         ids=[f"{p.stem}#{k}" for p, k, _ in CHUNKS])
def test_lowered_lit_case_compiles(path: Path, k: int, chunk: str,
                                   compiled_cases: dict[tuple[str, int], Future | None]
                                   ) -> None:
    case = compiled_cases[path.name, k]
    if case is None:
        return
    warnings, sass = case.result()
    assert warnings == []
    if sass is not None:
        assert not re.search(r"\b(LDL|STL)\b", sass)


def test_ptxas_warns_of_the_local_memory_the_sass_shows() -> None:
    """The lit case that spills on purpose: ptxas's warning names the kernel that spills (and
    not the one that fits), whose SASS has the LDL/STL: the warning is a sound stand-in."""
    module = _lowered(TEST / "backend" / SPILLS, 0, (TEST / "backend" / SPILLS).read_text())
    assert module is not None
    compiled = compile_cuda(print_cuda(module), options=OPTIONS)
    spills, sass = compiled.local_memory, disassemble(compiled.cubin)
    assert [w for w in spills if "'spill_tile'" in w] == spills == compiled.warnings
    assert len(spills) == 1
    assert re.search(r"\bLDL\b", sass) and re.search(r"\bSTL\b", sass)
    # compiled with other chunks (the default run's one compile), it still warns
    assert not _compile_together([print_cuda(module), 'extern "C" __global__ void k() {}'])


def test_most_lit_cases_are_lowered(compiled_cases: dict[tuple[str, int], Future | None]
                                    ) -> None:
    lowered = sum(case is not None for case in compiled_cases.values())
    assert lowered >= 15, lowered
