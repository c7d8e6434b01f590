"""``regcopy.copy`` between registers and memory: planning (shared side, transfer kind: vector or ld/stmatrix; runtime extents) and one emitter per transfer kind."""
