"""A kernel launched by hand (the benchmarks: ``cuda.core.launch`` on device pointers) with the
index width chosen per launch, as ``run_kernel`` chooses it.

``KernelVariants(dev, source, info).for_launch(shapes, grid)`` is the compiled kernel to
launch on buffers of those shapes: the 32-bit compile of a runtime-shaped kernel when every
offset of the launch fits (``index_width.fits_index32``), else the 64-bit one; a kernel
without a switchable width has one compile. Both compiles take the same arguments
(``extent_values`` and the pointers), so only the kernel object changes. Compiles are
cached (``runner.compile_kernel``), and a kernel with ``shared.dyn`` buffers gets its dynamic
shared memory allowed on each.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from regcopy_backend.cuda.kernel_info import KernelInfo
from regcopy_backend.runtime.index_width import fits_index32
from regcopy_backend.runtime.runner import compile_kernel, set_dynamic_shared_memory


@dataclass
class KernelVariants:
    """The compiles of one kernel of ``source`` (``info``) on device ``dev``, by width."""

    dev: Any
    source: str
    info: KernelInfo
    compiled: dict[bool, Any] = field(default_factory=dict[bool, Any], init=False)
    """The kernels compiled so far, by ``index32`` (a launch loop asks once per launch)."""

    def kernel(self, index32: bool) -> Any:
        """The kernel compiled with 32-bit (``index32``) or 64-bit index math (one compile
        for a kernel without ``index_switch``)."""
        index32 = index32 and self.info.index_switch
        if (kernel := self.compiled.get(index32)) is not None:
            return kernel
        kernel = compile_kernel(self.dev, self.source, self.info.symbol, index32)
        if self.info.dynamic_shared_bytes:
            set_dynamic_shared_memory(self.dev, kernel, self.info.dynamic_shared_bytes)
        self.compiled[index32] = kernel
        return kernel

    def index32(self, shapes: Sequence[Sequence[int]], grid: Sequence[int] = (1, 1, 1),
                scalars: Sequence[int] = ()) -> bool:
        """Whether a launch on buffers of ``shapes`` (row-major, one per buffer parameter)
        over ``grid`` with ``index`` scalars ``scalars`` takes the 32-bit compile."""
        return self.info.index_switch and fits_index32(self.info, shapes, grid, scalars)

    def for_launch(self, shapes: Sequence[Sequence[int]], grid: Sequence[int] = (1, 1, 1),
                   scalars: Sequence[int] = ()) -> Any:
        """The kernel to launch on buffers of ``shapes`` over ``grid`` (``index32``)."""
        return self.kernel(self.index32(shapes, grid, scalars))
