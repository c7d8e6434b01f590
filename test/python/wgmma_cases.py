"""Kernels and data of the ``regcopy.wgmma`` tests: one warpgroup computes ``Z += X Y``
(``Y`` N x K with ``transpose_b``) on one 64 x N tile, A and B copied into shared with
cp.async (A optionally into registers), integer-valued f16/bf16 data."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mma_cases import encode

C_LAYOUT = "(4,2,8,{t},4,2):(1@wid_in_wg,2,4@laneid,4,1@laneid,1)"


@dataclass(frozen=True)
class Case:
    n: int = 64
    k: int = 32
    t: str = "f16"
    a_regs: bool = False
    transpose_b: bool = True
    b_layout: str = "auto"  # a #regcopy.layout body for the B buffer
    a_layout: str = "auto"

    @property
    def b_shape(self) -> tuple[int, int]:
        return (self.n, self.k) if self.transpose_b else (self.k, self.n)


def _mem(shape: tuple[int, int], t: str, layout: str | None, space: str) -> str:
    lay = f"#regcopy.layout<{layout}>, " if layout else ""
    return f"memref<{shape[0]}x{shape[1]}x{t}, {lay}#regcopy.mem<{space}>>"


def a_register_layout(k: int, t: str = "f16") -> str:
    """The A tile ``64 x k`` in fragment layout, K steps outermost in the registers (k16 of
    mma.sync's m16n8k16 A fragment, or k32 of its m16n8k32 one for 8-bit elements)."""
    if t.startswith("f8"):
        return f"(4,2,8,{k // 32},2,4,4):(1@wid_in_wg,4,4@laneid,16,8,1@laneid,1)"
    return f"(4,2,8,{k // 16},2,4,2):(1@wid_in_wg,2,4@laneid,8,4,1@laneid,1)"


def kernel(case: Case) -> str:
    n, k, t = case.n, case.k, case.t
    gx, gy = _mem((64, k), t, None, "global"), _mem(case.b_shape, t, None, "global")
    gz = _mem((64, n), "f32", None, "global")
    c = _mem((64, n), "f32", C_LAYOUT.format(t=n // 8), "local")
    bs = _mem(case.b_shape, t, case.b_layout, "shared")
    lines = [(f"func.func @g(%X: {gx}, %Y: {gy}, %Z: {gz}) attributes {{regcopy.launch = "
             "#regcopy.launch<block = 128, grid = [1]>} {"),
             f"  %Bs = memref.alloca() : {bs}",
             f"  %C = memref.alloca() : {c}",
             f"  regcopy.copy warpgroup %Z -> %C : {gz} -> {c}",
             f"  %t2 = regcopy.copy_async cta %Y -> %Bs : {gy} -> {bs}"]
    if case.a_regs:
        a = _mem((64, k), t, a_register_layout(k, t), "local")
        lines += [f"  %A = memref.alloca() : {a}",
                  f"  regcopy.copy warpgroup %X -> %A : {gx} -> {a}",
                  "  %g = regcopy.async_group %t2"]
        a_operand, ta = "%A", a
    else:
        a = _mem((64, k), t, case.a_layout, "shared")
        lines += [f"  %As = memref.alloca() : {a}",
                  f"  %t1 = regcopy.copy_async cta %X -> %As : {gx} -> {a}",
                  "  %g = regcopy.async_group %t1, %t2"]
        a_operand, ta = f"%As[0, 0] [64, {k}]", a
    attrs = " {transpose_b}" if case.transpose_b else ""
    lines += ["  regcopy.async_wait %g {pending = 0 : i64}",
              '  "gpu.barrier"() : () -> ()',
              (f"  regcopy.wgmma warpgroup {a_operand}, %Bs[0, 0] [{case.b_shape[0]}, "
              f"{case.b_shape[1]}], %C{attrs} : {ta}, {bs}, {c}"),
              f"  regcopy.copy warpgroup %C -> %Z : {c} -> {gz}",
              "  func.return", "}"]
    return "\n".join(lines) + "\n"


def host(values: np.ndarray, t: str) -> np.ndarray:
    """Small integers as host data of element type ``t`` (raw bits for bf16 and fp8)."""
    return encode(values, t)


def data(case: Case, seed: int = 0) -> tuple[list[np.ndarray], np.ndarray]:
    """``([X, Y, Z], expected Z)``."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-3, 4, (64, case.k)).astype(np.float64)
    y = rng.integers(-3, 4, case.b_shape).astype(np.float64)
    z = rng.integers(-8, 9, (64, case.n)).astype(np.float64)
    want = z + x @ (y.T if case.transpose_b else y)
    return [host(x, case.t), host(y, case.t), z.astype(np.float32)], want
