#!/usr/bin/env bash
# The tree's figures after the shuffled form became the cost model's choice for stores whose
# warp runs along a row (issue 34; the GEMMs' odd-N epilogues among them), on the H200:
#   OUT=/tmp/out bash lab/gpu/final_f.sh
# 1. every GPU-marked test; --check of both GEMM examples at ragged sizes;
# 2. bench_ragged: issue 34's table (every tile and band, bf16 and int8 rows, Triton beside);
# 3. both GEMM tables (bench_gemm_hopper, bench_gemm) at 4096^3, 8192^3, 4095 x 4097 x 4093.
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
step ragged_table 70 python3 -m regcopy_bench.bench_ragged --pair-iters 0 --fitted 1:64 \
    --narrow 17:65 --rows 65:257 --wide 4000:4161
step hopper_table 90 python3 -m regcopy_bench.bench_gemm_hopper --iters 20 --rounds 2 --cool 0.3 \
    --sizes 4096x4096x4096,8192x8192x8192,4095x4097x4093
grep -E "^\| |^\(every" "$out/hopper_table.txt" > "$out/hopper_tables.txt" 2>/dev/null
step mma_table 90 python3 -m regcopy_bench.bench_gemm --no-rings --iters 20 \
    --sizes 4096x4096x4096,8192x8192x8192,4095x4097x4093
finish
