"""Benchmark: the Hopper GEMM (``gemm_hopper``: TMA ring -> ``regcopy.wgmma``) beside regcopy's
mma.sync GEMM (``bench_gemm``), ``torch.matmul`` (cuBLAS) and the Triton ``tl.dot`` matmul,
same process, same GPU, f16 and bf16 in, f32 accumulation, output in the input type.

    python -m regcopy_bench.bench_gemm_hopper [--iters 20] [--sizes 4096x4096x4096,...]
    python -m regcopy_bench.bench_gemm_hopper --candidates 4096x4096x4096,4095x4097x4093
    python -m regcopy_bench.bench_gemm_hopper --sass-only      # no GPU: the SASS counts

``D[M,N] = A[M,K] @ B[N,K]^T``. TMA needs 16-byte row strides, so K % 8 != 0 pads the rows
of A and B to a multiple of 8 first (the row-padding kernel ``@pad_pair`` of
examples/gemm_hopper.mlir, one launch), and the ragged row's time includes it (the
breakdown is printed). The CTA tile is ``choose_tile``'s for each size (``--tile``). Each
kernel is first checked bit-exact against float64 on integer-valued inputs at ragged sizes,
then within tolerance of cuBLAS at every benchmarked size. The wgmma column times the user's
call (``hopper_launch.HopperGemm``); TFLOPS are ``2 M N K`` over the mean time of ``--iters``
calls back to back (``bench_gemm.time_ms``), the median of ``--rounds`` rounds that time the
row's columns in turn (``--cool S``: S seconds of idle GPU before each). ``--candidates`` first times every CTA tile x epilogue of
``gemm_hopper`` (f16, no peers) and the paddings at the sizes given, then the main table runs
the example's form (``--tile``, ``--epilogue`` override it; ``--also`` adds others).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from regcopy_bench.bench_gemm import SIZES, RegcopyGemm
from regcopy_bench.gemm_hopper import (
    EDGES,
    EPILOGUE,
    EXAMPLE,
    EPILOGUES,
    FORMS,
    PAD,
    PADS,
    TILE,
    TILES,
    choose_tile,
    pad_pair_text,
)
from regcopy_bench.hopper_launch import (  # noqa: F401 (re-exported: the benchmark's API)
    TMA,
    HopperGemm,
    hopper_lowered,
    pad_spec,
    parse_form,
)
from regcopy_bench.triton_matmul import triton_matmul


def pad_sass_report(pads: Sequence[str] = tuple(PADS)) -> list[str]:
    """SASS counts of the padding kernels (f16, odd K: the loads realigned; 32-bit index
    math): instructions, loads by width, byte permutes, branches, 128-bit stores, local
    memory."""
    import re

    from regcopy_backend.cuda.kernel_info import kernel_info, kernels
    from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
    from regcopy_backend.cuda.types import INDEX32_OPTION
    from regcopy_backend.cuda.printer import print_cuda
    from regcopy_tools.regcopy_run import parse_and_lower

    keys = ("LDG.E.128", "LDG.E.64", "LDG.E.CONSTANT", "LDG.E.U16", "PRMT", "BRA", "STG.E.128",
            "LDL", "STL")
    lines = []
    for pad in pads:
        rows, cols, passes = pad_spec(pad)
        module = parse_and_lower(pad_pair_text("pad", "f16", rows, cols), "pad.mlir", passes)
        index32 = (INDEX32_OPTION,) * kernel_info(kernels(module)[0]).index_switch
        sass = [ln for ln in disassemble(compile_cuda(print_cuda(module), options=index32).cubin
                                         ).splitlines()
                if re.search(r"/\*[0-9a-f]{4}\*/", ln)]
        count = {k: sum(1 for ln in sass if k in ln) for k in keys}
        lines.append(f"pad {pad} ({rows}x{cols}): {len(sass)} instructions, "
                     + ", ".join(f"{k} {v}" for k, v in count.items()))
    return lines


def wgmma_serialized(log: str) -> str:
    """ptxas's advisory (``-v``) that it waits for each wgmma before the next (C7515: a
    non-wgmma instruction defines an accumulator register inside the pipeline), or "": such a
    kernel runs its K loop without overlap, whatever its SASS counts say."""
    return next((ln.split("Potential Performance Loss:")[-1].strip() for ln in log.splitlines()
                 if "C7515" in ln), "")


def sass_report(forms: Sequence[str | Sequence[str]] = ((TILE, EPILOGUE),)) -> list[str]:
    """SASS counts of the Hopper kernel (f16, each form of ``parse_form``, 32-bit index math):
    HGMMA, TMA loads, barriers, shuffles, stores, local memory."""
    from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
    from regcopy_backend.cuda.types import INDEX32_OPTION

    lines = []
    for form in forms:
        tile, epilogue, edge, group = parse_form(form)
        if tile == "auto":  # the example's kernels
            lines += sass_report([(x, ep, f"e{e}") for x, (ep, e) in EXAMPLE.items()])
            continue
        source, info = hopper_lowered("f16", tile, epilogue or EPILOGUE, edge, group)
        # the 32-bit index form, the one the launches take at the benchmarked sizes
        compiled = compile_cuda(source, options=(INDEX32_OPTION,) * info.index_switch
                                + ("--ptxas-options=-v",))
        sass = disassemble(compiled.cubin)
        keys = (f"HGMMA.64x{TILES[tile][1]}x16.F32", *([f"HGMMA.64x{edge}x16.F32"] * bool(edge)),
                "UTMALDG", "SYNCS", "WARPGROUP.DEPBAR", "BAR.SYNC", "SHFL", "STG.E.128",
                "STG.E ", "STG.E.U16", "LDL", "STL")
        count = {k.strip(): sum(1 for ln in sass.splitlines() if k in ln) for k in keys}
        name = form if isinstance(form, str) else ",".join(form)
        serial = wgmma_serialized(compiled.log)
        lines.append(f"gemm_hopper f16 {name} ({compiled.arch}): "
                     + ", ".join(f"{k} {v}" for k, v in count.items())
                     + (f"; {serial}" if serial else ""))
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3,
                    help="rounds of the main table's interleaved timing (median)")
    ap.add_argument("--cool", type=float, default=0.0,
                    help="seconds of idle GPU before each of the main table's measurements")
    ap.add_argument("--sizes", default=",".join("x".join(map(str, s)) for s in SIZES))
    ap.add_argument("--dtypes", default="f16,bf16")
    ap.add_argument("--tile", choices=[*TILES, "auto"], default="auto")
    ap.add_argument("--epilogue", default=None,
                    choices=[*EPILOGUES, "rows-predicated", "rowwarp-shuffle",
                             "rowwarp256-shuffle"],
                    help="every tile's epilogue (default: the example's, EXAMPLE)")
    ap.add_argument("--form", default="", metavar="TILE,EPILOGUE[,eN][,gG]",
                    help="the main table's form (parse_form), overriding --tile, --epilogue")
    ap.add_argument("--candidates", default="", help="sizes for the candidate forms first")
    ap.add_argument("--forms", default=";".join(",".join(f) for f in FORMS),
                    help="the candidate forms, TILE,EPILOGUE;... (default: all of FORMS)")
    ap.add_argument("--pads", default=",".join(("two", *PADS)),
                    help="the candidate paddings (two, or NAME[+FORM]: a name of PADS, FORM a "
                    "misaligned-stores form such as staged)")
    ap.add_argument("--pad", choices=[*PADS, "best"], default=PAD,
                    help="the main table's padding; best: the fastest the candidates measured")
    ap.add_argument("--also", action="append", default=[], metavar="TILE,EPILOGUE",
                    help="another form of the kernel, timed beside the main one (a second table)")
    ap.add_argument("--no-triton", action="store_true")
    ap.add_argument("--no-peers", action="store_true",
                    help="the wgmma kernel alone (no mma.sync, cuBLAS, Triton; pair32 padding)")
    ap.add_argument("--sass-only", action="store_true")
    ap.add_argument("--diagnose", default="", metavar="SIZES",
                    help="first, the timing diagnosis of these padded sizes (timing_diagnosis)")
    args = ap.parse_args(argv)
    try:  # torch before any NVRTC compile (its import fails after one)
        import torch
    except ImportError:
        torch = None  # type: ignore[assignment]
    print("SASS (NVRTC):")
    forms = [tuple(f.split(",")) for f in args.forms.split(";") if f]
    for form in forms:
        parse_form(form)  # a bad form fails here, before any GPU work
    shown = (forms if args.candidates else [args.form] if args.form
             else [(x, args.epilogue or EXAMPLE[x][0], *[f"e{EDGES[x]}"] * bool(EDGES[x]))
                   for x in (TILES if args.tile == "auto" else (args.tile,))])
    for line in sass_report(shown):  # type: ignore[arg-type]
        print("  " + line)
    if args.sass_only and args.candidates:
        for line in pad_sass_report([p for p in args.pads.split(",") if p != "two"]):
            print("  " + line)
    if args.sass_only:
        return 0
    if torch is None or not torch.cuda.is_available():
        print("bench_gemm_hopper: needs torch and a CUDA GPU")
        return 2
    torch.cuda.init()
    from regcopy_bench.hopper_timing import (
        breakdown,
        candidates,
        checked,
        events_ms,
        exact_check,
        gpu_state,
        interleaved,
        operands,
        timing_diagnosis,
    )

    def parse(text: str) -> list[tuple[int, int, int]]:
        return [(int(x), int(y), int(z)) for x, y, z in (s.split("x") for s in text.split(","))]

    if args.diagnose:
        timing_diagnosis(parse(args.diagnose), args.iters, args.pad if args.pad in PADS else PAD)
    ok, best = (candidates(parse(args.candidates), args.iters, forms,  # type: ignore[arg-type]
                           args.pads.split(","))
                if args.candidates else (True, PAD))
    pad = best if args.pad == "best" else args.pad
    if not args.sizes:
        return 0 if ok else 1
    tri = None if args.no_triton or args.no_peers else triton_matmul()
    rows = []
    print(f"the form: {args.form or f'CTA tile {args.tile}, epilogue {args.epilogue or EXAMPLE}'}, "
          f"padding {pad} (odd K)")
    for t in args.dtypes.split(","):
        dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[t]
        mma = None if args.no_peers else RegcopyGemm(t)
        h = (HopperGemm(t, mma, *parse_form(args.form)) if args.form
             else HopperGemm(t, mma, args.tile, args.epilogue))
        stream = h.dev.default_stream
        ok &= exact_check(h, stream, dtype, t, pad)
        others = [HopperGemm(t, mma, *parse_form(form)) for form in args.also]
        aligned_call: Callable[[], None] | None = None  # holds its tensors alive
        aligned_flop = 0.0
        for m, n, k in parse(args.sizes):
            a, b, d = operands(m, n, k, dtype)
            run = h.launcher(a, b, d, stream, pad)
            chk = checked(run, a, b, d)
            ok &= chk == "ok"
            flop = 2.0 * m * n * k
            fns: dict[str, Callable[[], Any] | None] = {
                "wgmma": run,
                "mma.sync": None if mma is None else mma.launcher(a, b, d, stream),
                "cuBLAS": None if mma is None else partial(torch.matmul, a, b.T),
                "Triton": None if tri is None else partial(tri, a, b)}
            for form, other in zip(args.also, others, strict=True):
                alt = other.launcher(a, b, d, stream, pad)
                alt_chk = checked(alt, a, b, d)
                ok &= alt_chk == "ok"
                fns[form] = alt if alt_chk == "ok" else None
            print(f"  {t} {m}x{n}x{k}: GPU {gpu_state()}", flush=True)
            ms = interleaved(fns, args.iters, args.rounds, args.cool)
            tf = {key: flop / v / 1e9 for key, v in ms.items()}
            parts = breakdown(run, args.iters)
            same_run = float("nan")
            if k % 8:
                gpu, host = events_ms(run, args.iters)
                parts += f"; the call: GPU {gpu:.3f} ms (events), host {host * 1e3:.0f} us"
                if aligned_call is not None:  # the aligned call in the same rounds
                    pair = interleaved({"aligned": aligned_call, "ragged": run}, args.iters,
                                       args.rounds, args.cool)
                    same_run = (flop / pair["ragged"]) / (aligned_flop / pair["aligned"])
                    parts += (f"; interleaved with the aligned call: {pair['ragged']:.4f} ms "
                              f"against {pair['aligned']:.4f} ms, {same_run:.2f}x the aligned "
                              "TFLOPS")
            elif aligned_call is None:
                aligned_call, aligned_flop = run, flop
            tile = choose_tile(m, n, h.sms) if h.tile == "auto" else h.tile
            route = (("pad+TMA " if k % 8 else "TMA ") + tile
                     + f", {h.index_bits(m, n, k)}-bit index")
            rows.append((t, f"{m}x{n}x{k}", tf, chk, route, same_run))
            print(f"  {t} {m}x{n}x{k}: " + ", ".join(f"{key} {v:.0f}" for key, v in tf.items())
                  + f" TFLOPS ({chk})" + (f"; wgmma = {parts}" if parts else ""), flush=True)
    print()
    print("| dtype | M x N x K | wgmma TFLOPS | mma.sync TFLOPS | cuBLAS TFLOPS | Triton TFLOPS "
          "| wgmma / cuBLAS | wgmma / Triton | wgmma / aligned | operands, CTA tile, index | check |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for t, size, tf, chk, route, same_run in rows:
        aligned = next((r[2]["wgmma"] for r in rows if r[0] == t and r[4].startswith("TMA")),
                       tf["wgmma"])
        ratio = f"{tf['wgmma'] / aligned:.2f}x" + (
            f" ({same_run:.2f}x interleaved)" if same_run == same_run else "")
        print(f"| {t} | {size} | {tf['wgmma']:.0f} | {tf['mma.sync']:.0f} | {tf['cuBLAS']:.0f} "
              f"| {tf['Triton']:.0f} | {tf['wgmma'] / tf['cuBLAS']:.2f}x | "
              f"{tf['wgmma'] / tf['Triton']:.2f}x | {ratio} | {route} | {chk} |")
    print(f"(every column: the median of {args.rounds} rounds that time each column in turn, "
          f"{args.iters} calls back to back between two device synchronizations"
          + (f", each after {args.cool} s of idle GPU" if args.cool else "") + "; wgmma: the "
          "user's call, HopperGemm(a, b, d), host work included; pad+TMA: that call takes "
          "scratch A8, B8 from torch's caching allocator, pads the rows of A and B to K8 "
          f"({pad}: one launch) and runs the GEMM on them; 32-bit index math where every "
          "offset fits, as run_kernel picks; wgmma / aligned: to the first aligned size of "
          "the dtype, and in parentheses with that aligned call timed in the same rounds)")
    if args.also:
        main_form = args.form or f"{args.tile},{args.epilogue or 'example'}"
        print(f"\n| dtype | M x N x K | {main_form} | "
              + " | ".join(f"{x} | {x} / {main_form}" for x in args.also) + " |")
        print("|---|---|---|" + "---|---|" * len(args.also))
        for t, size, tf, *_ in rows:
            print(f"| {t} | {size} | {tf['wgmma']:.0f} | " + " | ".join(
                f"{tf[x]:.0f} | {tf[x] / tf['wgmma']:.2f}x" for x in args.also) + " |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
