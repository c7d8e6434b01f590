"""A/B (not installed, not collected): the Hopper GEMM with a producer warpgroup and register
reallocation (``setmaxnreg``), against the example's form, in one process on the H200.

The producer form cannot be written in regcopy IR today: its copies would sit under an
``scf.if`` on the warpgroup index, which ``lower-reg-copy`` refuses for every copy ("the copy
is nested in a 'scf.if' whose condition depends on a thread id"), and regcopy's async groups
are counted by every thread in program order. So this script derives it from the printed
CUDA of ``bench/gemm_hopper.py``'s kernel (``producer_source``), the way a kernel author would
hand-edit it:

* 384 threads, ``__launch_bounds__(384, 1)``; the mbarrier set-up stays common;
* warpgroup 0 (the producer; thread 0 is the kernel's elected TMA thread) optionally runs
  ``setmaxnreg.dec`` to P registers and then the same K loop with every wgmma, the
  accumulators and the epilogue removed: wait for K tile k, the CTA barrier, refill the slot;
* warpgroups 1 and 2 (the consumers) optionally run ``setmaxnreg.inc`` to C registers and
  then the unchanged kernel body with ``tid = threadIdx.x - 128`` (they never issue TMA).

Each iteration of both loops has one ``__syncthreads``, so the barriers pair up as in the
example. Run on the H200 (after ``import torch``):

    python3 lab/ab/gemm_hopper_producer.py [--sizes 4096x4096x4096,4095x4097x4093]
        [--tile 128x256] [--also-tile 256x128] [--sass]

With ``--sass`` (or without a GPU) it prints ptxas's registers and spills of each form; on the
GPU it checks each against cuBLAS and prints TFLOPS beside the example's form (same CTA tile,
same padding: the ``launcher`` of bench_gemm_hopper) and their ratio.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

FORMS: dict[str, tuple[int, int] | None] = {
    "producer": None, "producer+setmaxnreg 40/232": (40, 232)}
"""The producer forms: no reallocation, or (producer, consumer) registers."""


def producer_source(source: str, regs: tuple[int, int] | None) -> str:
    """``source`` (the printed CUDA of one Hopper GEMM kernel) in the producer form (module
    doc); ``regs``: ``(P, C)`` for ``setmaxnreg``, or None for none."""
    head, sep, body = source.partition("  __syncthreads();\n")
    assert sep and "__launch_bounds__(256)" in head, "not the Hopper GEMM's printed form"
    head = head.replace("__launch_bounds__(256)", "__launch_bounds__(384, 1)")
    body, end = body.rstrip().removesuffix("}"), "}\n"
    lines = body.splitlines(keepends=True)
    loop_end = next(i for i, ln in enumerate(lines)
                    if "wgmma.wait_group.sync.aligned 0;" in ln) - 1
    assert lines[loop_end] == "  }\n", lines[loop_end]
    producer = [ln for ln in lines[:loop_end + 1]
                if "wgmma." not in ln and 'asm volatile("" : "+f"' not in ln]
    consumer = [ln.replace("const rc_index tid = (rc_index)threadIdx.x;",
                           "const rc_index tid = (rc_index)threadIdx.x - 128;") for ln in lines]
    assert consumer != lines, "no tid in the printed kernel"
    dec = (f'    asm volatile("setmaxnreg.dec.sync.aligned.u32 {regs[0]};" ::: "memory");\n'
           if regs else "")
    inc = (f'  asm volatile("setmaxnreg.inc.sync.aligned.u32 {regs[1]};" ::: "memory");\n'
           if regs else "")
    return (head + sep + "  if (threadIdx.x < 128) {  // the producer warpgroup\n" + dec
            + "".join("  " + ln if ln.strip() else ln for ln in producer)
            + "    return;\n  }\n  // the consumer warpgroups\n" + inc + "".join(consumer)
            + end)


def main(argv: list[str] | None = None) -> int:
    try:  # before any NVRTC compile
        import torch
    except ImportError:
        torch = None
    from regcopy_backend.cuda.spills import ptxas_usage
    from regcopy_backend.runtime.variants import KernelVariants
    from regcopy_bench.bench_gemm import time_ms
    from regcopy_bench.bench_gemm_hopper import HopperGemm, hopper_lowered
    from regcopy_bench.hopper_timing import checked, operands

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="4096x4096x4096,4095x4097x4093")
    ap.add_argument("--tile", default="128x256")
    ap.add_argument("--also-tile", action="append", default=[], help="another CTA tile")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--sass", action="store_true", help="compile only: registers and spills")
    args = ap.parse_args(argv)
    gpu = not args.sass and torch is not None and torch.cuda.is_available()
    ok = True
    for tile in [args.tile, *args.also_tile]:
        source, info = hopper_lowered("f16", tile)
        sources = {"example": source} | {name: producer_source(source, regs)
                                         for name, regs in FORMS.items()}
        if not gpu:
            for name, text in sources.items():
                print(f"form {tile} {name}: ptxas (registers, spill bytes) "
                      f"{ptxas_usage(text, 'sm_90a')}", flush=True)
            continue
        base = HopperGemm("f16", None, tile, "rows", 0)
        forms: dict[str, HopperGemm] = {"example": base}
        for name in FORMS:
            h = HopperGemm("f16", None, tile, "rows", 0)
            h.kernels = {tile: (KernelVariants(h.dev, sources[name], info),
                                dataclasses.replace(info, block=384))}
            forms[name] = h
        stream = base.dev.default_stream
        for size in args.sizes.split(","):
            m, n, k = (int(x) for x in size.split("x"))
            a, b, d = operands(m, n, k, torch.float16)
            tf = {}
            for name, h in forms.items():
                try:
                    run = h.launcher(a, b, d, stream)
                    chk = checked(run, a, b, d)
                except Exception as e:  # noqa: BLE001 - a form that fails costs its row
                    print(f"  {size} {tile} {name}: {str(e).splitlines()[0][:300]}")
                    ok = False
                    continue
                ok &= chk == "ok"
                tf[name] = 2.0 * m * n * k / time_ms(run, args.iters) / 1e9
                print(f"  {size} {tile} {name}: {tf[name]:.0f} TFLOPS ({chk}), "
                      f"{tf[name] / tf['example']:.2f}x of the example's form", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

