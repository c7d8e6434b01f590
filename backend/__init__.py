"""regcopy's backend: the CUDA printer (``-t cuda``) and the cuda-python runner.

``to_cuda(module)`` prints a lowered module as CUDA C++ (``regcopy_backend.cuda.printer.print_cuda``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

__all__ = ["to_cuda"]


def to_cuda(module: ModuleOp) -> str:
    """The CUDA C++ source of a lowered module: one ``extern "C" __global__`` function per
    kernel. Loads and stores by logical indices are lowered to flat storage first
    (``lower-layout-access``, on a copy: ``module`` is unchanged). A ``regcopy.copy`` left in
    the module (not lowered) raises ``CudaEmitError``."""
    from regcopy_backend.cuda.printer import print_cuda

    return print_cuda(module)
