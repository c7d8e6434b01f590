"""Benchmark: the Hopper GEMM (``gemm_hopper``: TMA ring -> ``regcopy.wgmma``) beside regcopy's
mma.sync GEMM (``bench_gemm``), ``torch.matmul`` (cuBLAS) and the Triton ``tl.dot`` matmul,
same process, same GPU, f16 and bf16 in, f32 accumulation, output in the input type.

    python -m regcopy_bench.bench_gemm_hopper [--iters 20] [--sizes 4096x4096x4096,...]
    python -m regcopy_bench.bench_gemm_hopper --candidates 4096x4096x4096,4095x4097x4093
    python -m regcopy_bench.bench_gemm_hopper --sass-only      # no GPU: the SASS counts

``D[M,N] = A[M,K] @ B[N,K]^T``. TMA needs 16-byte row strides, so K % 8 != 0 pads the rows
of A and B to a multiple of 8 first (the row-padding kernel ``@pad_pair`` of
examples/gemm_hopper.mlir, one launch), and the ragged row's time includes it (the
breakdown is printed). The CTA tile is ``choose_tile``'s for each size (``--tile``). Each kernel is first checked bit-exact against float64 on
integer-valued inputs at ragged sizes, then within tolerance of cuBLAS at every benchmarked
size. TFLOPS are ``2 M N K`` over the mean time of ``--iters`` launches back to back
(``bench_gemm.time_ms``). ``--candidates`` first times every CTA tile x epilogue of
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
    EPILOGUES,
    FORMS,
    PAD,
    PADS,
    TILE,
    TILES,
    choose_tile,
    grid,
    kernel_text,
    pad_pair_grid,
    pad_pair_text,
)
from regcopy_bench.triton_matmul import triton_matmul

TMA = "lower-reg-copy{transfer=tma}"


def parse_form(form: str | Sequence[str]) -> tuple[str, str, int | None, int]:
    """``TILE,EPILOGUE[,eN][,gG]`` (or its split parts) -> ``(tile, epilogue, edge, group)``:
    ``eN`` the edge tile's width (``kernel_text``'s ``edge``; default none, or the example's
    ``EDGES`` for the ``auto`` tile), ``gG`` the M tiles of a raster group (default 8).
    ``EPILOGUE`` may end in ``-FORM``: a ``misaligned-stores`` form (``rows-predicated``) or a
    ``conversion`` (``rowwarp-shuffle``), lowering options."""
    parts = form.split(",") if isinstance(form, str) else list(form)
    tile, epilogue = parts[0], parts[1] if len(parts) > 1 else EPILOGUE
    edge: int | None = None if tile == "auto" else 0
    group = 8
    for extra in parts[2:]:
        if extra.startswith("e"):
            edge = int(extra[1:])
        elif extra.startswith("g"):
            group = int(extra[1:])
        else:
            raise ValueError(f"form {form!r}: {extra!r} is neither eN (edge) nor gG (group)")
    return tile, epilogue, edge, group


def hopper_lowered(t: str, tile: str = TILE, epilogue: str = EPILOGUE, edge: int | None = 0,
                   group: int = 8) -> tuple[str, Any]:
    """``(CUDA source, KernelInfo)`` of the Hopper kernel for ``t``, lowered with TMA."""
    from regcopy_backend.cuda.kernel_info import kernel_info, kernels
    from regcopy_backend.cuda.printer import print_cuda
    from regcopy_tools.regcopy_run import parse_and_lower

    base, _, option = epilogue.partition("-")  # rows-predicated: a pass option
    text = kernel_text(f"gemm_hopper_{t}", t, tile=tile, epilogue=base, edge=edge or 0,
                       group=group)
    name = "conversion" if option in ("shuffle", "shared") else "misaligned-stores"
    passes = TMA.replace("}", f" {name}={option}}}") if option else TMA
    module = parse_and_lower(text, "gemm_hopper.mlir", passes)
    return print_cuda(module), kernel_info(kernels(module)[0])


def pad_spec(pad: str) -> tuple[int, int, str]:
    """``NAME[+FORM]`` -> the CTA tile ``PADS[NAME]`` and the passes that lower the padding
    (``FORM``: a ``misaligned-stores`` form, e.g. ``staged``, which stages the loads too)."""
    name, _, form = pad.partition("+")
    rows, cols = PADS[name]
    return rows, cols, TMA.replace("}", f" misaligned-stores={form}}}") if form else TMA


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
        source, info = hopper_lowered("f16", tile, epilogue, edge, group)
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


class HopperGemm:
    """The Hopper kernel for one dtype, compiled once in both index forms, launched on torch
    tensors in the form ``run_kernel`` would pick (``KernelVariants.for_launch``: 32-bit
    index math where every offset fits). ``tile="auto"``: both CTA tiles compiled, each
    launch taking ``choose_tile``'s. ``edge``/``group``: ``kernel_text``'s (``edge`` None:
    the example's, ``EDGES``)."""

    def __init__(self, t: str, mma: RegcopyGemm | None, tile: str = "auto",
                 epilogue: str = EPILOGUE, edge: int | None = None, group: int = 8) -> None:
        from regcopy_backend.runtime.runner import get_device
        from regcopy_backend.runtime.variants import KernelVariants

        self.mma, self.tile, self.t = mma, tile, t
        self.dev = mma.dev if mma is not None else get_device()
        self.dev.set_current()
        self.sms = int(self.dev.properties.multiprocessor_count)
        self.pairs: dict[str, tuple[Any, Any]] = {}
        self.kernels: dict[str, tuple[Any, Any]] = {}
        self.prepared: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        """Launches already encoded, by (kernel, pointers, shapes): a call on the buffers
        of an earlier call (torch's caching allocator hands the scratch back) skips the
        tensor-map encoding, as a library's descriptor cache does."""
        for x in (TILES if tile == "auto" else (tile,)):
            source, info = hopper_lowered(t, x, epilogue, EDGES[x] if edge is None else edge,
                                          group)
            self.kernels[x] = (KernelVariants(self.dev, source, info), info)

    def pad_pair(self, pad: str) -> tuple[Any, Any]:
        """The ``KernelVariants`` of ``pad_pair_text``'s kernel for ``pad`` (``pad_spec``)
        and its KernelInfo."""
        from regcopy_backend.cuda.kernel_info import kernel_info, kernels
        from regcopy_backend.cuda.printer import print_cuda
        from regcopy_backend.runtime.variants import KernelVariants
        from regcopy_tools.regcopy_run import parse_and_lower

        if pad not in self.pairs:
            rows, cols, passes = pad_spec(pad)
            module = parse_and_lower(pad_pair_text("pad_pair", self.t, rows, cols), "pad.mlir",
                                     passes)
            info = kernel_info(kernels(module)[0])
            self.pairs[pad] = (KernelVariants(self.dev, print_cuda(module), info), info)
        return self.pairs[pad]

    def _prepare(self, key: str, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """``(kernel, grid, block, shared bytes, values)`` of one launch on ``args``: the
        padding ``key`` (a name of ``PADS``) or the GEMM (``key`` "gemm")."""
        from regcopy_backend.runtime.runner import launch_arguments, tensor_maps

        ptrs = [x.data_ptr() for x in args]
        shapes = [tuple(x.shape) for x in args]
        cache = (key, *ptrs, *shapes)
        if (hit := self.prepared.get(cache)) is not None:
            return hit
        if key == "gemm":
            m, n = shapes[0][0], shapes[1][0]
            tile = choose_tile(m, n, self.sms) if self.tile == "auto" else self.tile
            variants, info = self.kernels[tile]
            g = grid(m, n, tile)
            values = launch_arguments(info, args, ptrs) + tensor_maps(info, args, ptrs)
        else:
            variants, info = self.pad_pair(key)
            g = pad_pair_grid(shapes[0][0], shapes[2][0], shapes[1][1], *pad_spec(key)[:2])
            values = launch_arguments(info, args, ptrs)
        kernel = variants.for_launch(shapes, g)
        out = (kernel, g, info.block, info.dynamic_shared_bytes, values)
        if len(self.prepared) > 64:
            self.prepared.clear()
        self.prepared[cache] = out
        return out

    def index_bits(self, m: int, n: int, k: int) -> int:
        """The index width (32 or 64) of the GEMM launch of an M x N x K call (K rounded up
        to 8, as the call pads it)."""
        tile = choose_tile(m, n, self.sms) if self.tile == "auto" else self.tile
        k8 = -(-k // 8) * 8
        variants = self.kernels[tile][0]
        return 32 if variants.index32([(m, k8), (n, k8), (m, n)], grid(m, n, tile)) else 64

    def _launch(self, stream: Any, key: str, args: tuple[Any, ...]) -> None:
        from regcopy_backend.runtime.tensor_map import launch_raw
        kernel, g, block, shmem, values = self._prepare(key, args)
        launch_raw(kernel, stream, g, block, shmem, values)

    def pad_launcher(self, xs: tuple[Any, Any], ys: tuple[Any, Any], stream: Any,
                     pad: str) -> list[Callable[[], None]]:
        """The launches that pad ``xs`` into ``ys``: ``two`` (``@pad_rows`` twice) or a name
        of ``PADS`` (``pad_pair_text`` with that CTA tile, one launch)."""
        if pad == "two":
            assert self.mma is not None, "pad=two launches bench_gemm's @pad_rows"
            return [self.mma.pad_launcher(x, y, stream) for x, y in zip(xs, ys, strict=True)]
        args = (xs[0], ys[0], xs[1], ys[1])
        return [partial(self._launch, stream, pad, args)]

    def direct(self, a: Any, b: Any, d: Any, stream: Any) -> Callable[[], None]:
        """One launch (K % 8 == 0)."""
        return partial(self._launch, stream, "gemm", (a, b, d))

    def __call__(self, a: Any, b: Any, d: Any, stream: Any, pad: str = PAD) -> None:
        """The user's call, ``D = A B^T`` on torch tensors: where K % 8 == 0 one launch;
        else the scratch ``A8``, ``B8`` (K8-wide rows) from torch's caching allocator, the
        padding ``pad`` into them, then the GEMM on them. Everything a call does, host work
        included: ``bench_gemm_hopper`` times this."""
        import torch
        k = a.shape[1]
        if k % 8 == 0:
            self._launch(stream, "gemm", (a, b, d))
            return
        k8 = -(-k // 8) * 8
        a8 = torch.empty(a.shape[0], k8, device=a.device, dtype=a.dtype)
        b8 = torch.empty(b.shape[0], k8, device=b.device, dtype=b.dtype)
        for step in self.pad_launcher((a, b), (a8, b8), stream, pad):
            step()
        self._launch(stream, "gemm", (a8, b8, d))

    def launcher(self, a: Any, b: Any, d: Any, stream: Any, pad: str = PAD
                 ) -> Callable[[], None]:
        """``D = A B^T`` as the user's call (``__call__``); where K % 8 != 0 it carries
        ``steps``, the padding's and the GEMM's launches on scratch of its own, each to be
        timed alone (``breakdown``)."""
        import torch
        run = partial(self, a, b, d, stream, pad)
        k = a.shape[1]
        if k % 8 == 0:
            return run
        k8 = -(-k // 8) * 8
        a8 = torch.empty(a.shape[0], k8, device=a.device, dtype=a.dtype)
        b8 = torch.empty(b.shape[0], k8, device=b.device, dtype=b.dtype)
        steps = [*self.pad_launcher((a, b), (a8, b8), stream, pad), self.direct(a8, b8, d, stream)]

        def call() -> None:
            run()
        call.steps = steps  # type: ignore[attr-defined]  # pad A, pad B, GEMM: the breakdown
        call.buffers = (a8, b8)  # type: ignore[attr-defined]  # alive as long as the call

        def pair() -> None:
            for step in steps:
                step()
        call.pair = pair  # type: ignore[attr-defined]  # the launches alone, no host work
        return call


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
    ap.add_argument("--epilogue", choices=[*EPILOGUES, "rows-predicated"], default=EPILOGUE)
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
             else [(x, args.epilogue, *[f"e{EDGES[x]}"] * bool(EDGES[x]))
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
    print(f"the form: {args.form or f'CTA tile {args.tile}, epilogue {args.epilogue}'}, "
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
        main_form = args.form or f"{args.tile},{args.epilogue}"
        print(f"\n| dtype | M x N x K | {main_form} | "
              + " | ".join(f"{x} | {x} / {main_form}" for x in args.also) + " |")
        print("|---|---|---|" + "---|---|" * len(args.also))
        for t, size, tf, *_ in rows:
            print(f"| {t} | {size} | {tf['wgmma']:.0f} | " + " | ".join(
                f"{tf[x]:.0f} | {tf[x] / tf['wgmma']:.2f}x" for x in args.also) + " |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
