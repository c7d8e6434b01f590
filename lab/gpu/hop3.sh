#!/usr/bin/env bash
# GPU steps of issue 35's third round (the wgmma GEMM's ragged size, hop3), the final check, on
# the H200 within 235 seconds:  bash lab/gpu/hop3.sh   (outputs under $OUT, default /tmp/out)
# (batch 1, 17:49: lab/results/h200_2026-12-03/hop3_b1/: the timing diagnosis, the paddings,
# the edge tile, the rowwarp epilogue, the producer warpgroup with setmaxnreg; batch 2, 18:42:
# hop3_b2/: rowwarp by shuffles, the final table cooled)
# 1. the final table of the example as it is now (128 x 256 rows; 256 x 128 with the narrow
#    edge tile and the rowwarp epilogue by shuffles; the 4 x 1024 padding): 4096^3, 8192^3,
#    4095x4097x4093, f16 and bf16, mma.sync, cuBLAS and Triton columns, 2 interleaved rounds,
#    each measurement after 0.3 s of idle GPU, the ragged call also timed interleaved with the
#    aligned one; the SASS counts of the example's kernels;
# 2. compute-sanitizer memcheck of one ragged call of the example's form;
# 3. the gpu-marked Hopper GEMM tests.
set -uo pipefail
cd "$(dirname "$0")/../.."
budget=235 tail_lines=25
. lab/gpu/steps.sh
RAGGED=4095x4097x4093
step final 120 python3 -m regcopy_bench.bench_gemm_hopper --iters 20 --rounds 2 --cool 0.3 \
    --sizes 4096x4096x4096,8192x8192x8192,$RAGGED
SAN=/usr/local/cuda/bin/compute-sanitizer
if [ -x "$SAN" ]; then
    step memcheck 25 "$SAN" --tool memcheck --report-api-errors no python3 lab/gpu/hop3_memcheck.py \
        auto
fi
step gpu_tests 85 python3 -m pytest -o addopts="" -q -m gpu test/python/test_gemm_hopper.py \
    -k "not wgmma_tile"
echo "== the final table"
grep -E "^  (timing|padding|fastest|candidate|f16|bf16)|^\| |^the form|^\(every|SASS|^  gemm_hopper|^  pad |ERROR|Error" \
    "$out/final.txt" | tee "$out/tables.txt"
grep -hE "memcheck call|ERROR SUMMARY" "$out"/memcheck.txt 2>/dev/null | tee -a "$out/tables.txt"
finish
