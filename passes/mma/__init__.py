"""Tensor-core ops: ``regcopy.mma`` as warp ``mma.sync`` and ``regcopy.wgmma`` as warpgroup
``wgmma.mma_async`` (descriptors, fences, waits)."""
