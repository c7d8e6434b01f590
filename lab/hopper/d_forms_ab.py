"""A/B on the H200: the form of D's misaligned stores in both GEMMs' epilogues.

Each GEMM runs alone on padded operands (K = 4096) at N = 4097 (every row of D misaligned:
the epilogue's fallback stores) and at N = 4104 (aligned: the same grid, the wide path), its
epilogue lowered with ``misaligned-stores`` = ``auto`` (the kernel's own choice: the cost
model's, shuffled, in the runs of 2026-12-04; realigned since the examples' D stores ask for it
with ``{misaligned_stores}``), ``realigned``, ``shuffled`` and ``predicated``; all timed interleaved
in one process (``hopper_timing.interleaved``), every output checked against the aligned
run's first 4097 columns (the same A and B, so the same sums). The ratio ``N=4104 / N=4097`` is what the
misaligned stores cost. wgmma: the tile ``choose_tile`` takes at 4095 x 4097 (256 x 128,
its example epilogue); mma.sync: the example's 128 x 256 kernel.

Run: ``python3 lab/hopper/d_forms_ab.py [--iters 20] [--rounds 3]`` (GPU; about 90 s, most
of it compiling)."""

from __future__ import annotations

import argparse
from typing import Any

FORMS = ("auto", "realigned", "shuffled", "predicated")


def _check(name: str, d: Any, ref: Any) -> None:
    err = float((d.float() - ref.float()).abs().max())
    print(f"  {name}: max |D - D(N=4104)[:, :4097]| = {err:.3g}")
    assert err <= 1.0, name  # the same sums; at most a rounding apart (|D| < 256: 1 bf16 ulp)


def _operands(m: int, n: int, k: int, dtype: Any, seed: int
              ) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
    """``(A, B, B_wide, D_wide, {form: D})``: random A (m x k) and B_wide (4104 x k), B its
    first ``n`` rows, D_wide (m x 4104) and one m x n D a form."""
    import torch

    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(m, k, device="cuda", dtype=dtype, generator=g)
    bw = torch.randn(4104, k, device="cuda", dtype=dtype, generator=g)
    dw = torch.empty(m, 4104, device="cuda", dtype=dtype)
    ds = {f: torch.empty(m, n, device="cuda", dtype=dtype) for f in FORMS}
    return a, bw[:n].contiguous(), bw, dw, ds


def hopper(t: str, dtype: Any, stream: Any, iters: int, rounds: int) -> None:
    import torch

    from regcopy_bench.gemm_hopper import EXAMPLE, choose_tile
    from regcopy_bench.hopper_launch import HopperGemm
    from regcopy_bench.hopper_timing import interleaved

    m, n, k = 4095, 4097, 4096
    tile = choose_tile(m, n)
    epilogue, edge = EXAMPLE[tile]
    gemms = {f: HopperGemm(t, None, tile=tile, edge=edge,
                           epilogue=epilogue if f == "auto" else f"{epilogue}-{f}")
             for f in FORMS}
    a, b, bw, dw, ds = _operands(m, n, k, dtype, 7)
    gemms["auto"](a, bw, dw, stream)
    for f in FORMS:
        gemms[f](a, b, ds[f], stream)
    torch.cuda.synchronize()
    for f in FORMS:
        _check(f"wgmma {t} {tile} {f}", ds[f], dw[:, :n])
    fns = {"N=4104 (aligned)": lambda: gemms["auto"](a, bw, dw, stream)}
    for f in FORMS:
        fns[f"N=4097 {f}"] = (lambda f=f: gemms[f](a, b, ds[f], stream))
    _report(f"wgmma {t} {tile}", interleaved(fns, iters, rounds=rounds, cool=0.3))


def mma(t: str, dtype: Any, stream: Any, iters: int, rounds: int) -> None:
    import torch

    from regcopy_bench import gemm_launch
    from regcopy_bench.gemm_launch import TILES, RegcopyGemm
    from regcopy_bench.hopper_timing import interleaved

    for f in FORMS[1:]:
        gemm_launch.STORE_FORMS[f"async-{f}"] = (TILES["async"], f, f"128x256 {f} stores")
    gemm = RegcopyGemm(t)
    m, n, k = 4095, 4097, 4096
    a, b, bw, dw, ds = _operands(m, n, k, dtype, 8)
    fns = {"N=4104 (aligned)": gemm.launcher(a, bw, dw, stream, "async")}
    for f in FORMS:
        fns[f"N=4097 {f}"] = gemm.launcher(a, b, ds[f], stream,
                                            "async" if f == "auto" else f"async-{f}")
    for fn in fns.values():
        fn()
    torch.cuda.synchronize()
    for f in FORMS:
        _check(f"mma.sync {t} 128x256 {f}", ds[f], dw[:, :n])
    _report(f"mma.sync {t} 128x256", interleaved(fns, iters, rounds=rounds, cool=0.3))


def _report(what: str, ms: dict[str, float]) -> None:
    base = ms["N=4104 (aligned)"]
    for key, v in ms.items():
        print(f"  {what} {key}: {v:.4f} ms ({base / v:.3f}x of N=4104's speed)")


def main() -> None:
    import torch

    from regcopy_backend.runtime.runner import get_device

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    dev = get_device()
    dev.set_current()
    stream = dev.default_stream
    print(f"torch {torch.__version__}")
    hopper("bf16", torch.bfloat16, stream, args.iters, args.rounds)
    mma("f16", torch.float16, stream, args.iters, args.rounds)


if __name__ == "__main__":
    main()
