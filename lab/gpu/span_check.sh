#!/usr/bin/env bash
# The softmax example's outputs with each warp's short-row test (lab/ragged/span_check.py),
# regcopy-run --check of softmax_4k at ragged N, and compute-sanitizer on it:
#   OUT=/tmp/out bash lab/gpu/span_check.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
budget=300 tail_lines=60
. lab/gpu/steps.sh
step span_check 120 python3 lab/ragged/span_check.py
for n in 1050 1030 2060; do
    step check_$n 40 regcopy-run --check examples/softmax.mlir --kernel softmax_4k \
        --arg X=64x$n --arg Y=64x$n --grid 64
done
CS="compute-sanitizer --report-api-errors no --error-exitcode 9"
step racecheck 60 $CS --tool racecheck regcopy-run examples/softmax.mlir --kernel softmax_4k \
    --arg X=8x1050 --arg Y=8x1050 --grid 8
step memcheck 40 $CS --tool memcheck regcopy-run examples/softmax.mlir --kernel softmax_4k \
    --arg X=8x1050 --arg Y=8x1050 --grid 8
finish
