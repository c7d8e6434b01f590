"""The Hopper GEMM launched on torch tensors (``HopperGemm``): the kernels of
``gemm_hopper`` lowered with ``transfer=tma`` (``hopper_lowered``, forms by ``parse_form``),
compiled in both index forms and launched in the one ``run_kernel`` would pick
(``KernelVariants.for_launch``), the row padding for K % 8 != 0 (``pad_spec``), and the
user's call (``HopperGemm.__call__``) that ``bench_gemm_hopper`` times."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from regcopy_bench.bench_gemm import RegcopyGemm
from regcopy_bench.gemm_hopper import (
    EPILOGUE,
    EXAMPLE,
    PAD,
    PADS,
    TILE,
    TILES,
    choose_tile,
    grid,
    kernel_text,
    pad_pair_grid,
    pad_pair_text,
    split_epilogue,
)

TMA = "lower-reg-copy{transfer=tma}"


def parse_form(form: str | Sequence[str]) -> tuple[str, str | None, int | None, int]:
    """``TILE,EPILOGUE[,eN][,gG]`` (or its split parts) -> ``(tile, epilogue, edge, group)``:
    ``eN`` the edge tile's width (``kernel_text``'s ``edge``; default none), ``gG`` the M tiles
    of a raster group (default 8); for the ``auto`` tile the epilogue and the edge default to
    the example's (``EXAMPLE``, None).
    ``EPILOGUE`` may end in ``-FORM``: a ``misaligned-stores`` lowering option
    (``rows-predicated``) or the conversions' own kind (``rowwarp-shuffle``: ``split_epilogue``)."""
    parts = form.split(",") if isinstance(form, str) else list(form)
    tile = parts[0]
    epilogue: str | None = parts[1] if len(parts) > 1 else None if tile == "auto" else EPILOGUE
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

    base, conversion, form = split_epilogue(epilogue)
    text = kernel_text(f"gemm_hopper_{t}", t, tile=tile, epilogue=base, edge=edge or 0,
                       group=group, conversion=conversion)
    passes = TMA.replace("}", f" misaligned-stores={form}}}") if form else TMA
    module = parse_and_lower(text, "gemm_hopper.mlir", passes)
    return print_cuda(module), kernel_info(kernels(module)[0])


def pad_spec(pad: str) -> tuple[int, int, str]:
    """``NAME[+FORM]`` -> the CTA tile ``PADS[NAME]`` and the passes that lower the padding
    (``FORM``: a ``misaligned-stores`` form, e.g. ``staged``, which stages the loads too)."""
    name, _, form = pad.partition("+")
    rows, cols = PADS[name]
    return rows, cols, TMA.replace("}", f" misaligned-stores={form}}}") if form else TMA


class HopperGemm:
    """The Hopper kernel for one dtype, compiled once in both index forms, launched on torch
    tensors in the form ``run_kernel`` would pick (``KernelVariants.for_launch``: 32-bit
    index math where every offset fits). ``tile="auto"``: both CTA tiles compiled, each
    launch taking ``choose_tile``'s. ``epilogue``/``edge``/``group``: ``kernel_text``'s
    (``epilogue``, ``edge`` None: the example's, ``EXAMPLE``)."""

    def __init__(self, t: str, mma: RegcopyGemm | None, tile: str = "auto",
                 epilogue: str | None = None, edge: int | None = None, group: int = 8) -> None:
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
            source, info = hopper_lowered(t, x, EXAMPLE[x][0] if epilogue is None else epilogue,
                                          EXAMPLE[x][1] if edge is None else edge, group)
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
