"""regcopy's command-line drivers: ``regcopy-opt`` and ``regcopy-run``."""
