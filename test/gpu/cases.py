"""The GPU test cases: kernels under test/gpu/kernels/ (and examples/cta_tile.mlir,
examples/gemm_tiles.mlir), their
numpy expectations from the copy semantics, and the lowering plan each copy must get.

Used by test/gpu/run_all.py (the whole GPU run, one table) and test/python/test_gpu.py (pytest).
Needs numpy, xdsl, cuda-core/cuda-bindings and regcopy installed (``pip install -e .``;
test/gpu/device_run.sh installs it on the GPU machine). pytest finds this module through
``pythonpath`` in pyproject.toml; run_all.py, next to it, imports it directly.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[2]
KERNELS = REPO / "test" / "gpu" / "kernels"
EXAMPLES = REPO / "examples"
Arrays = list[np.ndarray]


@dataclass(frozen=True)
class GpuCase:
    """One kernel file, what its buffers must hold afterwards, and the expected plan."""

    name: str
    path: Path
    expect: Callable[[Arrays], dict[int, np.ndarray]]  # initial arrays -> changed buffers
    plan: tuple[tuple[int | str, int], ...]
    """Per copy, in IR order: ``(vector elements, rounds)``, or ``(mnemonic, instructions)``
    for a warp-collective transfer (``("ldmatrix.x4", 16)``)."""
    may_reject: bool = False  # where TIRx mis-lowers: lowered correctly *or rejected with a reason*
    offsets: tuple[int, ...] | None = None  # byte offsets of the pointers (alignment test)


def _seed(t: str, k: int, vec: int, rounds: int) -> GpuCase:
    return GpuCase(f"seed_{t}_k{k}", KERNELS / f"seed_{t}_k{k}.mlir",
                   lambda a: {1: a[0], 2: a[0]}, ((vec, rounds), (vec, rounds)))


def _sliced(a: Arrays) -> dict[int, np.ndarray]:
    out = a[1].copy()
    out[:, 2:10] = a[0][:, 2:10]
    return {1: out, 2: a[0][:, 2:10]}


def _thread_3d(a: Arrays) -> dict[int, np.ndarray]:
    out = a[1].copy()
    out[3, 8:16, 8:16] = a[0][3, 8:16, 8:16]
    return {1: out, 2: np.broadcast_to(a[0][3, 8:16, 8:16], a[2].shape)}


def _b4(a: Arrays) -> dict[int, np.ndarray]:
    out = a[0].copy()
    out[:16] = a[1][:16]
    return {2: out}


def _replicated(a: Arrays) -> dict[int, np.ndarray]:
    """replicated: every thread's copy of row tid % 16 (load fills every replica), and the
    store writes once, from replica 0 (warp 0, lanes 0..15)."""
    return {2: a[0][np.arange(64) % 16], 3: a[1][:16]}


def _replicated_region(a: Arrays) -> dict[int, np.ndarray]:
    """replicated_region: rows 8..23 of every replica loaded, the rest kept; rows 16..31 of
    replica 0 (warp 0) stored once."""
    r = np.arange(128) % 32
    out = a[3].copy()
    out[:16] = a[1][16:32]
    return {2: np.where(((r >= 8) & (r < 24))[:, None], a[0][r], a[1]), 3: out}


def _reversed_blocks(a: Arrays) -> dict[int, np.ndarray]:
    """shared_dyn_192k: out[32b + i] = in[32(11 - b) + i]."""
    return {1: a[0].reshape(12, 32, 128)[::-1].reshape(384, 128)}


def mma_fragments(a: np.ndarray, b: np.ndarray, grid_m: int, grid_n: int, k_tiles: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """What examples/gemm_tiles.mlir writes to ``fragA``/``fragB``, straight from the
    PTX ISA's mma.m16n8k16 f16 fragment tables (not from the kernel's layouts).

    CTA (y, x), K tile t, thread = 32 warp + lane (warp = 4 wm + wn; g = lane / 4,
    c = lane % 4). A register 32 mi + 8 ki + r (r = 4 kh + 2 h + p) holds
    A[128 y + 64 wm + 16 mi + g + 8 h, 64 t + 16 ki + 2 c + 8 kh + p]; B register
    16 ni + 4 ki + r (r = 2 kh + p) holds B[128 x + 32 wn + 8 ni + g, 64 t + 16 ki + 2 c + 8 kh + p]
    (B is N x K row-major)."""
    y, x, t, tid = np.ix_(range(grid_m), range(grid_n), range(k_tiles), range(256))
    warp, lane = tid // 32, tid % 32
    g, c = lane // 4, lane % 4
    y, x, t, warp, g, c = (v[..., None] for v in (y, x, t, warp, g, c))
    reg = np.arange(128)
    mi, ki, r = reg // 32, (reg // 8) % 4, reg % 8
    h, p, kh = (r >> 1) & 1, r & 1, r >> 2
    rows = 128 * y + 64 * (warp // 4) + 16 * mi + g + 8 * h
    cols = 64 * t + 16 * ki + 2 * c + 8 * kh + p
    frag_a = a[rows, cols]
    reg = np.arange(64)
    ni, ki, r = reg // 16, (reg // 4) % 4, reg % 4
    p, kh = r & 1, r >> 1
    n = 128 * x + 32 * (warp % 4) + 8 * ni + g
    k = 64 * t + 16 * ki + 2 * c + 8 * kh + p
    frag_b = b[n, k]
    # A fragments do not depend on the CTA's column x, B fragments not on its row y: broadcast
    # both over the whole grid
    shape = (grid_m, grid_n, k_tiles, 256)
    return (np.broadcast_to(frag_a, (*shape, 128)).copy(),
            np.broadcast_to(frag_b, (*shape, 64)).copy())


def _gemm(a: Arrays) -> dict[int, np.ndarray]:
    grid_m, grid_n, k_tiles = a[2].shape[:3]
    frag_a, frag_b = mma_fragments(a[0], a[1], grid_m, grid_n, k_tiles)
    return {2: frag_a, 3: frag_b}


GEMM = KERNELS / "gemm_tiles_static.mlir"
"""examples/gemm_tiles.mlir on static 256 x 256 shapes (the harness makes arrays from types)."""
GEMM_PLAN = ((8, 16), (8, 16), (8, 16), (8, 16), ("ldmatrix.x4", 16), ("ldmatrix.x4", 8),
             (8, 64), (8, 32))
"""gemm_tiles, per vector.load in IR order (rounds x 4 K tiles): A and B global -> registers
(128-bit, once the divisibility analysis follows the K-loop IV), registers -> shared (128-bit),
shared -> the A and B fragments (32-bit: a fragment's register pairs are 4 bytes apart in
K), and the two loops writing the fragments out."""


VECTOR_ARITH = EXAMPLES / "vector_arith.mlir"


def vector_arith_expected(a: Arrays) -> dict[int, np.ndarray]:
    """What examples/vector_arith.mlir writes (buffers A, B, N, H, F, I, D), by numpy: f32
    operations in float32 (each rounded once), i32 ones wrapping, the bitcasts as views of
    the little-endian bytes."""
    A, B, N, H = a[0], a[1], a[2].astype(np.int32), a[3]
    ab = A * B
    F = (ab + A) - B
    with np.errstate(over="ignore"):
        m = (N + H.view("<i4")) * N
    I = (m - ab.view("<i4")) ^ N
    quads = N.reshape(32, 4, 4)
    D = (quads[:, :, :2] - quads[:, :, 2:]).reshape(32, 8)
    return {4: F, 5: I, 6: D}


CASES: tuple[GpuCase, ...] = (
    _seed("f32", 8, 4, 2),
    _seed("f32", 16, 4, 4),
    _seed("f16", 8, 8, 1),
    _seed("f16", 16, 8, 2),
    GpuCase("worked_thread_3d", KERNELS / "worked_thread_3d.mlir", _thread_3d, ((8, 8), (8, 8))),
    GpuCase("worked_sliced_cols", KERNELS / "worked_sliced_cols.mlir", _sliced,
            ((2, 4), (2, 4))),
    GpuCase("worked_wg_swizzle", KERNELS / "worked_wg_swizzle.mlir",
            lambda a: {1: a[0], 2: a[0]}, ((8, 8), (8, 8))),
    GpuCase("b1_misaligned", KERNELS / "b1_misaligned.mlir",
            lambda a: {1: a[0][:, :8], 2: a[0][:, :8]}, ((2, 4), (4, 2)), may_reject=True),
    GpuCase("b2_register_gaps", KERNELS / "b2_register_gaps.mlir",
            lambda a: {1: a[0], 2: a[0]}, ((1, 8), (1, 8)), may_reject=True),
    GpuCase("b3_thread_stride", KERNELS / "b3_thread_stride.mlir",
            lambda a: {1: a[0], 2: a[0]}, ((4, 2), (4, 2)), may_reject=True),
    GpuCase("b4_partial", KERNELS / "b4_partial.mlir", _b4, ((4, 2),), may_reject=True),
    GpuCase("replicated", KERNELS / "replicated.mlir", _replicated, ((4, 2), (4, 2))),
    GpuCase("replicated_region", KERNELS / "replicated_region.mlir", _replicated_region,
            ((4, 2), (4, 2))),
    GpuCase("cta_tile", EXAMPLES / "cta_tile.mlir", lambda a: {1: a[0]}, ((4, 8), (4, 8))),
)

DYNAMIC_SHARED_CASES: tuple[GpuCase, ...] = (
    GpuCase("shared_dyn_192k", KERNELS / "shared_dyn_192k.mlir", _reversed_blocks,
            ((4, 48), (4, 48), (4, 48), (4, 48))),
    GpuCase("gemm_tiles", GEMM, _gemm, GEMM_PLAN),
)
"""Kernels over 48 KiB of ``shared.dyn`` (they need the CUDA target's ``extern __shared__``
carving and the runner's dynamic shared size). ``ALL_CASES`` is what the GPU run checks."""

ALL_CASES: tuple[GpuCase, ...] = (*CASES, *DYNAMIC_SHARED_CASES)

ALIGNMENT_CASE = GpuCase("align_refusal(cta_tile,B+8B)", EXAMPLES / "cta_tile.mlir",
                         lambda a: {1: a[0]}, ((4, 8), (4, 8)), offsets=(8, 0))
"""cta_tile reads B with 16-byte vectors: handing it ``B + 8 bytes`` must be refused before
the launch (AlignmentError), never a misaligned-address fault."""


# ---- analysis of the lowered IR and of the PTX/SASS ----------------------------------------


def lowering_plan(module: Any) -> list[tuple[int | str, int]]:
    """Every copy's transfers in IR order: ``(vector elements, rounds)`` of its loads, rounds
    being the trip count product of the enclosing constant ``scf.for`` loops of its
    ``vector.load`` or, for lane-rotated (unrolled) rounds, the number of consecutive loads
    from one storage; ``(mnemonic, instructions)`` for consecutive ld/stmatrix ops of one
    kind on one shared storage."""
    from xdsl.dialects import arith, scf, vector

    from regcopy_dialect.matrix_ops import MatrixOpBase

    def const(v: Any) -> int | None:
        owner = v.owner
        if isinstance(owner, arith.ConstantOp):
            return owner.value.value.data  # type: ignore[union-attr]
        return None

    plan: list[tuple[int | str, int]] = []
    last: tuple[Any, ...] | None = None  # (block, storage[, mnemonic]) of the previous op
    for op in module.walk():
        if isinstance(op, MatrixOpBase):
            name = op.name.split(".")[1] + f".x{op.count}" + (".trans" if op.transposed else "")
            key: tuple[Any, ...] = (op.parent_block(), op.shared, name)
            if key == last:
                plan[-1] = (name, int(plan[-1][1]) + 1)
            else:
                plan.append((name, 1))
            last = key
            continue
        if not isinstance(op, vector.LoadOp):
            continue
        key = (op.parent_block(), op.base)
        if key == last:  # lane-rotated rounds: unrolled, one load a round from one storage
            vec, rounds = plan[-1]
            plan[-1] = (vec, rounds + 1)
            continue
        last = key
        rounds, parent = 1, op.parent_op()
        while parent is not None:
            if isinstance(parent, scf.ForOp):
                lb, ub, st = const(parent.lb), const(parent.ub), const(parent.step)
                if lb is not None and ub is not None and st:
                    rounds *= max(0, -(-(ub - lb) // st))
            parent = parent.parent_op()
        plan.append((op.result.type.get_shape()[0], rounds))
    return plan


PTX_VECTOR = re.compile(r"^\s*((?:ld|st)\.(?:shared|global|local)(?:\.nc)?\.v[248]\.\w+|"
                        r"(?:ld|st)matrix\.sync\.aligned\.m8n8\.x[124](?:\.trans)?\.shared\.b16)",
                        re.M)


def ptx_vector_ops(ptx: str) -> Counter[str]:
    """Vector loads/stores and ld/stmatrix in the PTX (``ld.shared.v4.u32``,
    ``ldmatrix.sync.aligned.m8n8.x4.shared.b16`` ...) and how many of each."""
    return Counter(PTX_VECTOR.findall(ptx))


def sass_local_accesses(sass: str) -> int:
    """Number of local-memory instructions (LDL/STL) in the SASS."""
    return len(re.findall(r"\b(?:LDL|STL)\b", sass))


# ---- running a case -------------------------------------------------------------------------


@dataclass
class CaseResult:
    """What one case produced; ``ok`` is the verdict."""

    name: str
    ok: bool
    status: str
    plan: list[tuple[int | str, int]] = field(default_factory=list)
    ptx_ops: Counter[str] = field(default_factory=Counter)
    local_accesses: int | None = None
    """LDL/STL instructions in the SASS; without the SASS (``analyse_case(sass=False)``), the
    kernels that ptxas warns use local memory (0 exactly when the SASS has none)."""
    seconds: float = 0.0
    details: list[str] = field(default_factory=list)


def _bits(a: np.ndarray) -> np.ndarray:
    """A bit-exact view (so that -0.0 != 0.0 and NaN payloads compare)."""
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.itemsize}") if a.dtype.kind == "f" else a


def compare(case: GpuCase, names: list[str], before: Arrays, after: Arrays) -> list[str]:
    """Mismatches between ``after`` and the expectation (unchanged unless ``expect`` says)."""
    expected = [b.copy() for b in before]
    for k, value in case.expect(before).items():
        expected[k] = np.asarray(value).reshape(before[k].shape)
    problems: list[str] = []
    for name, want, got in zip(names, expected, after, strict=True):
        bad = _bits(want) != _bits(got.reshape(want.shape))
        if bad.any():
            first = tuple(int(i) for i in np.argwhere(bad)[0])
            problems.append(f"{name}: {int(bad.sum())} of {bad.size} elements differ, first at "
                            f"{first}: got {got.reshape(want.shape)[first]}, want {want[first]}")
    return problems


def analyse_case(case: GpuCase, sass: bool = True) -> tuple[CaseResult, Any]:
    """Lower, print and compile ``case`` and check its plan and local memory: in its SASS, or
    without ``sass`` by ptxas's warning of a stack frame (``WARN_LOCAL_MEMORY``, the only
    source of LDL/STL; no nvdisasm run); no GPU needed. Returns the result so far and the
    prepared module (None when the case ends here)."""
    from regcopy_backend.cuda.nvrtc import WARN_LOCAL_MEMORY, NvdisasmError, disassemble
    from regcopy_tools.regcopy_run import RunInputError, parse_and_lower, prepare

    text = case.path.read_text()
    options = () if sass else (WARN_LOCAL_MEMORY,)
    try:
        # lowers once; an unlowered copy is an error
        prepared = prepare(text, str(case.path), options=options)
    except RunInputError as e:
        try:  # why: a copy the pass left (allowed for some cases), or another input error
            module = parse_and_lower(text, str(case.path))
        except RunInputError:
            return CaseResult(case.name, False, f"FAIL: {e}"), None
        if any(op.name == "regcopy.copy" for op in module.walk()):
            status = "rejected (allowed)" if case.may_reject else "FAIL: copy left unlowered"
            return CaseResult(case.name, case.may_reject, status), None
        return CaseResult(case.name, False, f"FAIL: {e}"), None
    result = CaseResult(case.name, False, "", plan=lowering_plan(prepared.module),
                        ptx_ops=ptx_vector_ops(prepared.compiled.ptx))
    try:
        result.local_accesses = (sass_local_accesses(disassemble(prepared.compiled.cubin))
                                 if sass else len(prepared.compiled.local_memory))
    except NvdisasmError:
        result.local_accesses = None
    if result.plan != list(case.plan):
        result.details.append(f"plan {result.plan} != expected {list(case.plan)}")
    if result.local_accesses:
        result.details.append(f"{result.local_accesses} LDL/STL in SASS" if sass else
                              f"local memory in {result.local_accesses} kernels (ptxas)")
    if prepared.compiled.warnings:
        result.details.append(f"NVRTC warnings: {prepared.compiled.log}")
    result.ok = not result.details
    result.status = "compiled" if result.ok else "FAIL"
    return result, prepared


def run_case(case: GpuCase, seed: int = 0) -> CaseResult:
    """``analyse_case``, then run on the GPU and compare every buffer with the expectation."""
    result, prepared = analyse_case(case)
    if prepared is None:
        return result
    from regcopy_backend.runtime.runner import AlignmentError, run_kernel
    from regcopy_tools.regcopy_run import random_inputs

    info = prepared.kernels[0]
    before = random_inputs(info, np.random.default_rng(seed))
    try:
        run = run_kernel(prepared.source, info, before, offsets=case.offsets)
    except AlignmentError as e:
        refused = case.offsets is not None
        result.ok = refused and result.ok
        result.status = "OK (refused)" if result.ok else f"FAIL: {e}"
        result.details.append(str(e))
        return result
    result.seconds = run.seconds
    problems = compare(case, [p.name for p in info.buffers], before, run.arrays)
    if case.offsets is not None:
        problems.insert(0, "misaligned launch was not refused")
    result.details.extend(problems)
    result.ok = result.ok and not problems
    result.status = "OK" if result.ok else "FAIL"
    return result
