#!/usr/bin/env bash
# Which TMA box start columns run on the H200: lab/gpu/tma_box_start_probe.py's cases with the
# aligned controls (f16 columns 0 and 8) first, each in its own process (a fault ends the context).
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
export PYTHONPATH="$PWD/test/python:${PYTHONPATH:-}"
for c in "f16 0" "f16 8" "f16 1" "f16 2" "f16 3" "f16 4" "f32 1" "f16 16"; do
    set -- $c
    timeout 60 python3 lab/gpu/tma_box_start_probe.py "$1" "$2" 2>&1 | tail -n 2
    echo "case $1 column $2: exit ${PIPESTATUS[0]}"
done
