"""The targets that need no GPU beyond ``-t cuda``: ``-t ptx`` and ``-t sass``.

Both print the lowered module as CUDA (``print_cuda``), compile it with NVRTC for ``arch``
(``sm_90`` by default; ``-t 'ptx{arch=sm_100}'``) and print the PTX, or the SASS that
``nvdisasm`` makes of the cubin. ``-t sass`` also warns, one line on stderr per kernel, when a
kernel's SASS has local-memory loads or stores (``spills``). Any failure (a module that is
not lowered, NVRTC refusing the source, nvdisasm missing) is one ``CudaEmitError``
diagnostic.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from regcopy_backend.cuda.kernel_info import kernel_info, kernels
from regcopy_backend.cuda.printer import CudaEmitError, print_cuda
from regcopy_backend.cuda.spills import local_traffic
from regcopy_backend.cuda.nvrtc import (
    DEFAULT_ARCH,
    Compiled,
    NvdisasmError,
    NvrtcError,
    compile_cuda,
    disassemble,
)

_ARCH = re.compile(r"sm_\d+[a-z]?\Z")


def compile_module(module: ModuleOp, arch: str) -> Compiled:
    """Print ``module`` as CUDA and compile it for ``arch``; ``CudaEmitError`` on failure."""
    return compile_source(print_cuda(module), arch)


def compile_source(source: str, arch: str) -> Compiled:
    """Compile printed CUDA for ``arch``; ``CudaEmitError`` on failure."""
    if not _ARCH.match(arch):
        raise CudaEmitError(f"arch '{arch}' is not a GPU architecture such as sm_90")
    try:
        return compile_cuda(source, arch=arch)
    except NvrtcError as e:
        raise CudaEmitError(str(e)) from None


@dataclass(frozen=True)
class PtxTarget(Target):
    """``-t ptx``: the lowered module as PTX (NVRTC, no GPU needed)."""

    name = "ptx"
    arch: str = DEFAULT_ARCH

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(compile_module(module, self.arch).ptx)


@dataclass(frozen=True)
class SassTarget(Target):
    """``-t sass``: the lowered module as SASS (NVRTC cubin, ``nvdisasm``; no GPU needed)."""

    name = "sass"
    arch: str = DEFAULT_ARCH

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        source = print_cuda(module)
        compiled = compile_source(source, self.arch)
        try:
            sass = disassemble(compiled.cubin)
        except NvdisasmError as e:
            raise CudaEmitError(str(e)) from None
        output.write(sass)
        try:
            infos = [kernel_info(f) for f in kernels(module)]
            traffic = local_traffic(sass, infos, source, self.arch)
        except (ValueError, NvrtcError):  # nothing to add to the listing: no warning
            return
        for t in traffic:
            print(t.warning(), file=sys.stderr)
