#!/usr/bin/env bash
# The tree with each warp's test where warps hold a part of each row (a warp holding none of a
# row skips; lab/ragged/span_ab.py against no test), every GPU-marked test, issue 34's table:
#   OUT=/tmp/out bash lab/gpu/span2.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
budget=420 tail_lines=50
. lab/gpu/steps.sh
step span_ab 120 python3 lab/ragged/span_ab.py --ns 17:65
step pytest_gpu 170 python3 -m pytest -o addopts="" -q -rs -m gpu -p no:cacheprovider \
    -n 4 --dist loadfile $(grep -l "mark.gpu" test/python/test_*.py)
step ragged_table 90 python3 -m regcopy_bench.bench_ragged --pair-iters 0 --fitted 1:64 \
    --narrow 17:65 --rows 65:257 --wide 4000:4161
finish
