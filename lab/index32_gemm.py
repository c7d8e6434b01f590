"""The mma.sync GEMM examples in both index widths against cuBLAS, one process, one GPU:
examples/gemm.mlir's @gemm (cp.async ring, K % 8 == 0) at 4096^3 and examples/gemm_any_k.mlir's
@gemm_any_k (register-staged, any K) at 4095 x 4097 x 4093, each compiled as printed (64-bit
``rc_index``) and with ``-DREGCOPY_INDEX32`` (what the runner launches at these sizes), f16 in,
f32 accumulation. Both forms' outputs must be equal bit for bit (and near torch.matmul's).

    python3 lab/index32_gemm.py [--iters 10]

Timing: ``iters`` launches after 3 warm-up ones, between two device-wide synchronizations, the
same for regcopy's launches (cuda.core) and torch's (cuBLAS)."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from multiprocessing import get_context
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CASES = (("gemm.mlir", "gemm", (4096, 4096, 4096)),
         ("gemm_any_k.mlir", "gemm_any_k", (4095, 4097, 4093)))


def compile_job(job: tuple[str, bool]) -> tuple[str, Any, bytes]:
    """``(source, KernelInfo of every kernel, cubin)`` of one example in one width (run in a
    worker process: NVRTC only)."""
    from regcopy_backend.cuda.kernel_info import kernel_info, kernels
    from regcopy_backend.cuda.nvrtc import compile_cuda
    from regcopy_backend.cuda.printer import print_cuda
    from regcopy_backend.cuda.types import INDEX32_OPTION
    from regcopy_tools.regcopy_run import parse_and_lower

    name, index32 = job
    path = REPO / "examples" / name
    module = parse_and_lower(path.read_text(), str(path))
    source = print_cuda(module)
    infos = {f.sym_name.data: kernel_info(f) for f in kernels(module)}
    cubin = compile_cuda(source, options=(INDEX32_OPTION,) if index32 else ()).cubin
    return source, infos, cubin


def timed(fn: Callable[[], None], iters: int) -> float:
    """Milliseconds per call of ``fn`` between device-wide synchronizations."""
    import torch

    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(iters):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) * 1e3 / iters


def main() -> int:
    import torch  # first: before any NVRTC in this process

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iters", type=int, default=10)
    args = ap.parse_args()
    jobs = [(name, index32) for name, _, _ in CASES for index32 in (False, True)]
    with ProcessPoolExecutor(len(jobs), mp_context=get_context("spawn")) as pool:
        built = dict(zip(jobs, pool.map(compile_job, jobs), strict=True))

    from regcopy_backend.runtime.index_width import fits_index32
    from regcopy_backend.runtime.runner import (
        cuda_core,
        extent_values,
        get_device,
        set_dynamic_shared_memory,
    )

    core, dev = cuda_core(), get_device()
    stream = dev.create_stream()
    print("| kernel | M x N x K | 64-bit TFLOPS | 32-bit TFLOPS | 32 / 64 | cuBLAS TFLOPS | "
          "64-bit / cuBLAS | 32-bit / cuBLAS | runner's choice | check |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    status = 0
    for name, kernel_name, (m, n, k) in CASES:
        g = torch.Generator(device="cuda").manual_seed(k)
        a = torch.randn(m, k, device="cuda", dtype=torch.float16, generator=g)
        b = torch.randn(n, k, device="cuda", dtype=torch.float16, generator=g)
        grid = (-(-n // 256), -(-m // 128), 1)
        ms, outs, info = {}, {}, None
        for index32 in (False, True):
            _, infos, cubin = built[(name, index32)]
            info = infos[kernel_name]
            kernel = core.ObjectCode.from_cubin(cubin).get_kernel(info.symbol)
            set_dynamic_shared_memory(dev, kernel, info.dynamic_shared_bytes)
            d = torch.zeros(m, n, device="cuda", dtype=torch.float16)
            launch: list[Any] = []
            for p, x in zip(info.params, (a, b, d), strict=True):
                launch += [x.data_ptr(), *extent_values(info, p, tuple(x.shape))]
            config = core.LaunchConfig(grid=grid, block=(info.block, 1, 1),
                                       shmem_size=info.dynamic_shared_bytes)
            torch.cuda.synchronize()
            ms[index32] = timed(partial(core.launch, stream, config, kernel, *launch),
                                args.iters)
            dev.sync()
            outs[index32] = d
        cublas = timed(partial(torch.matmul, a, b.T), args.iters)
        want = torch.matmul(a.float(), b.float().T)
        err = float(((outs[True].float() - want).abs().max() / want.abs().max()).item())
        same = torch.equal(outs[False], outs[True])
        ok = same and err < 1e-2
        status |= not ok
        assert info is not None
        choice = "32-bit" if fits_index32(info, [(m, k), (n, k), (m, n)], grid) else "64-bit"
        tf = {w: 2 * m * n * k / t / 1e9 for w, t in ms.items()}
        tc = 2 * m * n * k / cublas / 1e9
        print(f"| {kernel_name} | {m}x{n}x{k} | {tf[False]:.0f} | {tf[True]:.0f} | "
              f"{tf[True] / tf[False]:.3f}x | {tc:.0f} | {tf[False] / tc:.3f}x | "
              f"{tf[True] / tc:.3f}x | {choice} | "
              f"{'ok' if ok else 'MISMATCH'} (forms {'equal' if same else 'DIFFER'}, "
              f"max rel err {err:.1e}) |", flush=True)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
