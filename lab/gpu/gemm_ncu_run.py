"""Launch GEMM candidates once each at 4096^3 f16, for Nsight Compute (lab/gpu/mmagemm_ncu.sh):

    ncu -k regex:gemm ... python3 lab/gpu/gemm_ncu_run.py "example" "prefetch, convert epilogue (the fastest; its 64-bit index form spills)"

Each name is a key of ``regcopy_bench.gemm_kernels.CANDIDATES``, launched in its 32-bit index
form (what runs at this size); the kernel of candidate i is
``gemm_<i>`` (the names are printed first, so ncu's report can be read against them). One
warm-up launch each, then the profiled one."""

from __future__ import annotations

import sys


def main(names: list[str]) -> int:
    import torch  # first: before any NVRTC compile in this process (bench_gemm's note)
    from regcopy_backend.runtime.runner import cuda_core, extent_values, get_device
    from regcopy_backend.runtime.runner import set_dynamic_shared_memory
    from regcopy_bench.gemm_build import build_all
    from regcopy_bench.gemm_kernels import (
        CANDIDATES,
        candidate_block,
        candidate_grid,
        candidate_text,
    )

    core, dev = cuda_core(), get_device()
    dev.set_current()
    jobs = {name: candidate_text(f"gemm_{i}", "f16", CANDIDATES[name])
            for i, name in enumerate(names)}
    built = build_all(jobs)
    m = n = k = 4096
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(n, k, device="cuda", dtype=torch.float16)
    d = torch.empty(m, n, device="cuda", dtype=torch.float16)
    torch.cuda.synchronize()
    for i, name in enumerate(names):
        info = built[name].info
        kernel = core.ObjectCode.from_cubin(built[name].cubin32).get_kernel(info.symbol)
        set_dynamic_shared_memory(dev, kernel, info.dynamic_shared_bytes)
        args: list[object] = []
        for p, x in zip(info.params, (a, b, d), strict=True):
            args += [x.data_ptr(), *extent_values(info, p, tuple(x.shape))]
        kw = CANDIDATES[name]
        config = core.LaunchConfig(grid=candidate_grid(m, n, kw),
                                   block=(candidate_block(kw), 1, 1),
                                   shmem_size=info.dynamic_shared_bytes)
        print(f"gemm_{i}: {name}", flush=True)
        for _ in range(2):
            core.launch(dev.default_stream, config, kernel, *args)
        dev.sync()
        err = float((d.float() - torch.matmul(a, b.T).float()).abs().max())
        print(f"gemm_{i}: max error against torch {err:.3g}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["example"]))
