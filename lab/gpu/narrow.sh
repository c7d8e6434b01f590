#!/usr/bin/env bash
# The 64 x 64 tile's register layout against Triton (lab/ragged/narrow_layout_ab.py): warps on
# two rows of 64 columns (bench_ragged.NARROW) against warps on 4 rows of a 32-column half:
#   OUT=/tmp/out bash lab/gpu/narrow.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
budget=300 tail_lines=60
. lab/gpu/steps.sh
step narrow_ab 280 python3 lab/ragged/narrow_layout_ab.py --ns 17:65 --iters 10
finish
