"""Local-memory traffic in a kernel's SASS, and the warning that says so.

A register tile that does not fit in the registers a thread may use lives in local memory
(per-thread DRAM behind L1): every access becomes an ``LDL``/``STL``. ptxas caps a thread at
65536 / (block x min_blocks) registers (at most 255), where ``min_blocks`` is the second
argument of ``__launch_bounds__``; without it ptxas picks its own cap, which can be far below
what one CTA per SM allows. ``#regcopy.launch<..., min_blocks = 1>`` lifts the cap; a smaller
tile (or constant register indices) removes the traffic at its source.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from regcopy_backend.cuda.kernel_info import KernelInfo
from regcopy_backend.cuda.nvrtc import compile_cuda

LOCAL_OPS = re.compile(r"\b(LDL|STL)(?![A-Z0-9_])")
"""A local-memory load or store of a SASS listing (any width)."""


@dataclass(frozen=True)
class LocalTraffic:
    """The ``LDL``/``STL`` instructions of one kernel and the registers it uses."""

    kernel: str
    loads: int
    stores: int
    registers: int | None
    spill_bytes: int | None  # ptxas's spill stores + loads; 0: a local array, no spill
    block: int
    min_blocks: int | None

    def warning(self) -> str:
        """One line: the kernel, its local traffic, its registers, and the fix."""
        regs = f"{self.registers} registers" if self.registers is not None else \
            "registers unknown"
        bounds = f"__launch_bounds__({self.block}" + (
            f", {self.min_blocks})" if self.min_blocks is not None else ")")
        if self.spill_bytes == 0:
            fix = ("no spill: a register tile indexed at run time lives in local memory; "
                   "index it with constants (unrolled loops) or use a smaller tile")
        elif self.min_blocks == 1 or (self.registers or 0) >= max_registers(self.block, 1):
            fix = "use a smaller register tile or fewer threads a block"
        else:
            fix = ("set min_blocks = 1 in its #regcopy.launch (up to "
                   f"{max_registers(self.block, 1)} registers a thread) or use a smaller "
                   "register tile")
        return (f"warning: kernel {self.kernel} uses local memory: "
                f"{self.loads + self.stores} LDL/STL in its SASS ({self.loads} LDL, "
                f"{self.stores} STL) with {regs} under {bounds}; {fix}")


def max_registers(block: int, min_blocks: int) -> int:
    """The register cap of ``__launch_bounds__(block, min_blocks)``: 65536 registers per SM
    shared by ``min_blocks`` CTAs of ``block`` threads, rounded down to a multiple of 8, at
    most 255."""
    return min(255, 65536 // (block * min_blocks) // 8 * 8)


def kernel_sass(sass: str, symbol: str) -> str:
    """The part of an nvdisasm listing that belongs to function ``symbol``."""
    sections = re.split(r"(?m)^\s*\.section\s+\.text\.", sass)
    mine = [sec for sec in sections[1:] if sec.startswith((symbol + ",", symbol + " ",
                                                             symbol + "\n"))]
    return mine[0] if mine else sass


def local_ops(sass: str) -> tuple[int, int]:
    """``(LDL count, STL count)`` of a SASS listing."""
    found = LOCAL_OPS.findall(sass)
    return found.count("LDL"), found.count("STL")


@dataclass(frozen=True)
class Resources:
    """ptxas's account of one kernel (``--ptxas-options=-v``)."""

    registers: int
    shared_bytes: int
    stack_bytes: int
    spill_stores: int
    spill_loads: int


def ptxas_resources(log: str) -> dict[str, Resources]:
    """Per function name, the resources ptxas reports in a verbose NVRTC log."""
    out: dict[str, Resources] = {}
    for block in re.split(r"Compiling entry function ", log)[1:]:
        name = block.split("'")[1]

        def num(pattern: str, text: str = block) -> int:
            m = re.search(pattern, text)
            return int(m.group(1)) if m else 0

        out[name] = Resources(num(r"Used (\d+) registers"), num(r"(\d+) bytes smem"),
                              num(r"(\d+) bytes stack frame"), num(r"(\d+) bytes spill stores"),
                              num(r"(\d+) bytes spill loads"))
    return out


def ptxas_usage(source: str, arch: str, options: tuple[str, ...] = ()
                ) -> dict[str, tuple[int, int]]:
    """Per kernel symbol, ``(registers, spill bytes stored + loaded)`` as ptxas reports them
    (``--ptxas-options=-v``; ``options``: the compile's own, such as ``-DREGCOPY_INDEX32``)."""
    log = compile_cuda(source, arch=arch, options=("--ptxas-options=-v", *options)).log
    return {name: (r.registers, r.spill_stores + r.spill_loads)
            for name, r in ptxas_resources(log).items()}


def local_traffic(sass: str, infos: Sequence[KernelInfo], source: str,
                  arch: str, options: tuple[str, ...] = ()) -> list[LocalTraffic]:
    """The kernels of ``infos`` whose SASS has ``LDL``/``STL``, with their registers (one
    more NVRTC compile of ``source`` with ``options``, verbose, only when some kernel has
    such traffic)."""
    counts = [(info, local_ops(kernel_sass(sass, info.symbol))) for info in infos]
    counts = [(info, c) for info, c in counts if sum(c)]
    if not counts:
        return []
    usage = ptxas_usage(source, arch, options)
    unknown: tuple[int | None, int | None] = (None, None)
    return [LocalTraffic(info.name, loads, stores, *usage.get(info.symbol, unknown),
                         info.block, info.min_blocks) for info, (loads, stores) in counts]
