"""Shared by the ldmatrix/stmatrix tests: MMA fragment copies as ``CopyCase``s, planning them
like the pass, and an independent simulation of the PTX instructions.

Fragment layouts (PTX ISA, ``mma.m16n8k16``; ``g = lane / 4``, ``c = lane % 4``):

* A (16 x 16, f16/bf16): ``a{2h+p} = A[g + 8h][2c + p]``, ``a{4+2h+p} = A[g + 8h][2c + 8 + p]``;
* B (16 x 8, K x N): ``b{p} = B[2c + p][g]``, ``b{2+p} = B[2c + 8 + p][g]``;
* C/D (16 x 8, f16/bf16): ``c{2h+p} = C[g + 8h][2c + p]``; f32: the same, one element a
  32-bit register;
* ``mma.m16n8k32`` A of 8-bit integers (16 x 32): ``a{4j+i} = A[g + 8h][16q + 4c + i]``,
  ``j = 2q + h``.
"""

from __future__ import annotations

from collections.abc import Sequence

from copy_harness import CopyCase, Side, parse, placement
from regcopy_dialect.layout import Swizzle
from regcopy_dialect.regcopy import CopyOp
from regcopy_passes.core.dispatch import Accepted
from regcopy_passes.lower_reg_copy import plan_for
from regcopy_passes.reg_copy.matrix_plan import MatrixTransfer, plan_matrix
from regcopy_passes.core.planning import CopyPlan

A_16x16 = "(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)"
"""m16n8k16 A on a 16 x 16 (M x K) tile; also the C/D of two n8 tiles (16 x 16)."""
A_64x64 = "(4,2,8,4,2,4,2):(32,2,4@laneid,8,4,1@laneid,1)"
"""examples/gemm_tiles.mlir's %FA: 4 x 4 A fragments of a warp's 64 x 64 slice."""
B_KN = "(2,4,2,8):(2,1@laneid,1,4@laneid)"
"""m16n8k16 B on a 16 x 8 (K x N) tile."""
B_NK = "(8,2,4,2):(4@laneid,2,1@laneid,1)"
"""m16n8k16 B on an 8 x 16 (N x K) tile."""
C_16x8 = "(2,8,4,2):(2,4@laneid,1@laneid,1)"
"""m16n8 C/D on a 16 x 8 tile (f16/bf16: two per register; f32: one)."""
A_I8 = "(2,8,2,4,4):(4,4@laneid,8,1@laneid,1)"
"""m16n8k32 A of 8-bit integers on a 16 x 32 tile."""
A_WG = "(4,2,8,2,4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)"
"""A fragments of the 4 warps of a warpgroup, warp w on rows 16w.. of a 64 x 16 tile."""
A_CTA = "(8,2,8,2,4,2):(1@warpid,2,4@laneid,4,1@laneid,1)"
"""The same over the 8 warps of a 256-thread CTA, 128 x 16."""


def frag(r_shape: tuple[int, ...], layout: str, s_shape: tuple[int, ...] | None = None,
         dtype: str = "f16", scope: str = "warp", block: int = 32, space: str = "shared",
         s_layout: str | None = None, offsets: tuple[int, ...] | None = None) -> CopyCase:
    """A fragment ``R`` copied with a (sliced) shared tile ``S``."""
    s = Side(s_shape or r_shape, space, s_layout, offsets, r_shape if offsets else None)
    return CopyCase(Side(r_shape, "local", layout), s, dtype, scope, block)


def planned(case: CopyCase, r_to_s: bool) -> tuple[Accepted, CopyPlan, MatrixTransfer | str]:
    """Accept and plan the case's copy as the pass does, then ``plan_matrix``."""
    op = next(o for o in parse(case.kernel_text(r_to_s)).walk() if isinstance(o, CopyOp))
    _lp = plan_for(op)
    acc, plan = _lp.acc, _lp.copy
    return acc, plan, plan_matrix(acc, plan, case.s.space != "global")


def scope_index(case: CopyCase, tid: int) -> int:
    return {"warp": tid % 32, "warpgroup": tid % 128}.get(case.scope, tid)


def simulate(transfer: MatrixTransfer, case: CopyCase, s_base: int,
             swizzle: Swizzle | None) -> dict[tuple[int, int], int]:
    """``(tid, register slot) -> S element`` that the transfer's instructions move, from the
    PTX ISA: every lane supplies ``swizzle(s_base + address(t))``; lane ``8m + r`` of a warp
    gives the start of row ``r`` (16 contiguous bytes) of matrix ``m``; register word ``m``
    of lane ``l`` is bytes ``[4(l%4), 4(l%4)+4)`` of row ``l/4`` (plain), or (``.trans``)
    its half ``h`` is b16 element ``l/4`` of row ``2(l%4)+h``."""
    eb = transfer.element_bits // 8
    k = 4 // eb

    def lane_address(tid: int, op_index: int) -> int:
        a = s_base + transfer.ops[op_index].address(scope_index(case, tid))
        return swizzle.apply(a) if swizzle is not None else a

    moved: dict[tuple[int, int], int] = {}
    for tid in range(case.block):
        warp0, lane = tid - tid % 32, tid % 32
        for i, op in enumerate(transfer.ops):
            for m, reg in enumerate(op.registers):
                for j in range(k):
                    if transfer.trans:
                        row = lane_address(warp0 + 8 * m + 2 * (lane % 4) + j, i)
                        element = row + lane // 4
                    else:
                        row = lane_address(warp0 + 8 * m + lane // 4, i)
                        element = row + (4 * (lane % 4)) // eb + j
                    key = (tid, reg + j)
                    assert key not in moved, f"register {key} written twice"
                    moved[key] = element
    return moved


def expected(case: CopyCase) -> dict[tuple[int, int], int]:
    """``(tid, register slot) -> S element`` from the layouts (``copy_harness.placement``)."""
    return {(t, e.slot): e.addr for e in placement(case) for t in e.owners}


def counts(transfer: MatrixTransfer) -> Sequence[int]:
    return [op.count for op in transfer.ops]
