"""``regcopy.copy_async`` as Hopper bulk tensor copies (``transfer=tma``): the plan, the mbarrier ring's depth and the emitter."""
