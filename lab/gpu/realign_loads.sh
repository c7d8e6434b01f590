#!/usr/bin/env bash
# The 64 x 64 tile's misaligned loads realigned against predicated (lab/ragged/realign_loads_ab.py):
#   OUT=/tmp/out bash lab/gpu/realign_loads.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
budget=150 tail_lines=60
. lab/gpu/steps.sh
step realign_loads_ab 140 python3 lab/ragged/realign_loads_ab.py --ns 17:65
finish
