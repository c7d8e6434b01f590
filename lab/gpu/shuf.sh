#!/usr/bin/env bash
# The shuffled form of misaligned stores (passes/reg_copy/emit_shuffled.py) on the H200:
# (Its first form, one shuffled store per class with granule pieces, is the one kept; later runs: shuf3-5.)
#   OUT=/tmp/out bash lab/gpu/shuf.sh
# 1. every GPU-marked test (test_shuffled's bit-exact stores among them);
# 2. both GEMM tables (their odd-N epilogues now shuffled) and lab/hopper/pdl_ab.py (the GEMM
#    on padded operands at N = 4097 against N = 4104 in one process);
# 3. bench_ragged's one-row-a-warp tiles (32 x 256, 8 x 1024: shuffled by the model, were
#    realigned) under the model and forced realigned, each against Triton in its process;
# 4. compute-sanitizer memcheck of a shuffled GEMM epilogue and a shuffled ragged tile.
set -uo pipefail
cd "$(dirname "$0")/../.."
budget=560 tail_lines=14
. lab/gpu/steps.sh
CS="compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9"
step pytest_gpu 190 python3 -m pytest -o addopts="" -q -rs -m gpu -p no:cacheprovider \
    $(grep -l "mark.gpu" test/python/test_*.py)
step hopper_table 90 python3 -m regcopy_bench.bench_gemm_hopper --iters 20 --rounds 2 --cool 0.3 \
    --sizes 4096x4096x4096,8192x8192x8192,4095x4097x4093
grep -E "^\| |^\(every" "$out/hopper_table.txt" > "$out/hopper_tables.txt" 2>/dev/null
step mma_table 70 python3 -m regcopy_bench.bench_gemm --no-rings --iters 20 \
    --sizes 4096x4096x4096,8192x8192x8192,4095x4097x4093
step pdl_ab 60 python3 lab/hopper/pdl_ab.py
B="python3 -m regcopy_bench.bench_ragged --fitted '' --narrow '' --bf16 '' --i8 '' --pair-iters 0"
step ragged_auto 45 bash -c "$B --rows 65:257 --wide 4000:4161"
step ragged_realigned 45 bash -c "$B --rows 65:257 --wide 4000:4161 --misaligned-stores realigned"
step memcheck_gemm 25 $CS regcopy-run examples/gemm.mlir --kernel gemm \
    --arg A=300x200 --arg B=257x200 --arg D=300x257 --grid 2,3
step memcheck_hopper 25 $CS python3 lab/gpu/hop3_memcheck.py auto
finish
