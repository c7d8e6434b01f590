"""``choose-shared-layouts``: the layouts of ``#regcopy.layout<auto>`` buffers (the search over XOR bases and pitches, and the pass)."""
