"""regcopy's command-line drivers: ``regcopy-opt``, ``regcopy-run`` and ``regcopy-viz``."""
