"""The peer of ``bench_ragged``: the same masked 2-D tile copy written in Triton the way a
Triton user would (``tl.load``/``tl.store`` with one mask, same tile, same 1-D grid walking
a row band's column tiles first, 8 warps = 256 threads), and the device-side bit-exact check
both systems' outputs pass before they are timed. torch and triton are imported lazily:
``peer()`` returns None, with the reason in ``MISSING``, where either is absent.

At a misaligned N Triton can prove only 4-byte alignment of the rows (32-bit accesses); at
an aligned N (N % 4 == 0) the kernel is the one compiled to take the row length as 4 x N/4
(128-bit accesses), as a user who knows the row length is a multiple of 4 would write it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

MISSING: list[str] = []
"""Why the peer column is missing (empty while it is there)."""


def peer() -> Any | None:
    """The Triton module's copy kernel and torch, or None (``MISSING`` says why)."""
    try:
        import torch
        import triton
        import triton.language as tl
    except ImportError as e:  # pragma: no cover - only where the peer is absent
        MISSING[:] = [f"no Triton column: {e}"]
        return None
    if not torch.cuda.is_available():  # pragma: no cover
        MISSING[:] = ["no Triton column: torch sees no GPU"]
        return None

    @triton.jit
    def tile_copy(X, Y, M, N, NV, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  ALIGNED: tl.constexpr, VEC: tl.constexpr):  # type: ignore[no-untyped-def]
        if ALIGNED:  # N = VEC * NV: Triton's analysis then knows N a multiple of VEC
            N = NV * VEC
        b = tl.program_id(0)
        nct = tl.cdiv(N, BLOCK_N)
        rt = b // nct
        ct = b % nct
        rows = rt * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
        cols = ct * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
        mask = (rows < M) & (cols < N)
        offsets = rows.to(tl.int64) * N + cols
        tl.store(Y + offsets, tl.load(X + offsets, mask=mask), mask=mask)

    return tile_copy, torch


class Peer:
    """Device buffers (torch) shared by both systems, and the Triton launches."""

    def __init__(self, max_bytes: int):
        found = peer()
        if found is None:
            raise RuntimeError(MISSING[0])
        self.kernel, self.torch = found
        torch = self.torch
        words = max_bytes // 4 + 1
        gen = torch.Generator(device="cuda").manual_seed(34)
        self.x = torch.randint(-2**31, 2**31 - 1, (words,), dtype=torch.int32, device="cuda",
                               generator=gen).view(torch.float32)
        self.y = torch.empty_like(self.x)

    def launcher(self, rows: int, cols: int, m: int, n: int, dtype: str = "f32"
                 ) -> Callable[[], None]:
        """One launch of the Triton copy of an M x N buffer of ``dtype`` (f32, bf16, i8)
        with a ``rows`` x ``cols`` tile; at N a multiple of a 16-byte vector's elements,
        the kernel that knows it (128-bit accesses)."""
        torch = self.torch
        view = {"f32": torch.float32, "bf16": torch.bfloat16, "i8": torch.int8}[dtype]
        vec = 16 // {"f32": 4, "bf16": 2, "i8": 1}[dtype]
        grid = (-(-m // rows) * -(-n // cols),)
        kernel, x, y = self.kernel, self.x.view(view), self.y.view(view)
        aligned = n % vec == 0
        return lambda: kernel[grid](x, y, m, n, n // vec, BLOCK_M=rows, BLOCK_N=cols,
                                    ALIGNED=aligned, VEC=vec, num_warps=8)

    def time(self, launch: Callable[[], None], iters: int) -> float:
        """Milliseconds per launch, by CUDA events on torch's stream, after two warm-ups."""
        torch = self.torch
        for _ in range(2):
            launch()
        start, end = (torch.cuda.Event(enable_timing=True) for _ in range(2))
        start.record()
        for _ in range(iters):
            launch()
        end.record()
        end.synchronize()
        return float(start.elapsed_time(end)) / iters

    def exact(self, launch: Callable[[], None], nbytes: int, sync: Callable[[], None]
              ) -> bool:
        """Y cleared, one ``launch`` (then ``sync``), Y's first ``nbytes`` (the M x N
        elements) equal to X's bit for bit, and the byte after them untouched."""
        torch = self.torch
        self.y.view(torch.uint8).fill_(0xA5)
        torch.cuda.synchronize()
        launch()
        sync()
        torch.cuda.synchronize()
        xs, ys = self.x.view(torch.uint8), self.y.view(torch.uint8)
        return bool(torch.equal(xs[:nbytes], ys[:nbytes])) and int(ys[nbytes]) == 0xA5

