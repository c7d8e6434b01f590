"""Shared test helpers for the bank model and lane rotation: plan a copy from a ``CopyCase``
exactly as ``LowerRegCopyPattern`` does, and the seed / swizzled cases of issue 8."""

from __future__ import annotations

from copy_harness import CopyCase, Side, parse
from regcopy_dialect.regcopy import CopyOp
from regcopy_passes.core.dispatch import Accepted
from regcopy_passes.lower_reg_copy import plan_for
from regcopy_passes.core.planning import CopyPlan


def planned(case: CopyCase, r_to_s: bool = False, max_vector_bits: int = 128
            ) -> tuple[Accepted, CopyPlan]:
    """The accepted copy and its plan, as the pass computes them."""
    op = next(o for o in parse(case.kernel_text(r_to_s)).walk() if isinstance(o, CopyOp))
    lp = plan_for(op, max_vector_bits)
    return lp.acc, lp.copy


def seed(dtype: str, k: int, space: str = "shared") -> CopyCase:
    """The seed table's warp copy: R ``(32,k):(1@laneid,1)``, S ``[32,k]``."""
    return CopyCase(Side((32, k), "local", f"(32,{k}):(1@laneid,1)"), Side((32, k), space),
                    dtype)


def seed_cta(dtype: str, k: int) -> CopyCase:
    """The benchmark's 256-thread form: R ``(8,32,k):(1@warpid,1@laneid,1)``, S ``[256,k]``."""
    return CopyCase(Side((8, 32, k), "local", f"(8,32,{k}):(1@warpid,1@laneid,1)"),
                    Side((8, 32, k), "shared"), dtype, scope="cta", block=256)


def swizzled_wg(swizzle: bool = True) -> CopyCase:
    """Warpgroup f16: R ``(128,64):(1@tid_in_wg,1)``, S ``[128,64]`` swizzle<3,3,3> (or not)."""
    lay = "(128,64):(64,1), swizzle<3,3,3>" if swizzle else None
    return CopyCase(Side((128, 64), "local", "(128,64):(1@tid_in_wg,1)"),
                    Side((128, 64), "shared", lay), "f16", scope="warpgroup", block=128)


def pitch65() -> CopyCase:
    """f32 rows of 64 padded to a pitch of 65: R ``(32,64):(1@laneid,1)`` (32-bit accesses)."""
    return CopyCase(Side((32, 64), "local", "(32,64):(1@laneid,1)"),
                    Side((32, 65), "shared", None, (0, 0), (32, 64)), "f32")
