"""lab/ragged/ab_shuffle_forms.py on the CPU: ``eshfl`` replaces only the emitted kernel's fallback
stores (its anchors in the emitted source are still found, so the A/B can be rerun on what the
tree emits) and compiles for sm_90 with its shuffles and no local memory; its oracle differs
from it only in the shuffles. The timings: the script on the H200."""

from __future__ import annotations

import re

import pytest

import ab_shuffle_forms as forms
from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
import ab_sources
from regcopy_bench import bench_ragged as br
from regcopy_tools.run_report import sass_memory_ops


def _sass_ops(source: str) -> tuple[dict[str, int], int]:
    sass = disassemble(compile_cuda(source).cubin)
    return sass_memory_ops(sass), len(re.findall(r"\bSHFL\.DOWN\b", sass))


@pytest.mark.parametrize("tile", list(ab_sources.TILES))
def test_eshfl_replaces_only_the_fallback_stores(tile: str) -> None:
    emitted = br.lowered(ab_sources.TILES[tile], False)[0]
    text = forms.source("eshfl", ab_sources.TILES[tile])
    aligned = emitted[emitted.index("if (aligned_1) {"):emitted.index("} else {", emitted.index(
        "if (aligned_1) {"))]
    assert aligned in text  # the aligned stores are the emitted ones
    kernel = emitted.index('extern "C"')
    assert emitted[kernel:emitted.index("const long long tid_1")] in text  # so are the loads
    assert "tmp[" not in text[text.index("if (aligned_1) {"):]
    if tile == "32x256":
        ops, shuffles = _sass_ops(text)
        assert shuffles >= 3 and not any(op.startswith(("LDL", "STL")) for op in ops)
    oracle = forms.source("oeshfl", ab_sources.TILES[tile])
    assert "__shfl_down_sync" not in oracle and oracle.replace("return v;", "") == \
        text.replace("return __shfl_down_sync(0xffffffffu, v, 1);", "")
