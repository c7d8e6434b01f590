"""Benchmark: the Hopper GEMM (``gemm_hopper``: TMA ring -> ``regcopy.wgmma``) beside regcopy's
mma.sync GEMM (``bench_gemm``), ``torch.matmul`` (cuBLAS) and the Triton ``tl.dot`` matmul,
same process, same GPU, f16 and bf16 in, f32 accumulation, output in the input type.

    python -m regcopy_bench.bench_gemm_hopper [--iters 20] [--sizes 4096x4096x4096,...]
    python -m regcopy_bench.bench_gemm_hopper --sass-only      # no GPU: the SASS counts

``D[M,N] = A[M,K] @ B[N,K]^T``. TMA needs 16-byte row strides, so K % 8 != 0 pads the rows
of A and B to a multiple of 8 first (``bench_gemm``'s row-padding kernel, timed with the
GEMM). Each kernel is first checked bit-exact against float64 on integer-valued inputs at
ragged sizes, then within tolerance of cuBLAS at every benchmarked size. TFLOPS are
``2 M N K`` over the mean time of ``--iters`` launches back to back (``bench_gemm.time_ms``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from regcopy_bench.bench_gemm import SIZES, RegcopyGemm, time_ms
from regcopy_bench.gemm_hopper import grid, kernel_text
from regcopy_bench.triton_matmul import triton_matmul

TMA = "lower-reg-copy{transfer=tma}"


def hopper_lowered(t: str) -> tuple[str, Any]:
    """``(CUDA source, KernelInfo)`` of the Hopper kernel for ``t``, lowered with TMA."""
    from regcopy_backend.cuda.kernel_info import kernel_info, kernels
    from regcopy_backend.cuda.printer import print_cuda
    from regcopy_tools.regcopy_run import parse_and_lower

    module = parse_and_lower(kernel_text(f"gemm_hopper_{t}", t), "gemm_hopper.mlir", TMA)
    return print_cuda(module), kernel_info(kernels(module)[0])


def sass_report() -> list[str]:
    """SASS counts of the Hopper kernel: HGMMA, TMA loads, barriers, local memory."""
    from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble

    source, _ = hopper_lowered("f16")
    compiled = compile_cuda(source)
    sass = disassemble(compiled.cubin)
    keys = ("HGMMA.64x256x16.F32", "UTMALDG", "SYNCS", "WARPGROUP.DEPBAR", "BAR.SYNC", "LDL",
            "STL")
    count = {k: sum(1 for ln in sass.splitlines() if k in ln) for k in keys}
    return [f"gemm_hopper f16 ({compiled.arch}): "
            + ", ".join(f"{k} {v}" for k, v in count.items())]


class HopperGemm:
    """The Hopper kernel for one dtype, compiled once, launched on torch tensors (its tensor
    maps encoded per launch configuration)."""

    def __init__(self, t: str, mma: RegcopyGemm) -> None:
        from regcopy_backend.runtime.runner import (
            compile_kernel,
            set_dynamic_shared_memory,
        )

        self.mma = mma
        self.dev = mma.dev
        source, self.info = hopper_lowered(t)
        self.kernel = compile_kernel(self.dev, source, self.info.symbol)
        set_dynamic_shared_memory(self.dev, self.kernel, self.info.dynamic_shared_bytes)

    def direct(self, a: Any, b: Any, d: Any, stream: Any) -> Callable[[], None]:
        """One launch (K % 8 == 0)."""
        from regcopy_backend.runtime.runner import launch_arguments, tensor_maps
        from regcopy_backend.runtime.tensor_map import launch_raw

        args = (a, b, d)
        ptrs = [x.data_ptr() for x in args]
        values = launch_arguments(self.info, args, ptrs) + tensor_maps(self.info, args, ptrs)
        g = grid(a.shape[0], b.shape[0])
        block, shmem = self.info.block, self.info.dynamic_shared_bytes
        return lambda: launch_raw(self.kernel, stream, g, block, shmem, values)

    def launcher(self, a: Any, b: Any, d: Any, stream: Any) -> Callable[[], None]:
        """``D = A B^T``: direct where K % 8 == 0, else pad rows to K8 first."""
        import torch
        k = a.shape[1]
        if k % 8 == 0:
            return self.direct(a, b, d, stream)
        k8 = -(-k // 8) * 8
        a8 = torch.empty(a.shape[0], k8, device=a.device, dtype=a.dtype)
        b8 = torch.empty(b.shape[0], k8, device=b.device, dtype=b.dtype)
        steps = [self.mma.pad_launcher(a, a8, stream), self.mma.pad_launcher(b, b8, stream),
                 self.direct(a8, b8, d, stream)]

        def run() -> None:
            for step in steps:
                step()
        run.buffers = (a8, b8)  # type: ignore[attr-defined]  # alive as long as the call
        return run


def exact_check(h: HopperGemm, stream: Any, dtype: Any, t: str) -> bool:
    """Bit-exact against float64 on integer-valued inputs, ragged sizes (odd K padded)."""
    import torch
    good = True
    for m, n, k in ((200, 300, 136), (300, 520, 77)):
        g = torch.Generator(device="cuda").manual_seed(k)
        a = torch.randint(-4, 5, (m, k), device="cuda", generator=g).to(dtype)
        b = torch.randint(-4, 5, (n, k), device="cuda", generator=g).to(dtype)
        d = torch.full((m, n), 7.0, device="cuda", dtype=dtype)
        want = (a.double() @ b.double().T).to(dtype)
        torch.cuda.synchronize()
        h.launcher(a, b, d, stream)()
        torch.cuda.synchronize()
        same = bool(torch.equal(d, want))
        good &= same
        print(f"exact check wgmma {t} {m}x{n}x{k}: {'equal' if same else 'MISMATCH'}")
    return good


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--sizes", default=",".join("x".join(map(str, s)) for s in SIZES))
    ap.add_argument("--dtypes", default="f16,bf16")
    ap.add_argument("--sass-only", action="store_true")
    args = ap.parse_args(argv)
    try:  # torch before any NVRTC compile (its import fails after one)
        import torch
    except ImportError:
        torch = None  # type: ignore[assignment]
    print("SASS (NVRTC):")
    for line in sass_report():
        print("  " + line)
    if args.sass_only:
        return 0
    if torch is None or not torch.cuda.is_available():
        print("bench_gemm_hopper: needs torch and a CUDA GPU")
        return 2
    torch.cuda.init()
    sizes = [tuple(int(x) for x in s.split("x")) for s in args.sizes.split(",")]
    tri = triton_matmul()
    ok, rows = True, []
    for t in args.dtypes.split(","):
        dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[t]
        mma = RegcopyGemm(t)
        h = HopperGemm(t, mma)
        stream = mma.dev.default_stream
        ok &= exact_check(h, stream, dtype, t)
        for m, n, k in sizes:
            g = torch.Generator(device="cuda").manual_seed(m + n + k)
            a = torch.randn(m, k, device="cuda", dtype=dtype, generator=g)
            b = torch.randn(n, k, device="cuda", dtype=dtype, generator=g)
            d = torch.empty(m, n, device="cuda", dtype=dtype)
            run = h.launcher(a, b, d, stream)
            torch.cuda.synchronize()
            run()
            ref = torch.matmul(a, b.T)
            torch.cuda.synchronize()
            err = float((d.float() - ref.float()).abs().max())
            good = err <= 0.02 * float(ref.float().abs().max()) + 0.05
            ok &= good
            flop = 2.0 * m * n * k
            ms = {"wgmma": time_ms(run, args.iters),
                  "mma.sync": time_ms(mma.launcher(a, b, d, stream), args.iters),
                  "cuBLAS": time_ms(partial(torch.matmul, a, b.T), args.iters)}
            ms["Triton"] = float("nan")
            if tri is not None:
                try:
                    ms["Triton"] = time_ms(partial(tri, a, b), args.iters)
                except Exception as e:  # noqa: BLE001 - a Triton failure costs its column only
                    print(f"  Triton failed at {m}x{n}x{k}: {str(e).splitlines()[0][:200]}")
            tf = {key: flop / v / 1e9 for key, v in ms.items()}
            rows.append((t, f"{m}x{n}x{k}", tf, "ok" if good else f"BAD max err {err:.3g}",
                         "pad+TMA" if k % 8 else "TMA"))
            print(f"  {t} {m}x{n}x{k}: " + ", ".join(f"{key} {v:.0f}" for key, v in tf.items())
                  + f" TFLOPS ({rows[-1][3]})", flush=True)
    print()
    print("| dtype | M x N x K | wgmma TFLOPS | mma.sync TFLOPS | cuBLAS TFLOPS | Triton TFLOPS "
          "| wgmma / cuBLAS | wgmma / Triton | operands | check |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for t, size, tf, chk, route in rows:
        print(f"| {t} | {size} | {tf['wgmma']:.0f} | {tf['mma.sync']:.0f} | {tf['cuBLAS']:.0f} "
              f"| {tf['Triton']:.0f} | {tf['wgmma'] / tf['cuBLAS']:.2f}x | "
              f"{tf['wgmma'] / tf['Triton']:.2f}x | {route} | {chk} |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
