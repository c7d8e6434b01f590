#!/usr/bin/env bash
# Programmatic dependent launch between the padding and the GEMM, and the cost of D's
# misaligned rows, on the H200 (lab/hopper/pdl_ab.py):  OUT=/tmp/out bash lab/gpu/pdl.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
budget=230 tail_lines=60
. lab/gpu/steps.sh
step pdl_ab 220 python3 lab/hopper/pdl_ab.py
finish
