"""``regcopy.mma`` as warp ``mma.sync``: the fragment check and the lowering."""
