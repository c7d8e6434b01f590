"""Replicated register tiles loaded from (and stored to) ragged regions: every replica of an
in-bounds element gets the data, every replica of an out-of-bounds one the padding; a store
writes in-bounds elements once, from replica 0. Checked for every replica layout x bounds
case on the CPU, for the reference semantics (what ``regcopy-run --check`` compares with) and
for the lowered IR, against numpy; on the GPU (marked ``gpu``) against the same expectation."""

from __future__ import annotations

from functools import cache
from itertools import product

import numpy as np
import pytest
from copy_harness import lower, parse
from regcopy_backend.runtime.cpu_run import run_on_cpu
from xdsl.dialects.builtin import ModuleOp

PAD = -1.5
REPLICAS = {
    # name: (replicate clause, block, whether thread t owns row t % 16)
    "none": ("", 32, lambda t: t % 32 < 16),
    "lanes": (", replicate<2:16@laneid>", 32, lambda t: True),
    "warps": (", replicate<2:1@warpid>", 64, lambda t: t % 32 < 16),
    "both": (", replicate<(2,2):(16@laneid,1@warpid)>", 64, lambda t: True),
}
BOUNDS = {"inside": (16, 8), "rows": (11, 8), "cols": (16, 5), "both": (9, 3),
          "larger": (20, 12)}
"""Runtime extents of %in and %out against the 16x8 region at [0, 0]."""


def kernel(replicate: str, block: int) -> str:
    """%in -> R (bounds-checked, padding PAD); owners dump their copy to %all[tid, :]; every
    owner overwrites its copy with %fresh[tid, :]; R -> %out (bounds-checked)."""
    r = (f"memref<16x8xf32, #regcopy.layout<(16,8):(1@laneid,1){replicate}>, "
         "#regcopy.mem<local>>")
    g = "memref<?x?xf32, #regcopy.mem<global>>"
    f = "memref<64x8xf32, #regcopy.mem<global>>"
    return f"""
func.func @rr(%in: {g}, %fresh: {f}, %all: {f}, %out: {g})
    attributes {{regcopy.launch = #regcopy.launch<block = {block}, grid = [1]>}} {{
  %R = memref.alloca() : {r}
  %tid = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %row = arith.remui %tid, %c16 : index
  %lane = arith.remui %tid, %c32 : index
  %low = arith.cmpi ult, %lane, %c16 : index
  %every = arith.constant {"false" if "laneid>" not in replicate and "16@laneid" not in
                           replicate else "true"}
  %own = arith.ori %low, %every : i1
  regcopy.copy cta %in[0, 0] [16, 8] -> %R {{padding = {PAD} : f32}} : {g} -> {r}
  scf.if %own {{
    scf.for %j = %c0 to %c8 step %c1 {{
      %v = memref.load %R[%row, %j] : {r}
      memref.store %v, %all[%tid, %j] : {f}
      %w = memref.load %fresh[%tid, %j] : {f}
      memref.store %w, %R[%row, %j] : {r}
    }}
  }}
  regcopy.copy cta %R -> %out[0, 0] [16, 8] : {r} -> {g}
  func.return
}}"""


def inputs(shape: tuple[int, int]) -> list[np.ndarray]:
    rng = np.random.default_rng(sum(shape))
    x = rng.integers(-99, 99, shape).astype(np.float32)
    fresh = rng.integers(100, 999, (64, 8)).astype(np.float32)
    return [x, fresh, np.full((64, 8), 7.0, np.float32), np.full(shape, 3.0, np.float32)]


def expected(name: str, args: list[np.ndarray]) -> list[np.ndarray]:
    x, fresh, all_, out = (a.copy() for a in args)
    _, block, owns = REPLICAS[name]
    m, n = x.shape
    for t in range(block):
        if owns(t):
            for j in range(8):
                i = t % 16
                all_[t, j] = x[i, j] if i < m and j < n else PAD
    for i, j in product(range(min(m, 16)), range(min(n, 8))):
        out[i, j] = fresh[i, j]  # replica 0 of row i is thread i
    return [x, fresh, all_, out]


CASES = list(product(REPLICAS, BOUNDS))


@cache
def modules(replicas: str) -> tuple[ModuleOp, ModuleOp]:
    """The kernel of ``replicas``, as written (the reference) and lowered."""
    replicate, block, _ = REPLICAS[replicas]
    text = kernel(replicate, block)
    return parse(text), lower(text, strict=True)


@pytest.mark.parametrize(("replicas", "bounds"), CASES)
def test_every_replica_gets_the_data_or_the_padding(replicas: str, bounds: str) -> None:
    args = inputs(BOUNDS[bounds])
    want = expected(replicas, args)
    for label, module in zip(("reference", "lowered"), modules(replicas), strict=True):
        got = run_on_cpu(module, "rr", [a.copy() for a in args])
        for k, name in enumerate(("in", "fresh", "all", "out")):
            assert np.array_equal(got[k], want[k]), f"{label}: %{name}"


@pytest.mark.gpu
@pytest.mark.parametrize(("replicas", "bounds"), CASES)
def test_gpu_equals_the_expectation(replicas: str, bounds: str) -> None:
    from regcopy_backend.cuda.kernel_info import kernel_info, kernels
    from regcopy_backend.cuda.printer import print_cuda
    from regcopy_backend.runtime.runner import gpu_available, run_kernel

    ok, why = gpu_available()
    if not ok:
        pytest.skip(why)
    module = modules(replicas)[1]
    args = inputs(BOUNDS[bounds])
    got = run_kernel(print_cuda(module), kernel_info(kernels(module)[0]), args).arrays
    for k, (g, w) in enumerate(zip(got, expected(replicas, args), strict=True)):
        assert np.array_equal(g, w), ("in", "fresh", "all", "out")[k]
