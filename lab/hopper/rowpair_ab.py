"""A/B on the H200: which two rows a warp of the wgmma GEMM's ``rowwarp`` epilogue stores in a round.

The 256 x 128 Hopper kernel (the one ``choose_tile`` takes at 4095 x 4097) converts each
warpgroup's 64 x 128 accumulator so that 16 lanes run along a row, 8 elements a lane: a warp
stores two rows a round. ``gemm_hopper._rowwarp`` gives it rows ``2i`` and ``2i + 1`` of its
16 (``adjacent``). Where N is odd every row of D starts at a different misalignment
(row r at ``2 r N`` bytes: class ``r N mod 8``), so the two rows of a round sit in two classes
and the warp runs both classes' store code, one after the other. Rows ``i`` and ``i + 8``
(``plus8``) are ``8 N`` elements apart, a multiple of 16 bytes: one class a warp and round.

Each variant's GEMM runs alone on padded operands (K = 4096) at N = 4097 and at N = 4104
(aligned rows), D's stores realigned (the example's ``{misaligned_stores}``) and forced
shuffled; all timed interleaved in one process (``hopper_timing.interleaved``), every output
checked against the aligned run's first 4097 columns.

Run: ``python3 lab/hopper/rowpair_ab.py [--iters 20] [--rounds 3]`` (GPU), or
``--sass`` (no GPU: the SASS counts of each variant)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

VARIANTS = ("adjacent", "plus8")
FORMS = ("realigned", "shuffled")


def _plus8(t: str, n: int) -> str:
    """``_rowwarp`` with a round's two rows 8 apart: row ``16 w + 8 h + i`` (lane bit 4 = h)."""
    assert n == 128, n
    return (f"memref<64x128x{t}, #regcopy.layout<(4,2,8,16,8):(1@wid_in_wg,16@laneid,8,"
            "1@laneid,1)>, #regcopy.mem<local>>")


@contextmanager
def variant(name: str) -> Iterator[None]:
    """``gemm_hopper._rowwarp`` replaced by the variant ``name`` while kernels are generated."""
    from regcopy_bench import gemm_hopper as gh

    saved = gh._rowwarp
    if name == "plus8":
        gh._rowwarp = _plus8
    try:
        yield
    finally:
        gh._rowwarp = saved


def _epilogue(form: str) -> str:
    from regcopy_bench.gemm_hopper import EXAMPLE

    return EXAMPLE["256x128"][0] + ("" if form == "realigned" else f"-{form}")


def sass() -> None:
    from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
    from regcopy_backend.cuda.types import INDEX32_OPTION
    from regcopy_bench.hopper_launch import hopper_lowered

    for v in VARIANTS:
        for form in FORMS:
            with variant(v):
                src, info = hopper_lowered("f16", "256x128", _epilogue(form), 8, 8)
            c = compile_cuda(src, options=(INDEX32_OPTION,) * info.index_switch)
            ins = [ln for ln in disassemble(c.cubin).splitlines() if "/*" in ln and ";" in ln]
            n = {k: sum(1 for ln in ins if k in ln) for k in ("STG", "SHFL", "BRA", "LDL")}
            print(f"{v} {form}: {len(ins)} SASS instructions, "
                  + ", ".join(f"{k} {x}" for k, x in n.items()))


def run(t: str, dtype: Any, stream: Any, iters: int, rounds: int) -> None:
    import torch

    from regcopy_bench.hopper_launch import HopperGemm
    from regcopy_bench.hopper_timing import interleaved

    m, n, k = 4095, 4097, 4096
    g = torch.Generator(device="cuda").manual_seed(11)
    a = torch.randn(m, k, device="cuda", dtype=dtype, generator=g)
    bw = torch.randn(4104, k, device="cuda", dtype=dtype, generator=g)
    b = bw[:n].contiguous()
    ref = torch.empty(m, 4104, device="cuda", dtype=dtype)
    fns: dict[str, Callable[[], None]] = {}
    outs: dict[str, Any] = {}
    for v in VARIANTS:
        for form in FORMS:
            with variant(v):
                gemm = HopperGemm(t, None, tile="256x128", edge=8, epilogue=_epilogue(form))
            d = torch.empty(m, n, device="cuda", dtype=dtype)
            dw = torch.empty(m, 4104, device="cuda", dtype=dtype)
            outs[f"{v} {form}"] = d
            fns[f"N=4097 {v} {form}"] = (lambda gm=gemm, d=d: gm(a, b, d, stream))
            if form == "realigned":
                fns[f"N=4104 {v}"] = (lambda gm=gemm, dw=dw: gm(a, bw, dw, stream))
                if v == "adjacent":
                    gemm(a, bw, ref, stream)
    for fn in fns.values():
        fn()
    torch.cuda.synchronize()
    for key, d in outs.items():
        err = float((d.float() - ref[:, :n].float()).abs().max())
        print(f"  {t} {key}: max |D - D(N=4104)[:, :4097]| = {err:.3g}")
        assert err <= 1.0, key
    ms = interleaved(fns, iters, rounds=rounds, cool=0.3)
    base = ms["N=4104 adjacent"]
    for key, v in ms.items():
        print(f"  wgmma {t} 256x128 {key}: {v:.4f} ms ({base / v:.3f}x of N=4104 adjacent)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sass", action="store_true")
    args = ap.parse_args()
    if args.sass:
        sass()
        return
    import torch

    from regcopy_backend.runtime.runner import get_device

    dev = get_device()
    dev.set_current()
    print(f"torch {torch.__version__}")
    for t, dtype in (("f16", torch.float16), ("bf16", torch.bfloat16)):
        run(t, dtype, dev.default_stream, args.iters, args.rounds)


if __name__ == "__main__":
    main()
