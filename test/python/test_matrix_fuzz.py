"""Soundness of ``plan_matrix`` on random register layouts: whenever it returns a transfer,
the PTX instructions it describes (``matrix_cases.simulate``) move exactly the elements the
layouts place (``copy_harness.placement``), in both directions.

A random layout is an MMA fragment's binary digits with up to two strides swapped, with a
random element type, S row pitch and column offset, so that plain, transposed, misaligned and
non-matrix maps all occur; the test also asserts that each kind is actually met.
"""

from __future__ import annotations

import random
from collections import Counter

from copy_harness import CopyCase, Side
from matrix_cases import expected, planned, simulate

TEMPLATES: dict[str, tuple[int, list[str]]] = {
    # tile columns; strides of the binary digits (rows' most significant first, then columns')
    "A": (16, ["2", "16@laneid", "8@laneid", "4@laneid", "4", "2@laneid", "1@laneid", "1"]),
    "B K x N": (16, ["2", "2@laneid", "1@laneid", "1", "4", "16@laneid", "8@laneid",
                     "4@laneid"]),
    "A i8": (32, ["4", "16@laneid", "8@laneid", "4@laneid", "8", "2@laneid", "1@laneid", "2",
                  "1"]),
}
"""MMA fragments as binary digits (``matrix_cases``' A, two B tiles, A of 8-bit integers)."""


def random_case(rng: random.Random) -> CopyCase:
    """A fragment template with some strides swapped (or none), one of its element types, a
    random S row pitch and column offset."""
    name = rng.choice(list(TEMPLATES))
    cols, strides = TEMPLATES[name][0], list(TEMPLATES[name][1])
    for _ in range(rng.choice([0, 0, 1, 1, 2])):
        i, j = rng.sample(range(len(strides)), 2)
        strides[i], strides[j] = strides[j], strides[i]
    dtype = "i8" if cols == 32 else rng.choice(["f16", "bf16", "f16", "i16", "f32"])
    layout = f"({','.join(['2'] * len(strides))}):({','.join(strides)})"
    pitch = cols + rng.choice([0, 0, 0, 8, 4, 16])
    col0 = rng.choice([c for c in (0, 0, 0, 2, 4, 8) if c <= pitch - cols])
    s = Side((16, pitch), "shared", None, (0, col0), (16, cols))
    return CopyCase(Side((16, cols), "local", layout), s, dtype, "warp", 32)


def test_random_layouts() -> None:
    rng = random.Random(20261201)
    seen: Counter[str] = Counter()
    for _ in range(150):
        case = random_case(rng)
        for r_to_s in (False, True):
            acc, plan, transfer = planned(case, r_to_s)
            if isinstance(transfer, str):
                seen[transfer.split(":")[0].split(";")[0]] += 1
                continue
            seen["trans" if transfer.trans else "plain"] += 1
            assert simulate(transfer, case, acc.s.base.const, plan.swizzle) == expected(case), \
                (case, transfer)
    assert seen["plain"] and seen["trans"], seen
    assert seen["not 8x8 b16 matrices"], seen
    assert any(k.startswith("the S slice base") or k.startswith("row ") for k in seen), seen
