"""``tma_plan``: the tensor map of a global -> shared copy and its refusals; the swizzle modes
checked against a numpy model of TMA's byte-address swizzle."""

from __future__ import annotations

import numpy as np
import pytest

from regcopy_dialect.index_math import INT_MATH

from regcopy_dialect.layout import Affine, Iter, Layout, Sliced, Swizzle, slice_region
from regcopy_dialect.radix import swizzle
from regcopy_passes.tma.plan import (
    SwizzleMode,
    TmaPlan,
    TmaRequest,
    plan_tma,
    swizzle_mode,
    tma_swizzle,
)

MODES = (SwizzleMode.B32, SwizzleMode.B64, SwizzleMode.B128)


def tma_model(addr: np.ndarray, span: int) -> np.ndarray:
    """TMA's shared-memory swizzle as the hardware documents it, on byte addresses: the
    16-byte chunk index within a ``span``-byte row (bits 4..) is XORed with the row index
    modulo ``span / 16`` taken from bits 7.. (the pattern of 128-byte rows)."""
    if span == 0:
        return addr
    chunks = span // 16
    chunk = (addr >> 4) % chunks
    row = (addr >> 7) % chunks
    return addr - (chunk << 4) + ((chunk ^ row) << 4)


def regcopy_bytes(swz: Swizzle | None, addr: np.ndarray, e: int) -> np.ndarray:
    """Byte address of the element at byte ``addr`` under regcopy's element-offset swizzle."""
    elems, within = addr // e, addr % e
    phys = swizzle(INT_MATH, elems, swz) if swz else elems  # the one definition, on arrays
    return phys * e + within


ADDR = np.arange(0, 4096)


@pytest.mark.parametrize("e", [1, 2, 4, 8])
@pytest.mark.parametrize("mode", MODES)
def test_tma_swizzle_equals_the_model(e: int, mode: SwizzleMode) -> None:
    swz = tma_swizzle(mode, e)
    np.testing.assert_array_equal(regcopy_bytes(swz, ADDR, e), tma_model(ADDR, int(mode)))
    assert swizzle_mode(swz, e) is mode


def test_f16_128b_is_the_warpgroup_tile_swizzle() -> None:
    assert tma_swizzle(SwizzleMode.B128, 2) == Swizzle(3, 3, 3)
    assert tma_swizzle(SwizzleMode.B64, 4) == Swizzle(2, 2, 3)
    assert tma_swizzle(SwizzleMode.NONE, 2) is None


@pytest.mark.parametrize("e", [1, 2, 4, 8])
def test_swizzle_mode_accepts_exactly_the_model_matches(e: int) -> None:
    """Every small swizzle<M,B,S>: accepted iff it equals some TMA mode on all addresses."""
    for m in range(0, 5):
        for b in range(1, 4):
            for s in range(1, 6):
                swz = Swizzle(m, b, s)
                ours = regcopy_bytes(swz, ADDR, e)
                match = [md for md in MODES if np.array_equal(ours, tma_model(ADDR, int(md)))]
                got = swizzle_mode(swz, e)
                if match:
                    assert got is match[0], swz
                else:
                    assert isinstance(got, str) and got.startswith("layout is not a TMA swizzle")


def shared_tile(shape: tuple[int, ...], swz: Swizzle | None = None,
                offsets: tuple[object, ...] | None = None,
                sizes: tuple[int, ...] | None = None) -> Sliced:
    strides, acc = [], 1
    for ext in reversed(shape):
        strides.insert(0, acc)
        acc *= ext
    lay = Layout(tuple(Iter(x, s) for x, s in zip(shape, strides)), swz)
    return slice_region(lay, shape, offsets or (0,) * len(shape), sizes or shape)


SWIZZLE_128B = Swizzle(3, 3, 3)


def request(shape=(1000, 512), box=(128, 64), bits=16, swz=SWIZZLE_128B, **kw) -> TmaRequest:
    return TmaRequest(bits, shape, box, kw.pop("shared", shared_tile(box, swz)), **kw)


def test_plan_of_a_128b_swizzled_f16_tile() -> None:
    plan = plan_tma(request())
    assert isinstance(plan, TmaPlan)
    assert plan.rank == 2 and plan.box_dims == (64, 128) and plan.global_dims == (512, 1000)
    assert plan.global_strides == (1024,)
    assert plan.swizzle is SwizzleMode.B128 and plan.shared_alignment == 1024
    assert plan.box_bytes == 128 * 64 * 2 and plan.data_type == "CU_TENSOR_MAP_DATA_TYPE_UINT16"
    assert plan.coordinates(("r", "c")) == ("c", "r")
    assert plan.describe() == ("TMA box 128x64 of 1000x512 (16384 bytes, swizzle 128B, "
                               "shared aligned to 1024)")


def test_dynamic_extents_with_promises() -> None:
    plan = plan_tma(request(shape=(None, None), global_divisibility=(1, 8)))
    assert isinstance(plan, TmaPlan)
    assert plan.global_dims == (None, None) and plan.global_strides == (None,)
    problem = plan_tma(request(shape=(None, None)))
    assert problem == ("global stride not a multiple of 16 bytes: dim 0 steps a runtime extent "
                       "product only provably a multiple of 2 bytes (promise "
                       "regcopy.divisibility on the dynamic dims)")


def test_three_d_ring_slot_with_dynamic_stage() -> None:
    ring = shared_tile((3, 64, 64), Swizzle(3, 3, 3), ("s", 0, 0), (1, 64, 64))
    plan = plan_tma(TmaRequest(16, (4, 256, 256), (1, 64, 64), ring,
                               ring.base.divisibility({"s": 1})))
    assert isinstance(plan, TmaPlan) and plan.box_dims == (64, 64, 1)
    assert plan.global_strides == (512, 512 * 256)


@pytest.mark.parametrize("req, reason", [
    (request(bits=4), "element type of 4 bits"),
    (request(shape=(8,) * 6, box=(1,) * 5 + (8,), swz=None), "rank 6"),
    (request(box=(300, 64)), "box extent 300 on dim 0"),
    (request(box=(64, 4), swz=None), "box inner extent 4 is 8 bytes, not a multiple of 16"),
    (request(shape=(100, 100), box=(8, 64)), "global stride not a multiple of 16 bytes: dim 0 "
                                             "steps 200 bytes"),
    (request(shared=shared_tile((128, 72), None, (0, 0), (128, 64))),
     "shared region is not a dense row-major box"),
    (request(swz=Swizzle(3, 3, 4)), "layout is not a TMA swizzle: swizzle<3,3,4>"),
    (request(box=(128, 32)), "box inner extent 32 is 64 bytes; the 128B swizzle needs rows of "
                             "exactly 128 bytes (64 elements)"),
    (request(shared=Sliced(shared_tile((128, 64), Swizzle(3, 3, 3)).layout, Affine(0, (("o", 1),))),
             shared_base_divisibility=256),
     "shared destination offset is only provably a multiple of 512 bytes; TMA with swizzle "
     "128B needs 1024"),
])
def test_refusals(req: TmaRequest, reason: str) -> None:
    got = plan_tma(req)
    assert isinstance(got, str) and got.startswith(reason), got


def test_64b_swizzle_for_f32_rows_of_16() -> None:
    plan = plan_tma(request(shape=(64, 64), box=(32, 16), bits=32, swz=Swizzle(2, 2, 3)))
    assert isinstance(plan, TmaPlan) and plan.swizzle is SwizzleMode.B64
    assert plan.shared_alignment == 512
