"""The Triton tutorial's matmul (``tl.dot``, grouped tile order, autotuned over its usual
configurations): ``bench_gemm``'s Triton column. Triton is imported lazily: without it
``triton_matmul()`` is None and the column is skipped."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def triton_matmul() -> Callable[[Any, Any], Any] | None:
    """The Triton tutorial's autotuned matmul (``tl.dot``), or None without Triton."""
    try:
        import triton
        import triton.language as tl
    except ImportError:
        return None

    configs = [triton.Config({"BM": bm, "BN": bn, "BK": bk, "G": 8}, num_stages=s, num_warps=w)
               for bm, bn, bk, s, w in ((128, 256, 64, 3, 8), (64, 256, 32, 4, 4),
                                        (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
                                        (64, 128, 32, 4, 4), (128, 128, 64, 3, 8))]

    @triton.autotune(configs=configs, key=["M", "N", "K"])
    @triton.jit
    def kernel(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, G: tl.constexpr):
        pid = tl.program_id(0)
        npm, npn = tl.cdiv(M, BM), tl.cdiv(N, BN)
        group = G * npn
        first = (pid // group) * G
        size = min(npm - first, G)
        pm = first + ((pid % group) % size)
        pn = (pid % group) // size
        rm = (pm * BM + tl.arange(0, BM)) % M
        rn = (pn * BN + tl.arange(0, BN)) % N
        rk = tl.arange(0, BK)
        pa = a + rm[:, None] * sam + rk[None, :] * sak
        pb = b + rk[:, None] * sbk + rn[None, :] * sbn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(tl.cdiv(K, BK)):
            x = tl.load(pa, mask=rk[None, :] < K - k * BK, other=0.0)
            y = tl.load(pb, mask=rk[:, None] < K - k * BK, other=0.0)
            acc = tl.dot(x, y, acc)
            pa += BK * sak
            pb += BK * sbk
        om = pm * BM + tl.arange(0, BM)
        on = pn * BN + tl.arange(0, BN)
        out = c + om[:, None] * scm + on[None, :] * scn
        tl.store(out, acc.to(c.dtype.element_ty), mask=(om[:, None] < M) & (on[None, :] < N))

    def run(a: Any, b: Any) -> Any:
        import torch
        m, k = a.shape
        n = b.shape[0]
        c = torch.empty((m, n), device=a.device, dtype=a.dtype)
        bt = b.T
        kernel[lambda meta: (triton.cdiv(m, meta["BM"]) * triton.cdiv(n, meta["BN"]),)](
            a, bt, c, m, n, k, a.stride(0), a.stride(1), bt.stride(0), bt.stride(1),
            c.stride(0), c.stride(1))
        return c

    return run
