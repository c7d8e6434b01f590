"""``regcopy-run --arg X=AxB:S`` for a strided buffer (``memref<?x?xT, strided<[?, 1]>>``):
the shape, then after a colon the strides of the leading dims, outermost first, in elements
(``--arg X=1000x4000:4096``: 1000 rows of 4000 elements, 4096 apart; a rank-3 buffer takes
two, ``--arg X=8x100x200:40960,256``). Without the colon, the type's static strides, and
for each ``?`` stride the contiguous one (``E_{d+1} * s_{d+1}``). The host argument is a
numpy view of that stride over random data (the gaps between rows random too)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from regcopy_backend.host_data import random_values
from regcopy_backend.runtime.strided_host import span_size, stride_problem
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType

from regcopy_dialect.strided import layout_strides, stride_text

__all__ = ["parse_strides", "strided_array"]


def parse_strides(t: MemRefType, name: str, spec: str, shape: Sequence[int],
                  divisors: Sequence[int] | None) -> tuple[int, ...]:
    """The element strides the ``--arg`` value ``spec`` (``AxB:S``; without the colon, the
    defaults) gives the strided buffer ``t`` of ``shape``; ``ValueError`` with a one-line
    reason otherwise."""
    text = spec.partition(":")[2].strip()
    declared = layout_strides(t) or ()
    rank = len(shape)
    example = f"--arg {name}={'x'.join(map(str, shape))}:" + ",".join(
        str(4096 if d == 0 else shape[d + 1]) for d in range(rank - 1))
    if text:
        try:
            lead = [int(x, 10) for x in text.split(",")]
        except ValueError:
            raise ValueError(f"--arg {name}={spec}: give the leading strides as integers, "
                             f"e.g. {example}") from None
        if len(lead) != rank - 1:
            raise ValueError(f"--arg {name}={spec}: %{name} is {stride_text(declared)}; "
                             f"give {rank - 1} leading stride{'s' if rank > 2 else ''} "
                             f"(outermost first, in elements), e.g. {example}")
        strides = [*lead, 1]
    else:
        strides = [1] * rank
        for d in range(rank - 2, -1, -1):
            strides[d] = declared[d] if declared[d] != DYNAMIC_INDEX \
                else shape[d + 1] * strides[d + 1]
    if (problem := stride_problem(t, shape, strides, divisors)) is not None:
        raise ValueError(f"--arg {name}={spec}: the view {problem} (%{name} is "
                         f"{stride_text(declared)}; e.g. {example})")
    return tuple(strides)


def strided_array(t: MemRefType, shape: Sequence[int], strides: Sequence[int],
                  rng: np.random.Generator) -> np.ndarray:
    """A view of ``shape`` and element ``strides`` over random values of ``t``'s element type
    (its span: every element and the gaps between rows)."""
    values = random_values(t.element_type, span_size(shape, strides), rng)
    item = values.itemsize
    return np.lib.stride_tricks.as_strided(values, shape=tuple(shape),
                                           strides=tuple(s * item for s in strides))
