"""regcopy's GEMM kernels as ``bench_gemm`` launches them: the variants timed (CTA tiles, the
staged kernel, the row padding) compiled once per dtype in both index forms, and launchers on
torch tensors in the form the runner would pick (``gemm_build.use_index32``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from regcopy_bench.gemm_build import Job, build_all, use_index32
from regcopy_bench.gemm_hopper import pad_pair_grid, pad_pair_text
from regcopy_bench.gemm_kernels import (
    CANDIDATES,
    CTA_M,
    NARROW,
    candidate_block,
    candidate_grid,
    candidate_text,
    kernel_text,
)
from regcopy_bench.gemm_side import PAD_LAYOUT, PAD_LAYOUTS, pad_grid, pad_kernel_text

VARIANTS = ("async", "narrow", "tall", "quad", "columns")
"""The kernels timed: the cp.async ring (K % 8 == 0) on the example's 128 x 256 CTA tiles, on
128 x 128 ones (``narrow``: warp tiles 64 x 32, two CTAs an SM), on 256 x 128 ones
(``tall``: warps 4 (M) x 2 (N)) and on 128 x 128 ones of 4 warps of 64 x 64 (``quad``, the
``convert`` epilogue: two CTAs an SM, 4 waves at 4095 x 4097 on 132 SMs), each with the
example's narrow edge tile (``gemm_kernels.EDGE_COLS``), and the staged
kernel (any K) with its ``columns`` layout (``gemm_kernels.STAGED_LAYOUTS``; ``rows``, 84
TFLOPS against 140 on the H200, is no longer timed)."""
STAGED = ("rows", "columns")
TILES: dict[str, dict[str, int | bool | str]] = {
    "async": {}, "narrow": NARROW, "tall": {"cm": 2 * CTA_M},
    "quad": {"warps": 4, "epilogue": "convert"}}
"""The ``candidate_text`` arguments of the cp.async variants (the example's otherwise)."""
LABELS = {"async": "128x256", "narrow": "128x128", "tall": "256x128", "quad": "128x128/4w"}
OTHER_TILES = ("narrow", "tall", "quad")
"""The CTA tiles timed beside the example's (each size's table row takes the fastest)."""
STORE_FORMS: dict[str, tuple[dict[str, int | bool | str], str, str]] = {
    "tall-predicated": (TILES["tall"], "predicated", "256x128 predicated stores"),
    "quad-predicated": (TILES["quad"], "predicated", "128x128/4w predicated stores"),
    "tall-convert": ({**TILES["tall"], "epilogue": "convert"}, "auto", "256x128 convert"),
}
"""Epilogue forms timed on the padded route only, as ``(kernel_text arguments,
misaligned-stores, label)``: the 256 x 128 and 4-warp 128 x 128 kernels with D's misaligned
vectors (rows where N % 8 != 0) each narrow piece under its own predicate instead of the cost
model's realigned pieces (one branch per misalignment), and the 256 x 128 kernel with the
``convert`` epilogue (each warp stores its own rows from registers: no shared round trip)."""
PAIR_TILES = ((4, 1024), (8, 512), (32, 256))
"""The CTA tiles (rows x columns) of the pair padding compiled and timed alone; the padded
route takes the fastest (``RegcopyGemm.pair_tile``, default the first: on the H200 at 4095 x
4093 + 4097 x 4093, 4 x 1024 and 8 x 512 0.037 ms, 3.66 TB/s, 32 x 256 0.040 ms)."""


def local_accesses(cubin: bytes) -> int:
    """LDL/STL instructions in ``cubin``'s SASS (this machine's NVRTC)."""
    from regcopy_backend.cuda.nvrtc import disassemble

    return sum(1 for ln in disassemble(cubin).splitlines() if " LDL" in ln or " STL" in ln)


class RegcopyGemm:
    """regcopy's GEMM kernels for one dtype (``VARIANTS``, with ``candidates`` every kernel of
    ``gemm_kernels.CANDIDATES`` too), compiled once in both index forms, launched on torch
    tensors in the form the runner would pick (``gemm_build.use_index32``)."""

    def __init__(self, t: str, candidates: bool = False) -> None:
        from regcopy_backend.runtime.runner import (
            cuda_core,
            get_device,
            set_dynamic_shared_memory,
        )

        self.core, self.dev = cuda_core(), get_device()
        self.dev.set_current()
        self.kernels: dict[str, tuple[Any, Any, Any]] = {}
        self.shape: dict[str, dict[str, int | bool | str]] = {}
        self.local: dict[str, tuple[int, int]] = {}
        """LDL/STL in each candidate's SASS (64-bit form, 32-bit form), with ``candidates``."""
        for variant in VARIANTS:
            self.shape[variant] = TILES.get(variant, {})
        if candidates:
            self.shape.update((name, kw) for name, kw in CANDIDATES.items() if kw)
        jobs: dict[str, Job] = {
            name: (candidate_text(f"gemm_{t}", t, kw) if name not in STAGED
                   else kernel_text(f"gemm_{t}", t, True, name))
            for name, kw in self.shape.items()}
        for name, (kw, stores, _) in STORE_FORMS.items():
            self.shape[name] = kw
            jobs[name] = (candidate_text(f"gemm_{t}", t, kw), stores)
        for layout in PAD_LAYOUTS:
            jobs[f"pad_{layout}"] = pad_kernel_text(f"pad_{t}", t, layout)
        for rows, cols in PAIR_TILES:
            jobs[f"pair{rows}x{cols}"] = pad_pair_text(f"pad_pair_{t}", t, rows, cols)
        self.pair_tile = PAIR_TILES[0]
        """The CTA tile of the pair padding that ``pair_launcher`` launches."""
        for name, built in build_all(jobs).items():
            forms = []
            for cubin in (built.cubin64, built.cubin32):
                kernel = self.core.ObjectCode.from_cubin(cubin).get_kernel(built.info.symbol)
                set_dynamic_shared_memory(self.dev, kernel, built.info.dynamic_shared_bytes)
                forms.append(kernel)
            self.kernels[name] = (forms[0], forms[1], built.info)
            if candidates and name in self.shape:
                self.local[name] = (local_accesses(built.cubin64), local_accesses(built.cubin32))

    def form(self, name: str, shapes: list[tuple[int, ...]]) -> tuple[Any, Any]:
        """``(kernel, KernelInfo)`` of kernel ``name`` in the index form for buffers of
        ``shapes``."""
        k64, k32, info = self.kernels[name]
        return (k32 if use_index32(info, shapes) else k64), info

    def pad_launcher(self, x: Any, y: Any, stream: Any, layout: str = PAD_LAYOUT
                     ) -> Callable[[], None]:
        """One launch of the row-padding kernel (``layout``: ``PAD_LAYOUTS``): ``y`` (R x
        K8) = ``x`` (R x K), zeros after."""
        from regcopy_backend.runtime.runner import extent_values
        kernel, info = self.form(f"pad_{layout}", [tuple(x.shape), tuple(y.shape)])
        args: list[Any] = []
        for p, v in zip(info.params, (x, y), strict=True):
            args += [v.data_ptr(), *extent_values(info, p, tuple(v.shape))]
        config = self.core.LaunchConfig(grid=pad_grid(y.shape[0], y.shape[1]),
                                        block=(256, 1, 1))
        return lambda: self.core.launch(stream, config, kernel, *args)

    def pair_launcher(self, xs: tuple[Any, Any], ys: tuple[Any, Any], stream: Any,
                      tile: tuple[int, int] | None = None) -> Callable[[], None]:
        """One launch of ``gemm_hopper.pad_pair_text`` (CTA tile ``tile``, default
        ``pair_tile``; block z picks the operand): ``ys[i]`` = ``xs[i]`` padded as
        ``pad_launcher`` pads one."""
        from regcopy_backend.runtime.runner import extent_values
        rows, cols = tile or self.pair_tile
        shapes = [tuple(v.shape) for v in (xs[0], ys[0], xs[1], ys[1])]
        kernel, info = self.form(f"pair{rows}x{cols}", shapes)
        args: list[Any] = []
        for p, v in zip(info.params, (xs[0], ys[0], xs[1], ys[1]), strict=True):
            args += [v.data_ptr(), *extent_values(info, p, tuple(v.shape))]
        grid = pad_pair_grid(xs[0].shape[0], xs[1].shape[0], ys[0].shape[1], rows, cols)
        config = self.core.LaunchConfig(grid=grid, block=(256, 1, 1))
        return lambda: self.core.launch(stream, config, kernel, *args)

    def padded_launcher(self, a: Any, b: Any, d: Any, stream: Any, gemm: str = "async",
                        pair: bool = False) -> Callable[[], None]:
        """K % 8 != 0: pad A and B to K8 (two launches, or one of the pair kernel with
        ``pair``), then the cp.async GEMM ``gemm`` (a variant) on them."""
        import torch
        k8 = -(-a.shape[1] // 8) * 8
        a8 = torch.empty(a.shape[0], k8, device=a.device, dtype=a.dtype)
        b8 = torch.empty(b.shape[0], k8, device=b.device, dtype=b.dtype)
        pads = ([self.pair_launcher((a, b), (a8, b8), stream)] if pair
                else [self.pad_launcher(a, a8, stream), self.pad_launcher(b, b8, stream)])
        steps = [*pads, self.launcher(a8, b8, d, stream, gemm)]

        def run() -> None:
            for step in steps:
                step()
        run.buffers = (a8, b8)  # type: ignore[attr-defined]  # alive as long as the call
        run.steps = steps  # type: ignore[attr-defined]  # timed one by one (bench's split)
        return run

    def launcher(self, a: Any, b: Any, d: Any, stream: Any, variant: str | None = None,
                 index64: bool = False) -> Callable[[], None]:
        """One launch of ``D = A B^T``: the cp.async kernel where K % 8 == 0, else the
        padded route (``variant`` picks another; ``index64``: the 64-bit index form
        whatever the sizes)."""
        from regcopy_backend.runtime.runner import extent_values
        m, k = a.shape
        n = b.shape[0]
        if variant is None:
            variant = "async" if k % 8 == 0 else "pad"
        if variant == "pad":
            return self.padded_launcher(a, b, d, stream)
        if variant.startswith("pad-"):
            return self.padded_launcher(a, b, d, stream, variant.removeprefix("pad-"))
        if variant == "pair" or variant.startswith("pair-"):
            return self.padded_launcher(a, b, d, stream,
                                        variant.removeprefix("pair").lstrip("-") or "async",
                                        pair=True)
        kernel, info = self.form(variant, [tuple(x.shape) for x in (a, b, d)])
        if index64:
            kernel = self.kernels[variant][0]
        args: list[Any] = []
        for p, x in zip(info.params, (a, b, d), strict=True):
            args += [x.data_ptr(), *extent_values(info, p, tuple(x.shape))]
        config = self.core.LaunchConfig(grid=candidate_grid(m, n, self.shape[variant]),
                                        block=(candidate_block(self.shape[variant]), 1, 1),
                                        shmem_size=info.dynamic_shared_bytes)
        return lambda: self.core.launch(stream, config, kernel, *args)
