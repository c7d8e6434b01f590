"""Every lowered case of the pass's and the backend's lit tests (test/transforms/*.mlir and
test/backend/*.mlir but the error tests, each `// -----` chunk) prints as CUDA that NVRTC compiles for sm_90 without warnings (but "set and never used": these
kernels are copies alone), and its SASS uses no local
memory. Chunks whose copies the dispatch rejects (the rejection tests) stay un-lowered and are
not CUDA; they are counted, so the test cannot pass vacuously."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest
from regcopy_backend.cuda.printer import print_cuda
from regcopy_backend.runtime.nvrtc import compile_cuda, disassemble
from regcopy_passes.lower_reg_copy import LowerRegCopyPass
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from regcopy_dialect.context import regcopy_context
from regcopy_dialect.async_ops import CopyAsyncOp
from regcopy_dialect.regcopy import CopyOp

TEST = Path(__file__).resolve().parents[1]
SPILLS = "sass-local-memory.mlir"
"""A lit case that uses local memory on purpose (the warning's test)."""
FILES = [*sorted((TEST / "transforms").glob("*.mlir")),
         *sorted(p for p in (TEST / "backend").glob("*.mlir")
                 if "error" not in p.name and p.name != SPILLS)]
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


def _compile_and_disassemble(source: str) -> tuple[list[str], str]:
    # the lit kernels are copies alone: registers filled and never read are expected there
    # (NVRTC warning 550, "set but never used"); any other warning fails
    # 550 "set but never used" and 549 "used before its value is set": lit cases are single
    # copies, so a register tile may be written and never read, or (R -> S alone, which
    # lane-rotated rounds read directly) read and never written
    compiled = compile_cuda(source, options=("--diag-suppress=550,549",))
    return compiled.warnings, disassemble(compiled.cubin)


@pytest.fixture(scope="module")
def compiled_cases() -> Iterator[dict[tuple[str, int], Future | None]]:
    """Every chunk lowered and printed here (xDSL in one thread), then compiled and
    disassembled (NVRTC, and nvdisasm in its own process) by as many workers as cores, so
    the chunks' SASS is made side by side."""
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        cases: dict[tuple[str, int], Future | None] = {}
        for path, k, chunk in CHUNKS:
            module = _lowered(path, k, chunk)
            cases[path.name, k] = None if module is None else \
                pool.submit(_compile_and_disassemble, print_cuda(module))
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
    assert not re.search(r"\b(LDL|STL)\b", sass)


def test_most_lit_cases_are_lowered(compiled_cases: dict[tuple[str, int], Future | None]
                                    ) -> None:
    lowered = sum(case is not None for case in compiled_cases.values())
    assert lowered >= 15, lowered
