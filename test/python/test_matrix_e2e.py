"""ld/stmatrix end to end without a GPU: the fragment copies of test/gpu/kernels/ldmatrix_*
lowered by the pass with ``transfer=matrix`` (ld/stmatrix wherever ``plan_matrix`` applies), printed by ``-t cuda`` (inline PTX from ``cuda_matrix``),
compiled with NVRTC for sm_90: the SASS holds
exactly the planned LDSM/STSM variants, no LDL/STL, and, against the per-thread lowering of
the same kernel, exactly one plain shared access a round fewer for each replaced copy. The
cases' kernels, in both lowerings, are compiled and disassembled together (``sass_batch``: one
NVRTC compile and one nvdisasm run for the module, each kernel's SASS cut out of the listing)."""

from __future__ import annotations

import re
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
from cases import GpuCase  # noqa: E402
from ldmatrix_cases import LDMATRIX_CASES, MATRIX_KINDS  # noqa: E402

from copy_harness import lower, parse  # noqa: E402
from regcopy_backend.cuda.printer import print_cuda  # noqa: E402
from regcopy_dialect.regcopy import CopyOp  # noqa: E402
from regcopy_passes.lower_reg_copy import plan_for  # noqa: E402

from sass_batch import batched_sass  # noqa: E402
from regcopy_passes.reg_copy.matrix_plan import MatrixTransfer  # noqa: E402
from regcopy_passes.core.planning import CopyPlan  # noqa: E402


def lower_with_matrix(text: str) -> tuple[str, list[MatrixTransfer], list[CopyPlan]]:
    """The CUDA source of ``text`` as the pass lowers it with ``transfer=matrix`` (ld/stmatrix
    wherever they apply), and the matrix transfers (with their per-thread plans)."""
    transfers: list[MatrixTransfer] = []
    plans: list[CopyPlan] = []
    for op in [o for o in parse(text).walk() if isinstance(o, CopyOp)]:
        lp = plan_for(op, transfer="matrix")
        if isinstance(lp.transfer, MatrixTransfer):
            transfers.append(lp.transfer)
            plans.append(lp.copy)
    return print_cuda(lower(text, transfer="matrix")), transfers, plans


GEMM_TILES = REPO / "examples" / "gemm_tiles.mlir"


def opcodes(sass: str) -> Counter[str]:
    return Counter(re.findall(r"^\s+/\*[0-9a-f]+\*/\s+(?:@!?P\w+\s+)?([A-Z][A-Z0-9_.]*)", sass,
                              re.M))


@cache
def _lowered(path: Path) -> tuple[str, list[MatrixTransfer], list[CopyPlan]]:
    return lower_with_matrix(path.read_text())


@cache
def _all_sass_ops() -> dict[tuple[Path, str], Counter[str]]:
    """The SASS opcodes of every case (and examples/gemm_tiles.mlir) lowered with
    ``transfer=matrix`` and, for the cases, with ``transfer=vector``: ``{(path, transfer):
    counts}``, from one compile and one disassembly."""
    sources = {(case.path, "matrix"): _lowered(case.path)[0] for case in LDMATRIX_CASES}
    sources.update({(case.path, "vector"): print_cuda(lower(case.path.read_text(),
                                                           transfer="vector"))
                    for case in LDMATRIX_CASES})
    sources[GEMM_TILES, "matrix"] = _lowered(GEMM_TILES)[0]
    listings = batched_sass(list(sources.values()))
    return {key: sum((opcodes(sass) for sass in parts.values()), Counter())
            for key, parts in zip(sources, listings, strict=True)}


def sass_ops(path: Path, transfer: str = "matrix") -> Counter[str]:
    """The SASS opcodes of the kernels of ``path`` lowered with ``transfer``."""
    return _all_sass_ops()[path, transfer]


def sass_name(mnemonic: str) -> str:
    """``ldmatrix.x4.trans`` -> ``LDSM.16.MT88.4``."""
    kind, count, *trans = mnemonic.split(".")
    n = count[1:]
    return (f"{'LDSM' if kind == 'ldmatrix' else 'STSM'}.16.{'MT88' if trans else 'M88'}"
            + ("" if n == "1" else f".{n}"))


@pytest.mark.parametrize("case", LDMATRIX_CASES, ids=lambda c: c.name)
def test_matrix_sass(case: GpuCase) -> None:
    source, transfers, plans = _lowered(case.path)
    ops = sass_ops(case.path)
    want: Counter[str] = Counter()
    for t in transfers:
        for op in t.ops:
            want[sass_name(t.mnemonic(op.count))] += 1
    assert [t.mnemonic(t.ops[0].count) for t in transfers] == \
        [k for k in MATRIX_KINDS[case.name] if k is not None]
    got = Counter({name: c for name, c in ops.items() if name.startswith(("LDSM", "STSM"))})
    assert got == want
    assert not any(name.startswith(("LDL", "STL")) for name in ops), ops
    # the replaced copies' per-thread shared accesses (one a round) are gone, nothing else
    vector = sass_ops(case.path, "vector")
    rounds = sum(t_plan.rounds for t_plan in plans)
    assert plain_shared(vector) - plain_shared(ops) == rounds
    assert (rounds > 0) == ("asm volatile(" in source)


def plain_shared(ops: Counter[str]) -> int:
    """Shared loads and stores other than LDSM/STSM."""
    return sum(c for name, c in ops.items()
               if name.split(".")[0] in ("LDS", "STS"))


def test_gemm_tiles_fragments() -> None:
    """examples/gemm_tiles.mlir: the warp's A (64 x 64) and B (32 x 64) fragment loads from
    the swizzled 3-stage ring in dynamic shared memory (slice base ``8192 * stage + 64 * am``)
    become 16 + 8 ``ldmatrix.x4`` a K tile instead of 64 + 32 32-bit loads; the cta-scope
    stores into the ring stay 128-bit vectors (a thread's 16 bytes are one row, not a matrix)."""
    _, transfers, plans = _lowered(GEMM_TILES)
    assert [(t.kind, t.instructions) for t in transfers] == [("ldmatrix", 16), ("ldmatrix", 8)]
    assert [p.rounds for p in plans] == [64, 32]
    ops = sass_ops(GEMM_TILES)
    ldsm = ops["LDSM.16.M88.4"]
    assert ldsm > 0 and ldsm % 24 == 0, ops  # the K loop may be unrolled
    assert not any(name.startswith(("LDL", "STL", "STSM")) for name in ops), ops
