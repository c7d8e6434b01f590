#!/usr/bin/env bash
# The A/B scripts after their shared loop moved to lab/ragged/variant_table.py, on a few N:
#   OUT=/tmp/out bash lab/gpu/variant_check.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
budget=120 tail_lines=20
. lab/gpu/steps.sh
step realign_loads_ab 50 python3 lab/ragged/realign_loads_ab.py --ns 17:42 --iters 5
step narrow_layout_ab 60 python3 lab/ragged/narrow_layout_ab.py --ns 30:38 --iters 5
finish
