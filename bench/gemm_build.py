"""Lowering and compiling the GEMM benchmark's kernels (``bench_gemm``), in both index widths
and in parallel worker processes.

A kernel with runtime extents does its index math in 64 bits unless the launch's offsets all
fit in 31 bits, where the CUDA target's ``-DREGCOPY_INDEX32`` form (``rc_index`` is ``int``)
is what the runner launches. The bench compiles both forms of every kernel and launches the
one the runner would (``INDEX``: ``auto``; ``64`` forces the 64-bit form)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from regcopy_backend.cuda.kernel_info import KernelInfo
from regcopy_backend.cuda.types import INDEX32_MACRO
from regcopy_backend.runtime.index_width import fits_index32
from regcopy_bench.gemm_kernels import kernel_text

INDEX = ["auto"]
"""The index width the bench launches: ``auto`` (32-bit where every offset fits, as the
runner does) or ``64``."""


@dataclass(frozen=True)
class Built:
    """One kernel lowered and compiled: its CUDA source, ``KernelInfo`` and the sm_90 cubins of
    its 64-bit and 32-bit index forms."""

    source: str
    info: Any
    cubin64: bytes
    cubin32: bytes


def index32_cubin(source: str) -> bytes:
    """The cubin of ``source``'s 32-bit index form: compiled with ``-DREGCOPY_INDEX32`` (a
    kernel on static buffers has one form, its printed one)."""
    from regcopy_backend.cuda.nvrtc import compile_cuda

    if INDEX32_MACRO in source:
        return compile_cuda(source, options=(f"-D{INDEX32_MACRO}",)).cubin
    return compile_cuda(source).cubin


def lowered(name: str, t: str, staged: bool, layouts: str = "rows",
            text: str | None = None, stores: str = "auto") -> tuple[str, Any]:
    """``(CUDA source, KernelInfo)`` of one kernel (``text``: another kernel's IR;
    ``stores``: lower-reg-copy's ``misaligned-stores``, how the epilogue stores the vectors
    of D's rows that a runtime N misaligns)."""
    from regcopy_backend.cuda.kernel_info import kernel_info, kernels
    from regcopy_backend.cuda.printer import print_cuda
    from regcopy_passes.lower_reg_copy import LowerRegCopyPass
    from xdsl.parser import Parser

    from regcopy_dialect.context import regcopy_context

    ctx = regcopy_context()
    module = Parser(ctx, text or kernel_text(name, t, staged, layouts)).parse_module()
    LowerRegCopyPass(strict=True, misaligned_stores=stores).apply(ctx, module)
    return print_cuda(module), kernel_info(kernels(module)[0])


Job = str | tuple[str, str]
"""One kernel to build: its IR, or ``(IR, misaligned-stores)``."""


def build(job: Job) -> Built:
    """``job`` (one kernel's IR, with the epilogue's store form) lowered and compiled in both
    index forms."""
    from regcopy_backend.cuda.nvrtc import compile_cuda

    text, stores = (job, "auto") if isinstance(job, str) else job
    source, info = lowered("gemm", "f16", False, text=text, stores=stores)
    return Built(source, info, compile_cuda(source).cubin, index32_cubin(source))


def build_all(jobs: dict[str, Job]) -> dict[str, Built]:
    """``build`` of every kernel of ``jobs`` (``name: job``) in parallel processes (a few
    seconds a kernel, one core each)."""
    import multiprocessing
    import os
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    workers = min(len(jobs), os.cpu_count() or 1)
    if workers <= 1:
        return {name: build(text) for name, text in jobs.items()}
    context = multiprocessing.get_context("spawn")  # no CUDA state in the workers
    try:
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            return dict(zip(jobs, pool.map(build, jobs.values()), strict=True))
    except BrokenProcessPool:  # a __main__ the workers cannot import: one by one
        return {name: build(text) for name, text in jobs.items()}


def use_index32(info: KernelInfo, shapes: Sequence[Sequence[int]],
                grid: Sequence[int] = (1, 1, 1)) -> bool:
    """Whether a launch of ``info``'s kernel on buffers of ``shapes`` over ``grid`` runs the
    32-bit form: ``INDEX`` is ``auto`` and the runner's rule
    (``regcopy_backend.runtime.index_width.fits_index32``) says every offset fits."""
    return INDEX[0] != "64" and fits_index32(info, shapes, grid)
