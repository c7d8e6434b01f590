#!/usr/bin/env bash
# Issue 34's table with each N timed in 3 rounds alternating with Triton, the median round
# (bench_ragged --rounds 3), on the tree of the 64 x 64 tile on column halves:
#   OUT=/tmp/out bash lab/gpu/table3.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
budget=200 tail_lines=12
. lab/gpu/steps.sh
step ragged_table 190 python3 -m regcopy_bench.bench_ragged --pair-iters 0 --rounds 3 \
    --fitted 1:64 --narrow 17:65 --rows 65:257 --wide 4000:4161
finish
