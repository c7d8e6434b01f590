"""Register layouts that earlier versions over-rejected (issue 9, "Generality"), lowered and
executed thread by thread on the CPU (``copy_harness.check_both``: both directions, compared
with the layout-algebra placement and with the reference semantics of ``regcopy.copy``):

(a) a thread axis that takes one value over the region: a slice pins it (``[5, 0] [1, 3]`` of
    ``(32,3):(1@laneid,1)`` is lane 5's row) or an extent-1 iter does (``1@wgid``); the owner
    is fixed and the other threads are guarded out;
(b) partial coverage with gapped or non-nested thread strides, decoded with ``/`` and ``%``
    and guarded (``(8,2,4):(1@laneid,16@laneid,1)`` rows 0..2: lanes {0,1,2,16,17,18}).

What stays refused is a true replica, or owners no division/remainder decode recovers."""

from __future__ import annotations

import pytest
from copy_harness import CopyCase, Side, check_both, check_copy, rejection_reason, side_layout

from regcopy_dialect.layout import Scope, ownership, slice_region


def _case(r_shape: tuple[int, ...], layout: str, offsets: tuple[int, ...] | None,
          sizes: tuple[int, ...] | None, s_space: str = "shared", scope: str = "warp",
          block: int = 32, dtype: str = "f32") -> CopyCase:
    s_sizes = tuple(z for z in (sizes or r_shape) if z != 1) or (1,)
    return CopyCase(Side(r_shape, "local", layout, offsets, sizes), Side(s_sizes, s_space),
                    dtype, scope, block)


#: name -> (case, owner threads of the scope group)
CASES: dict[str, tuple[CopyCase, set[int]]] = {
    "pinned-lane-5": (_case((32, 3), "(32,3):(1@laneid,1)", (5, 0), (1, 3)), {5}),
    "pinned-lane-5-global": (_case((32, 3), "(32,3):(1@laneid,1)", (5, 0), (1, 3), "global"),
                             {5}),
    "upper-half-lanes": (_case((32, 8), "(32,8):(1@laneid,1)", (16, 0), (16, 8)),
                         set(range(16, 32))),
    "pinned-warp-in-warpgroup": (
        _case((128, 8), "(4,32,8):(1@wid_in_wg,1@laneid,1)", (64, 0), (32, 8),
              scope="warpgroup", block=128), set(range(64, 96))),
    "extent-1-wgid": (_case((128, 4), "(1,128,4):(1@wgid,1@tid_in_wg,1)", None, None,
                            scope="cta", block=256), set(range(128))),
    "pinned-wgid-1": (_case((256, 4), "(2,128,4):(1@wgid,1@tid_in_wg,1)", (128, 0), (128, 4),
                            "global", scope="cta", block=256), set(range(128, 256))),
    "pinned-lanes-in-two-dims": (_case((8, 16), "(8,4,4):(4@laneid,1@laneid,1)", (2, 4),
                                       (3, 8), dtype="f16"), {9, 10, 13, 14, 17, 18}),
    "gapped-rows-0-2": (_case((8, 8), "(8,2,4):(1@laneid,16@laneid,1)", (0, 0), (3, 8)),
                        {0, 1, 2, 16, 17, 18}),
    "gapped-rows-3-5-global": (_case((8, 8), "(8,2,4):(1@laneid,16@laneid,1)", (3, 0), (3, 8),
                                     "global"), {3, 4, 5, 19, 20, 21}),
    "non-nested-strides-3-1": (_case((4, 8), "(2,2,8):(3@laneid,1@laneid,1)", None, None),
                               {0, 1, 3, 4}),
    "gapped-tx": (_case((4, 8), "(4,4,2):(1@tx,32@tx,1)", None, None, "global", scope="cta",
                        block=128, dtype="i8"), {0, 1, 2, 3, 32, 33, 34, 35, 64, 65, 66, 67,
                                                 96, 97, 98, 99}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_over_rejected_family_lowers_correctly(name: str) -> None:
    case, owners = CASES[name]
    s_to_r, r_to_s = check_both(case)
    assert s_to_r.accepted and r_to_s.accepted
    assert s_to_r.guarded and r_to_s.guarded  # some threads of the scope own nothing
    r = case.r
    lay = side_layout(r, case.dtype)
    sliced = slice_region(lay, r.shape, r.offsets or (0,) * len(r.shape), r.region_sizes)
    axes = tuple(dict.fromkeys(i.axis for i in lay.thread_iters if i.axis))
    scope = {"warp": Scope.WARP, "warpgroup": Scope.WARPGROUP, "cta": Scope.CTA}[case.scope]
    own = ownership(sliced.layout, scope, case.block, sliced.thread_base, axes)
    assert (own.fewest, own.most, own.fused_exact) == (1, 1, True)
    assert own.owners == owners


@pytest.mark.parametrize(("r_shape", "layout", "offsets", "sizes", "scope", "block", "reason"), [
    ((32, 8), "(32,8):(1@laneid,1)", (16, 0), (16, 8), "warpgroup", 128,
     "is replicated: 4 threads of the warpgroup own the same element"),
    ((6, 8), "(2,3,8):(5@laneid,3@laneid,1)", None, None, "warp", 32,
     "cannot be decoded from the thread index by division and remainder"),
])
def test_true_replicas_and_undecodable_owners_stay_refused(
        r_shape: tuple[int, ...], layout: str, offsets: tuple[int, ...] | None,
        sizes: tuple[int, ...] | None, scope: str, block: int, reason: str) -> None:
    case = _case(r_shape, layout, offsets, sizes, scope=scope, block=block)
    assert reason in (rejection_reason(case.kernel_text(False)) or "")
    for r_to_s in (False, True):
        assert not check_copy(case, r_to_s, require_accepted=False).accepted
