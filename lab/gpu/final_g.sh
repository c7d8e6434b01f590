#!/usr/bin/env bash
# The tree after the GEMM examples' D stores asked for realigned pieces
# ({misaligned_stores = "realigned"}; final_f ran them shuffled, the cost model's choice), on
# the H200:
#   OUT=/tmp/out bash lab/gpu/final_g.sh
# 1. every GPU-marked test; --check of both GEMM examples at ragged sizes; memchecks;
# 2. both GEMM tables (bench_gemm_hopper, bench_gemm) at 4096^3, 8192^3, 4095 x 4097 x 4093
#    (the ragged table of final_f stands: no kernel of bench_ragged changed).
set -uo pipefail
cd "$(dirname "$0")/../.."
budget=540 tail_lines=12
. lab/gpu/steps.sh
step pytest_gpu 150 python3 -m pytest -o addopts="" -q -rs -m gpu -p no:cacheprovider \
    -n 4 --dist loadfile $(grep -l "mark.gpu" test/python/test_*.py)
step check_gemm_2x2 45 regcopy-run --check examples/gemm.mlir --kernel gemm \
    --arg A=130x24 --arg B=300x24 --arg D=130x300 --grid 2,2
step check_hopper 40 regcopy-run -p "lower-reg-copy{transfer=tma}" --kernel gemm_hopper --check \
    examples/gemm_hopper.mlir --arg A=70x72 --arg B=40x72 --arg D=70x40 --grid 1,1
CS="compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9"
step memcheck_gemm 25 $CS regcopy-run examples/gemm.mlir --kernel gemm \
    --arg A=300x200 --arg B=257x200 --arg D=300x257 --grid 2,3
step memcheck_hopper 25 $CS python3 lab/gpu/hop3_memcheck.py auto
step hopper_table 90 python3 -m regcopy_bench.bench_gemm_hopper --iters 20 --rounds 2 --cool 0.3 \
    --sizes 4096x4096x4096,8192x8192x8192,4095x4097x4093
grep -E "^\| |^\(every" "$out/hopper_table.txt" > "$out/hopper_tables.txt" 2>/dev/null
step mma_table 90 python3 -m regcopy_bench.bench_gemm --no-rings --iters 20 \
    --sizes 4096x4096x4096,8192x8192x8192,4095x4097x4093
finish
