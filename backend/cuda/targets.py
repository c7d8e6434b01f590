"""The targets that need no GPU beyond ``-t cuda``: ``-t ptx`` and ``-t sass``.

Both print the lowered module as CUDA (``print_cuda``), compile it with NVRTC for ``arch``
(``sm_90`` by default; ``-t 'ptx{arch=sm_100}'``) and print the PTX, or the SASS that
``nvdisasm`` makes of the cubin. ``-t sass`` also warns, one line on stderr per kernel, when a
kernel's SASS has local-memory loads or stores (``spills``). Any failure (a module that is
not lowered, NVRTC refusing the source, nvdisasm missing) is one ``CudaEmitError``
diagnostic.

A module with runtime-shaped kernels (their index math is ``rc_index``: 64-bit as printed,
32-bit under ``-DREGCOPY_INDEX32``) compiles with 32-bit index math by default, the form the
runner launches whenever every offset of the launch fits in an ``int``; ``index=64``
(``-t 'sass{index=64}'``) compiles the 64-bit form, what the source gives compiled as it is
(and what the runner launches on buffers of 2^31 elements or more). The listing's first line
then says which form it shows (``index_note``). A module without runtime-shaped kernels has
one form, unchanged by the option.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from regcopy_backend.cuda.kernel_info import kernel_info, kernels, switchable_index
from regcopy_backend.cuda.printer import CudaEmitError, print_cuda
from regcopy_backend.cuda.spills import local_traffic
from regcopy_backend.cuda.types import INDEX32_OPTION
from regcopy_backend.cuda.nvrtc import (
    DEFAULT_ARCH,
    Compiled,
    NvdisasmError,
    NvrtcError,
    compile_cuda,
    disassemble,
)

_ARCH = re.compile(r"sm_\d+[a-z]?\Z")


INDEX_WIDTHS = (32, 64)


def index_options(module: ModuleOp, index: int) -> tuple[str, ...]:
    """The NVRTC options of the ``index``-bit form of ``module`` (``-DREGCOPY_INDEX32`` for
    32 when it has runtime-shaped kernels); ``CudaEmitError`` for a width other than 32/64."""
    if index not in INDEX_WIDTHS:
        raise CudaEmitError(f"index={index}: the index width is 32 or 64")
    return (INDEX32_OPTION,) if index == 32 and has_switch(module) else ()


def has_switch(module: ModuleOp) -> bool:
    """Whether some function of ``module`` indexes in ``rc_index`` (runtime-shaped buffers)."""
    return any(isinstance(op, func.FuncOp) and switchable_index(op) for op in module.ops)


def index_note(module: ModuleOp, index: int, comment: str) -> str:
    """The listing's first line naming its index form (``comment``: the listing's comment
    marker), or nothing for a module with one form."""
    if not has_switch(module):
        return ""
    if index == 32:
        what = ("32-bit (-DREGCOPY_INDEX32: what the runner launches when every offset fits "
                "in int; index=64 shows the 64-bit form)")
    else:
        what = ("64-bit (the source as printed; what the runner launches on buffers of 2^31 "
                "elements or more; index=32 shows the 32-bit form)")
    return f"{comment} regcopy: index math of the runtime-shaped kernels: {what}\n"


def compile_module(module: ModuleOp, arch: str, index: int = 32) -> Compiled:
    """Print ``module`` as CUDA and compile it for ``arch`` in its ``index``-bit form;
    ``CudaEmitError`` on failure."""
    return compile_source(print_cuda(module), arch, index_options(module, index))


def compile_source(source: str, arch: str, options: tuple[str, ...] = ()) -> Compiled:
    """Compile printed CUDA for ``arch``; ``CudaEmitError`` on failure."""
    if not _ARCH.match(arch):
        raise CudaEmitError(f"arch '{arch}' is not a GPU architecture such as sm_90")
    try:
        return compile_cuda(source, arch=arch, options=options)
    except NvrtcError as e:
        raise CudaEmitError(str(e)) from None


@dataclass(frozen=True)
class PtxTarget(Target):
    """``-t ptx``: the lowered module as PTX (NVRTC, no GPU needed); ``index``: the index
    width of runtime-shaped kernels (32 or 64)."""

    name = "ptx"
    arch: str = DEFAULT_ARCH
    index: int = 32

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        compiled = compile_module(module, self.arch, self.index)
        output.write(index_note(module, self.index, "//") + compiled.ptx)


@dataclass(frozen=True)
class SassTarget(Target):
    """``-t sass``: the lowered module as SASS (NVRTC cubin, ``nvdisasm``; no GPU needed);
    ``index``: the index width of runtime-shaped kernels (32 or 64)."""

    name = "sass"
    arch: str = DEFAULT_ARCH
    index: int = 32

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        source = print_cuda(module)
        options = index_options(module, self.index)
        compiled = compile_source(source, self.arch, options)
        try:
            sass = disassemble(compiled.cubin)
        except NvdisasmError as e:
            raise CudaEmitError(str(e)) from None
        output.write(index_note(module, self.index, "//") + sass)
        try:
            infos = [kernel_info(f) for f in kernels(module)]
            traffic = local_traffic(sass, infos, source, self.arch, options)
        except (ValueError, NvrtcError):  # nothing to add to the listing: no warning
            return
        for t in traffic:
            print(t.warning(), file=sys.stderr)
