#!/usr/bin/env bash
# The short-row test for warps on a part of each row (lab/ragged/span_ab.py): bench_ragged's
# 64 x 64 tile at N = 17..64 and the softmax example, each warp's test against none, then
# every GPU-marked test on the tree:
#   OUT=/tmp/out bash lab/gpu/span.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
budget=420 tail_lines=75
. lab/gpu/steps.sh
step span_ab 200 python3 lab/ragged/span_ab.py --ns 17:65
step pytest_gpu 170 python3 -m pytest -o addopts="" -q -rs -m gpu -p no:cacheprovider \
    -n 4 --dist loadfile $(grep -l "mark.gpu" test/python/test_*.py)
finish
