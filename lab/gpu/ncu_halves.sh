#!/usr/bin/env bash
# Nsight Compute on the 64 x 64 tile with its warps on column halves against Triton's copy and
# the two-rows layout, at N = 37 (the band where it trails Triton) and 25:
#   OUT=/tmp/out bash lab/gpu/ncu_halves.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
budget=200 tail_lines=45
. lab/gpu/steps.sh
SPECS="64x64:37 64x64rows:37 64x64:25"
step ncu_raw 170 ncu --clock-control none -k regex:"ragged|tile_copy" \
    --metrics "$(python3 lab/ragged/ncu_peer.py --metrics)" --csv --page raw \
    python3 lab/ragged/ncu_peer.py $SPECS
grep -v '^==PROF==\|^[0-9a-zx]*:' "$out/ncu_raw.txt" | sed -n '/"ID"/,$p' > "$out/raw.csv"
rm -f "$out/ncu_raw.txt"
step table 20 python3 lab/ragged/ncu_peer.py --table "$out/raw.csv"
finish
