"""The clock64 fallback of ``ncu_banks.py`` (where ncu cannot read the counters): each case's
two shared copies in a loop between two ``clock64()`` reads, the clocks fitted against the
predicted wavefronts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from regcopy_backend.cuda.printer import print_cuda
from regcopy_dialect.context import regcopy_context
from regcopy_passes.lower_reg_copy import LowerRegCopyPass
from xdsl.parser import Parser

if TYPE_CHECKING:
    from ncu_banks import Planned

TIMED_ITERS = 64


def timed_source(p: Planned) -> str:
    """``p``'s case as a kernel whose two shared copies run ``TIMED_ITERS`` times in a loop
    between two ``clock64()`` reads (at the barriers around the loop: the first and the last
    ``__syncthreads()``), lane 0 writing the clocks to the output's first 8 bytes at the end."""
    ctx = regcopy_context()
    module = Parser(ctx, p.case.kernel_text(p.name, TIMED_ITERS), "timed.mlir").parse_module()
    LowerRegCopyPass(strict=True, **dict(p.case.options)).apply(ctx, module)
    src = print_cuda(module)
    sync = "__syncthreads();"
    first, last = src.index(sync), src.rindex(sync)
    end = src.rindex("}")
    return (src[:first] + sync + " long long rc_t0 = clock64();"
            + src[first + len(sync):last] + "long long rc_t1 = clock64(); " + sync
            + src[last + len(sync):end]
            + "  if (threadIdx.x == 0) *reinterpret_cast<long long*>(O) = rc_t1 - rc_t0;\n"
            + src[end:])


def timing(planned: Sequence[Planned]) -> int:
    """Clocks per iteration of each kernel against the predicted wavefronts of its copies:
    a least-squares line, and the cases more than 25% off it."""
    import numpy as np

    from regcopy_backend.runtime.runner import compile_kernel, cuda_core, get_device

    core, dev = cuda_core(), get_device()
    stream = dev.create_stream()
    buf_in, buf_out = dev.allocate(1 << 16, stream=stream), dev.allocate(1 << 16, stream=stream)
    config = core.LaunchConfig(grid=(1, 1, 1), block=(32, 1, 1))
    xs, ys = [], []
    for p in planned:
        kernel = compile_kernel(dev, timed_source(p), p.name)
        best = None
        for _ in range(3):
            core.launch(stream, config, kernel, int(buf_in.handle), int(buf_out.handle))
            host = np.zeros(1, dtype=np.int64)
            stream.sync()
            from cuda.bindings import driver

            driver.cuMemcpyDtoH(host.ctypes.data, int(buf_out.handle), 8)
            clocks = float(host[0]) / TIMED_ITERS
            best = clocks if best is None else min(best, clocks)
        xs.append(p.load.wavefronts + p.store.wavefronts)
        ys.append(best)
    a, b = np.polyfit(np.array(xs, float), np.array(ys, float), 1)
    r = np.corrcoef(xs, ys)[0, 1]
    print(f"clocks per iteration = {a:.2f} x predicted wavefronts + {b:.1f} "
          f"(r = {r:.3f}, {len(xs)} cases)")
    off = [(p, x, y) for p, x, y in zip(planned, xs, ys) if abs(y - (a * x + b)) > 0.25 * y]
    for p, x, y in off:
        print(f"{p.name}: {x} wavefronts predicted, {y:.0f} clocks (fit {a * x + b:.0f}): "
              f"{p.case.describe()}")
    return 0 if r > 0.9 else 1
