"""The per-thread GPU state of the CPU interpreter (``GpuState``: the current thread, the
allocations, the CTA's and warp's barriers), kept as interpreter data by ``regcopy``
(``regcopy.gpu_state``) and read by the op families that need it (``convert_ops``)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from typing import Any, cast

from regcopy_backend.interpreter.buffers import Buffer, is_local
from regcopy_backend.interpreter.cta_barrier import CtaBarrier
from regcopy_backend.interpreter.launch import Dim3, ThreadState
from regcopy_backend.interpreter.warp_sync import WarpSync
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation

AllocKey = tuple[Operation, Dim3, int | None]


@dataclass
class GpuState:
    """Everything the regcopy functions keep between ops, stored as interpreter data.

    ``allocations`` maps ``(alloca op, block id, thread)`` to its buffer; ``thread`` is None
    for shared buffers (one per CTA). ``check_alignment`` makes a ``vector.load/store`` whose
    physical offset is not a multiple of its element count an error (buffers are 16-byte
    aligned on the GPU, so that is exactly a misaligned vector access). ``check_ownership``
    makes a ``memref.load/store`` of a local element the thread does not own an error (it is
    undefined behaviour in CUDA terms). ``barrier`` is the CTA's barrier while the kernel runs
    in barrier phases (None: ``gpu.barrier`` is a no-op, the threads run one after another),
    ``slot`` the thread's index in it, ``warp`` its warp's barrier when the kernel has
    warp-collective ops. The per-thread states of a phased CTA share ``allocations`` and
    ``lock`` with the launching interpreter's state (``for_thread``)."""

    thread: ThreadState = field(default_factory=ThreadState)
    allocations: dict[AllocKey, Buffer] = field(default_factory=dict[AllocKey, Buffer])
    fill: Any = 0
    check_alignment: bool = True
    check_ownership: bool = True
    barrier: CtaBarrier | None = None
    slot: int = 0
    warp: WarpSync | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    extra: dict[str, Any] = field(default_factory=dict[str, Any])
    """State other op families keep for the whole launch (shared by a phased CTA's threads,
    like ``allocations``): ``async_copy``'s copies in flight."""

    def for_thread(self, thread: ThreadState, barrier: CtaBarrier, slot: int,
                   warp: WarpSync | None = None) -> GpuState:
        """A state for thread ``slot`` of a phased CTA sharing this state's memory and
        checks."""
        return replace(self, thread=thread, barrier=barrier, slot=slot, warp=warp)

    def buffer_for(self, op: Operation, block_id: Dim3 = (0, 0, 0),
                   tid: int | None = None) -> Buffer:
        """The buffer of alloca ``op`` in CTA ``block_id`` (and thread ``tid`` for local
        buffers), created filled with ``fill`` on first use. Use it to preset or inspect."""
        t = cast(MemRefType, op.results[0].type)
        key = (op, block_id, tid if is_local(t) else None)
        if (buf := self.allocations.get(key)) is not None:
            return buf  # the common case, without the lock
        with self.lock:  # the threads of a phased CTA allocate the same shared buffer
            if key not in self.allocations:
                self.allocations[key] = Buffer.new(t, self.fill)
            return self.allocations[key]

