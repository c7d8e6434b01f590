"""regcopy's benchmarks, installed as ``regcopy_bench`` (``pip install -e .``).

* ``regcopy_bench.bench_copy``: a global-memory tile copy, lowered by regcopy, against
  hand-written CUDA and ``cudaMemcpy`` (``python -m regcopy_bench.bench_copy``; needs a GPU);
* ``regcopy_bench.bench_ragged``: one tile copy with runtime extents over every N of a range,
  as a ratio to the aligned N (``python -m regcopy_bench.bench_ragged [--sass]``);
* ``regcopy_bench.bench_shared``: shared-memory copies against the shared peak, with the SASS
  summary of every kernel (``python -m regcopy_bench.bench_shared [--sass-only]``);
* ``regcopy_bench.sass_loops``: SASS summaries (instruction kinds of a kernel and its main loop;
  NVRTC and nvdisasm, no GPU).
"""
