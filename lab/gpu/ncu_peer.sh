#!/usr/bin/env bash
# Nsight Compute on bench_ragged's kernel against Triton's same-tile copy (lab/ragged/ncu_peer.py):
# the 64 x 64 tile at N = 25 and 29 (below 32 columns: no form of ours reaches Triton), at the
# aligned N = 32, and the 128 x 32 tile at N = 25 (where we do):
#   OUT=/tmp/out bash lab/gpu/ncu_peer.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
budget=280 tail_lines=45
. lab/gpu/steps.sh
SPECS="64x64:25 64x64:29 64x64:32 128x32:25"
step ncu_raw 240 ncu --clock-control none -k regex:"ragged|tile_copy" \
    --metrics "$(python3 lab/ragged/ncu_peer.py --metrics)" --csv --page raw \
    python3 lab/ragged/ncu_peer.py $SPECS
grep -v '^==PROF==\|^[0-9a-zx]*:' "$out/ncu_raw.txt" | sed -n '/"ID"/,$p' > "$out/raw.csv"
step table 20 python3 lab/ragged/ncu_peer.py --table "$out/raw.csv"
finish
