"""CUDA text of the TMA ops (``regcopy_dialect.tma_ops``): inline PTX for sm_90.

* ``regcopy.tensor_map`` is an extra kernel parameter ``const __grid_constant__ CUtensorMap
  name`` after the function's own (in program order of the ``tensor_map`` ops); NVRTC has no
  ``<cuda.h>``, so the module declares the 128-byte, 64-byte aligned ``CUtensorMap`` itself
  (``TENSOR_MAP_DECL``). ``__grid_constant__`` keeps the parameter in constant space, so its
  generic address (``&name``) is what ``cp.async.bulk.tensor`` reads the map from.
* ``regcopy.mbarrier_init`` -> ``mbarrier.init.shared::cta.b64``;
  ``regcopy.fence_barrier_init`` -> ``fence.mbarrier_init.release.cluster`` and
  ``fence.proxy.async.shared::cta`` (initialised barriers visible to the async proxy; the
  lowering follows it with ``__syncthreads()``);
  ``regcopy.mbarrier_arrive_expect_tx`` -> ``mbarrier.arrive.expect_tx.shared::cta.b64``;
  ``regcopy.mbarrier_try_wait_parity`` -> a loop over ``mbarrier.try_wait.parity``;
  ``regcopy.tma_load`` ->
  ``cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes`` with the
  coordinates in TMA order (innermost first) as 32-bit signed integers.

Every statement is ``asm volatile`` with a ``"memory"`` clobber: the compiler sees neither the
barrier words nor the shared bytes the asynchronous copy writes.
"""

from __future__ import annotations

from collections.abc import Sequence

from regcopy_backend.cuda.matrix import shared_address

TENSOR_MAP_DECL = """\
#ifndef CUDA_VERSION  // NVRTC has no <cuda.h>: the driver's opaque 128-byte tensor map
struct alignas(64) CUtensorMap { unsigned long long opaque[16]; };
#endif
"""


def tensor_map_param(name: str) -> str:
    """The kernel parameter of one tensor map."""
    return f"const __grid_constant__ CUtensorMap {name}"


def mbarrier_init(barrier: str, count: int) -> str:
    """``barrier`` is the C pointer expression of the barrier word (``&B[i]``)."""
    return (f'asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: '
            f'"r"({shared_address(barrier)}), "r"({count}) : "memory");')


def fence_barrier_init() -> str:
    return ('asm volatile("fence.mbarrier_init.release.cluster;\\n\\t'
            'fence.proxy.async.shared::cta;" ::: "memory");')


def arrive_expect_tx(barrier: str, nbytes: int) -> str:
    return (f'asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: '
            f'"r"({shared_address(barrier)}), "r"({nbytes}) : "memory");')


def try_wait_parity(barrier: str, parity: str, done: str) -> list[str]:
    """Lines of the wait: spin on ``try_wait.parity`` (which itself suspends the thread for a
    while) until the phase of parity ``parity`` has completed. ``done`` is a fresh C name."""
    ptx = ("{\\n\\t.reg .pred p;\\n\\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;"
           "\\n\\tselp.u32 %0, 1, 0, p;\\n\\t}")
    return [f"for (unsigned {done} = 0; !{done};) {{",
            f'  asm volatile("{ptx}" : "=r"({done}) : "r"({shared_address(barrier)}), '
            f'"r"((unsigned)({parity})) : "memory");',
            "}"]


def tma_load(tensor_map: str, coords: Sequence[str], dst: str, barrier: str) -> str:
    """``coords`` outermost first (as in the IR); printed innermost first (TMA order)."""
    rank = len(coords)
    if not 1 <= rank <= 5:
        raise ValueError(f"a TMA load has 1 to 5 coordinates, got {rank}")
    slots = ", ".join(f"%{2 + k}" for k in range(rank))
    ins = ", ".join(f'"r"((int)({c}))' for c in reversed(coords))
    return (f'asm volatile("cp.async.bulk.tensor.{rank}d.shared::cluster.global.mbarrier::'
            f'complete_tx::bytes [%0], [%1, {{{slots}}}], [%{2 + rank}];" :: '
            f'"r"({shared_address(dst)}), "l"(reinterpret_cast<unsigned long long>('
            f'&{tensor_map})), {ins}, "r"({shared_address(barrier)}) : "memory");')
