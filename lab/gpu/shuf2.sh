#!/usr/bin/env bash
# The shuffled form with lane 0's partial vectors as aligned pieces (edge_pieces), on the H200:
# (That form was dropped the same day: the tree now runs the kept form, design-notes 2026-12-04.)
#   OUT=/tmp/out bash lab/gpu/shuf2.sh
# the GEMMs on padded operands at N = 4097 against N = 4104 (lab/hopper/pdl_ab.py), the
# one-row-a-warp ragged tiles against Triton, test_shuffled's GPU test, memcheck of a call.
set -uo pipefail
cd "$(dirname "$0")/../.."
budget=200 tail_lines=30
. lab/gpu/steps.sh
step pytest_gpu 40 python3 -m pytest -o addopts="" -q -rs -m gpu -p no:cacheprovider \
    test/python/test_shuffled.py test/python/test_gpu_gemm.py -k "shuffled or edge_tile"
step pdl_ab 70 python3 lab/hopper/pdl_ab.py
B="python3 -m regcopy_bench.bench_ragged --fitted '' --narrow '' --bf16 '' --i8 '' --pair-iters 0"
step ragged_auto 45 bash -c "$B --rows 65:257 --wide 4000:4161"
step memcheck_hopper 25 compute-sanitizer --tool memcheck --report-api-errors no \
    --error-exitcode 9 python3 lab/gpu/hop3_memcheck.py auto
finish
