"""``regcopy.copy`` between two register tiles: the plan (renaming, warp shuffles or a shared round trip), the shuffle schedule's selects, the emitter and the lowering that picks the kind."""
