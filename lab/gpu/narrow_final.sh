#!/usr/bin/env bash
# The tree with bench_ragged's 64 x 64 tile on column halves (NARROW; the earlier layout is
# NARROW_ROWS), on the H200:
#   OUT=/tmp/out bash lab/gpu/narrow_final.sh
# 1. every GPU-marked test; 2. issue 34's table (bench_ragged, as final_f ran it);
# 3. both 64 x 64 layouts against Triton below 17 and from 65 columns (narrow_layout_ab).
set -uo pipefail
cd "$(dirname "$0")/../.."
budget=520 tail_lines=30
. lab/gpu/steps.sh
step pytest_gpu 170 python3 -m pytest -o addopts="" -q -rs -m gpu -p no:cacheprovider \
    -n 4 --dist loadfile $(grep -l "mark.gpu" test/python/test_*.py)
step ragged_table 90 python3 -m regcopy_bench.bench_ragged --pair-iters 0 --fitted 1:64 \
    --narrow 17:65 --rows 65:257 --wide 4000:4161
step narrow_small 60 python3 lab/ragged/narrow_layout_ab.py --ns 1:17
step narrow_wide 90 python3 lab/ragged/narrow_layout_ab.py --ns 65:161
finish
