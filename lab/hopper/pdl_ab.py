"""A/B on the H200: what the odd-K call (4095 x 4097 x 4093) loses between its two launches
and in D's misaligned stores, for both GEMMs.

1. Programmatic dependent launch (PDL): the padding kernel says
   ``griddepcontrol.launch_dependents`` first thing, the GEMM waits (``griddepcontrol.wait``)
   after its barriers are set up, and the GEMM is launched with
   ``CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION``: its CTAs start (and set up)
   while the padding's last wave runs. Same binaries both ways (the two instructions are
   no-ops in a launch without the attribute), timed interleaved, beside the bench's own call.
2. D's misaligned rows: the GEMM alone on padded operands at N = 4097 (every row of D
   misaligned) against N = 4104 (aligned; the same grid, the edge tile included).
3. The padding against its peers: torch's strided copy into the padded rows, and a plain
   contiguous copy of the same bytes (the roofline).

Run: ``python3 lab/hopper/pdl_ab.py`` (GPU; about a minute)."""

from __future__ import annotations

import re
from typing import Any

from cuda.bindings import driver

from regcopy_backend.cuda.kernel_info import kernel_info, kernels
from regcopy_backend.cuda.printer import print_cuda
from regcopy_backend.runtime.tensor_map import kernel_params
from regcopy_backend.runtime.variants import KernelVariants
from regcopy_bench.bench_gemm import RegcopyGemm, time_ms
from regcopy_bench.gemm_hopper import pad_pair_text
from regcopy_bench.hopper_launch import HopperGemm, pad_spec
from regcopy_bench.hopper_timing import interleaved, operands
from regcopy_tools.regcopy_run import parse_and_lower

WAIT = '  asm volatile("griddepcontrol.wait;" ::: "memory");\n'
LAUNCH = '  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");\n'


def with_wait(src: str) -> str:
    """``griddepcontrol.wait`` after the kernel's first ``__syncthreads()`` (its barriers set
    up), or first thing where it has none."""
    if "__syncthreads();" in src:
        return src.replace("__syncthreads();\n", "__syncthreads();\n" + WAIT, 1)
    return re.sub(r"(__global__[^{]*\{\n)", lambda m: m.group(1) + WAIT, src, count=1)


def with_launch(src: str) -> str:
    return re.sub(r"(__global__[^{]*\{\n)", lambda m: m.group(1) + LAUNCH, src, count=1)


def launch_ex(kernel: Any, stream: Any, grid: tuple[int, int, int], block: int, shmem: int,
              values: list[Any], pdl: bool) -> None:
    handle = kernel.handle
    if isinstance(handle, driver.CUkernel):
        _, handle = driver.cuKernelGetFunction(handle)
    keep, params = kernel_params(values)
    cfg = driver.CUlaunchConfig()
    cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = grid
    cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = block, 1, 1
    cfg.sharedMemBytes = shmem
    cfg.hStream = driver.CUstream(int(stream.handle))
    if pdl:
        attr = driver.CUlaunchAttribute()
        attr.id = driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
        attr.value.programmaticStreamSerializationAllowed = 1
        cfg.attrs = [attr]
        cfg.numAttrs = 1
    else:
        cfg.numAttrs = 0
    (err,) = driver.cuLaunchKernelEx(cfg, handle, params.ctypes.data, 0)
    del keep
    assert err == driver.CUresult.CUDA_SUCCESS, err


class PdlHopper(HopperGemm):
    """HopperGemm whose kernels carry the two instructions; ``pdl`` picks the attribute."""

    pdl = False

    def __init__(self, t: str) -> None:
        super().__init__(t, None)
        for tile, (variants, info) in list(self.kernels.items()):
            self.kernels[tile] = (KernelVariants(self.dev, with_wait(variants.source), info),
                                  info)

    def pad_pair(self, pad: str) -> tuple[Any, Any]:
        if pad not in self.pairs:
            rows, cols, passes = pad_spec(pad)
            module = parse_and_lower(pad_pair_text("pad_pair", self.t, rows, cols), "pad.mlir",
                                     passes)
            info = kernel_info(kernels(module)[0])
            self.pairs[pad] = (KernelVariants(self.dev, with_launch(print_cuda(module)), info),
                               info)
        return self.pairs[pad]

    def _launch(self, stream: Any, key: str, args: tuple[Any, ...]) -> None:
        kernel, g, block, shmem, values = self._prepare(key, args)
        launch_ex(kernel, stream, g, block, shmem, values, self.pdl and key == "gemm")


def hopper(t: str, dtype: Any, stream: Any) -> None:
    import torch
    m, n, k = 4095, 4097, 4093
    plain = HopperGemm(t, None)
    pdl_off, pdl_on = PdlHopper(t), PdlHopper(t)
    pdl_on.pdl = True
    a, b, d = operands(m, n, k, dtype)
    a4, b4, d4 = operands(4096, 4096, 4096, dtype)
    ref = torch.matmul(a, b.T)
    for name, g in (("bench", plain), ("pdl off", pdl_off), ("pdl on", pdl_on)):
        d.fill_(7.0)
        g(a, b, d, stream)
        torch.cuda.synchronize()
        err = float((d.float() - ref.float()).abs().max())
        print(f"  {t} {name}: max err {err:.3g}")
    a8 = torch.zeros(m, 4096, device="cuda", dtype=dtype)
    b8 = torch.zeros(n, 4096, device="cuda", dtype=dtype)
    a8[:, :k], b8[:, :k] = a, b
    b8w = torch.zeros(4104, 4096, device="cuda", dtype=dtype)
    b8w[:n] = b8
    dw = torch.empty(m, 4104, device="cuda", dtype=dtype)
    fns = {
        "aligned 4096^3": lambda: plain(a4, b4, d4, stream),
        "call (bench)": lambda: plain(a, b, d, stream),
        "call pdl off": lambda: pdl_off(a, b, d, stream),
        "call pdl on": lambda: pdl_on(a, b, d, stream),
        "GEMM N=4097 (D misaligned)": lambda: plain(a8, b8, d, stream),
        "GEMM N=4104 (D aligned)": lambda: plain(a8, b8w, dw, stream),
        "torch pad copy": lambda: (a8[:, :k].copy_(a), b8[:, :k].copy_(b)),
        "contiguous copy, same bytes": lambda: (a8.view(-1)[:a.numel()].copy_(a.view(-1)),
                                                b8.view(-1)[:b.numel()].copy_(b.view(-1))),
    }
    steps = plain.launcher(a, b, d, stream).steps  # type: ignore[attr-defined]
    fns["pad alone (bench)"] = steps[0]
    ms = interleaved(fns, 20, rounds=3, cool=0.3)
    base = ms["aligned 4096^3"]
    for key, v in ms.items():
        print(f"  wgmma {t} {key}: {v:.4f} ms ({base / v:.3f}x the aligned call's time)")


def mma(t: str, dtype: Any, stream: Any) -> None:
    import torch
    m, n, k = 4095, 4097, 4093
    g = RegcopyGemm(t)
    a8 = torch.randn(m, 4096, device="cuda", dtype=dtype)
    b8 = torch.randn(4104, 4096, device="cuda", dtype=dtype)
    a, b = a8[:, :k].contiguous(), b8[:n, :k].contiguous()
    d, dw = (torch.empty(m, x, device="cuda", dtype=dtype) for x in (n, 4104))
    a4, b4, d4 = operands(4096, 4096, 4096, dtype)
    fns = {
        "aligned 4096^3": g.launcher(a4, b4, d4, stream),
        "call (pair)": g.launcher(a, b, d, stream, "pair"),
        "GEMM N=4097 (D misaligned)": g.launcher(a8, b8[:n].contiguous(), d, stream),
        "GEMM N=4104 (D aligned)": g.launcher(a8, b8, dw, stream),
    }
    ms = interleaved(fns, 20, rounds=3, cool=0.3)
    base = ms["aligned 4096^3"]
    for key, v in ms.items():
        print(f"  mma.sync {t} {key}: {v:.4f} ms ({base / v:.3f}x the aligned call's time)")


def main() -> None:
    import torch
    from regcopy_backend.runtime.runner import get_device
    dev = get_device()
    dev.set_current()
    stream = dev.default_stream
    print(f"torch {torch.__version__}; time_ms: {time_ms.__doc__.splitlines()[0]}")
    for t, dtype in (("f16", torch.float16), ("bf16", torch.bfloat16)):
        hopper(t, dtype, stream)
    mma("f16", torch.float16, stream)


if __name__ == "__main__":
    main()
