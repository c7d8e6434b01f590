"""Full width to the edge, in SASS (NVRTC and the disassembler run on the CPU): a ragged f32
tile copy whose row length is promised a multiple of 4 moves only 128-bit vectors; promised a
multiple of 2 (or nothing), it is versioned: 128-bit transfers when the length is a multiple
of 4 at run time, else loads at the proven width and the 128-bit stores realigned (aligned
128- and 64-bit pieces) or shuffled across lanes. And the row-wise example lowers to bounds-checked, versioned
copies and runs exactly on the CPU interpreter for ragged shapes. The kernels read in SASS
are compiled and disassembled together (``sass_batch``)."""

from __future__ import annotations

import re
from collections import Counter
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from regcopy_backend.cuda.printer import print_cuda
from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_tools.regcopy_run import parse_and_lower
from sass_batch import batched_sass

REPO = Path(__file__).resolve().parents[2]
TILE = "memref<8x1024xf32, #regcopy.layout<(8,256,4):(4,1@tx,1)>, #regcopy.mem<local>>"
G = "memref<?x?xf32, #regcopy.mem<global>>"


def ragged_copy(divisor: int) -> str:
    promise = f"{{regcopy.divisibility = array<i64: 1, {divisor}>}}"
    return f"""func.func @ragged(%A: {G} {promise}, %B: {G} {promise}) attributes
    {{regcopy.launch = #regcopy.launch<block = 256, grid = [8]>}} {{
  %R = memref.alloca() : {TILE}
  %bx = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %c8 = arith.constant 8 : index
  %row = arith.muli %bx, %c8 : index
  regcopy.copy cta %A[%row, 0] [8, 1024] -> %R : {G} -> {TILE}
  regcopy.copy cta %R -> %B[%row, 0] [8, 1024] : {TILE} -> {G}
  func.return
}}"""


@cache
def _all_sass() -> dict[str, str]:
    """The SASS of the ragged copy promised a multiple of 4, 2 and 1, and of the row-wise
    kernel with shared memory (``shared``), from one compile and one disassembly."""
    sources = {str(d): print_cuda(parse_and_lower(ragged_copy(d), "ragged.mlir"))
               for d in (4, 2, 1)}
    sources["shared"] = print_cuda(parse_and_lower(rowwise_with_shared(),
                                                   "rowwise_shared.mlir"))
    listings = batched_sass(list(sources.values()))
    return {key: "".join(parts.values()) for key, parts in zip(sources, listings, strict=True)}


def global_accesses(divisor: int) -> Counter[str]:
    return Counter(re.findall(r"\b(?:LDG|STG)\.E(?:\.\d+)?", _all_sass()[str(divisor)]))


def test_ragged_copy_promised_4_moves_only_128_bit_vectors() -> None:
    assert global_accesses(4) == {"LDG.E.128": 8, "STG.E.128": 8}


@pytest.mark.parametrize("divisor", [2, 1])
def test_versioned_ragged_copy_stays_wide_when_misaligned(divisor: int) -> None:
    """Versioned: the aligned path's 8 128-bit loads and stores; the fallback loads at the
    proven width (64-bit for a multiple of 2, 32-bit without a promise) and stores the same
    128-bit vectors: for a multiple of 2 realigned, as aligned 128- and 64-bit pieces (one
    misalignment class); without a promise shuffled across lanes (the cost model's choice
    for a warp along a row: ``test_shuffled``), each lane one aligned 128-bit store and a
    row's first lane its partial vectors as 32-bit pieces."""
    ops = global_accesses(divisor)
    narrow = "LDG.E.64" if divisor == 2 else "LDG.E"
    stores = {"STG.E.128", "STG.E.64"} if divisor == 2 else {"STG.E.128", "STG.E"}
    assert set(ops) == {"LDG.E.128", narrow} | stores
    assert ops["LDG.E.128"] == 8 and ops["STG.E.128"] > 8


def test_rowwise_example_runs_exactly_on_the_cpu() -> None:
    path = REPO / "examples" / "rowwise.mlir"
    module = parse_and_lower(path.read_text(), str(path))
    rng = np.random.default_rng(16)
    for rows, cols in ((5, 130), (3, 7)):
        x = rng.standard_normal((rows, cols)).astype(np.float32)
        _, y = run_on_cpu(module, "rowwise", [x, np.zeros_like(x)], grid=[-(-rows // 4)])
        assert np.array_equal(y, x * np.float32(2) + np.float32(1))


def rowwise_with_shared() -> str:
    """The row-wise example with rows promised a multiple of 4 and each chunk also copied
    to a shared buffer: a kernel with shared memory (no ldmatrix) that stores 128-bit
    vectors into a dynamic buffer."""
    text = (REPO / "examples" / "rowwise.mlir").read_text()
    for name in ("%X", "%Y"):
        text = text.replace(f"{name}: {G}", f"{name}: {G} {{regcopy.divisibility = array<i64: 1, 4>}}")
    tile = "memref<128xf32, #regcopy.layout<(32,4):(1@laneid,1)>, #regcopy.mem<local>>"
    shared = "memref<128xf32, #regcopy.mem<shared>>"
    text = text.replace("  %R = memref.alloca()", f"  %S = memref.alloca() : {shared}\n"
                        "  %R = memref.alloca()", 1)
    return text.replace("    regcopy.copy warp %R -> %Y",
                        f"    regcopy.copy warp %R -> %S : {tile} -> {shared}\n"
                        "    regcopy.copy warp %R -> %Y")


def test_128_bit_stores_stay_whole_in_a_kernel_with_shared_memory() -> None:
    """A 16-byte store into a dynamic buffer is one inline-PTX st.global.v4 in a kernel with
    shared memory too (only ldmatrix/stmatrix kernels keep the C++ store): with the C++
    store, one of this kernel's five STG.E.128 came out as four STG.E."""
    text = rowwise_with_shared()
    assert "%S = memref.alloca()" in text and "array<i64: 1, 4>" in text
    source = print_cuda(parse_and_lower(text, "rowwise_shared.mlir"))
    assert "__shared__" in source and "st.global.v4.b32" in source
    stores = Counter(re.findall(r"\bSTG\.E(?:\.\d+)?", _all_sass()["shared"]))
    assert set(stores) == {"STG.E.128"}, stores
