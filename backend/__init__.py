"""regcopy's backend: the CUDA printer (``-t cuda``) and the cuda-python runner."""
