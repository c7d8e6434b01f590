"""Helpers of the CUDA-target tests (test_cuda_printer.py, test_cuda_kernel_frame.py)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from regcopy_tools.regcopy_run import parse_and_lower
from xdsl.dialects.builtin import ModuleOp

REPO = Path(__file__).resolve().parents[2]
LAUNCH = "attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>}"


def lower(path: Path) -> ModuleOp:
    return parse_and_lower(path.read_text(), str(path))


def lower_text(text: str) -> ModuleOp:
    return parse_and_lower(text, "test.mlir", passes="")


def sass_ops(sass: str) -> Counter[str]:
    return Counter(re.findall(r"\b((?:LDS|STS|LDG|STG|LDL|STL)(?:\.[A-Z0-9]+)*)", sass))
