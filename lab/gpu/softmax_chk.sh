#!/usr/bin/env bash
# The softmax example after its misaligned bf16 row stores became shuffled (the cost model's
# choice for a warp along a row), against Triton and torch, on the H200:
#   OUT=/tmp/out bash lab/gpu/softmax_chk.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
budget=150 tail_lines=30
. lab/gpu/steps.sh
step softmax 140 python3 -m regcopy_bench.bench_softmax --n 1024,1001,4096,4093
finish
