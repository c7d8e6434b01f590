#!/usr/bin/env bash
# The wgmma GEMM's rowwarp epilogue, a round's two rows adjacent against 8 apart
# (lab/hopper/rowpair_ab.py), D at N = 4097 against 4104, realigned and shuffled stores:
#   OUT=/tmp/out bash lab/gpu/rowpair.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
budget=300 tail_lines=40
. lab/gpu/steps.sh
step rowpair_ab 280 python3 lab/hopper/rowpair_ab.py --iters 20 --rounds 3
finish
