"""``regcopy.copy_async`` as per-thread ``cp.async``: the plan, its runtime bounds, the emitter and the token bookkeeping."""
