#!/usr/bin/env bash
# GPU steps of issue 35's third round (the wgmma GEMM's ragged size, hop3) on the H200, within
# 235 seconds:  bash lab/gpu/hop3.sh   (outputs under $OUT, default /tmp/out; summary on stdout)
# Most important first, each step under `timeout` and the time left:
# 1. candidates (one process, f16): the timing diagnosis of the padded size (the user's call
#    by wall clock and by CUDA events, the host's time a call, its launches alone, the pad
#    alone, the GEMM alone; three rounds, the SM clock before each), the paddings, then the
#    forms at 4096^3, 4096x4224x4096 (256x128: 528 aligned tiles, 4 waves), 4095x4097x4096
#    (the padded GEMM's own shape, no pad) and 4095x4097x4093: the CTA tiles, the epilogue
#    with a warp along a row (rowwarp: one misalignment class a warp where N is odd), the
#    narrow edge tile for the last CTA column (e8), a raster group of 16 M tiles;
# 2. the final table: 4096^3, 8192^3, 4095x4097x4093, f16 and bf16, mma.sync, cuBLAS and
#    Triton columns, the edge forms beside it (--also), SASS counts (HGMMA, UTMALDG, LDL/STL);
# 3. the producer warpgroup with setmaxnreg (lab/ab/gemm_hopper_producer.py: the printed
#    kernel split into a TMA producer warpgroup and two consumers, with and without register
#    reallocation) against the example's form, 4096^3 and the ragged size, both CTA tiles;
# 4. compute-sanitizer memcheck of one ragged call (pad + GEMM) of the example's form and of
#    the edge form;
# 5. the gpu-marked wgmma / Hopper GEMM tests.
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
t0=$(date +%s)
budget=235
summary=()
step() {  # step NAME SECONDS COMMAND...: at most SECONDS, and never past the budget
    local name=$1 limit=$2; shift 2
    local left=$(( budget - ($(date +%s) - t0) ))
    if (( left < 10 )); then summary+=("$name: skipped (out of time)"); return; fi
    (( limit > left )) && limit=$left
    echo "== $name (limit ${limit}s)"
    timeout "$limit" "$@" >"$out/$name.txt" 2>&1
    local rc=$?
    tail -n 25 "$out/$name.txt"
    summary+=("$name: exit $rc ($(( $(date +%s) - t0 ))s)")
}
RAGGED=4095x4097x4093
step candidates 100 python3 -m regcopy_bench.bench_gemm_hopper --iters 20 --diagnose $RAGGED \
    --candidates 4096x4096x4096,4096x4224x4096,4095x4097x4096,$RAGGED \
    --forms '256x128,rows;128x256,rowwarp;128x256,rows,e8;128x256,rowwarp,e8;256x128,rows,e8;256x128,rows,g16' \
    --pads pair8x1024,pair4x1024,pair8x512,pair8x1024+staged --pad best --sizes ''
step final 85 python3 -m regcopy_bench.bench_gemm_hopper --iters 20 \
    --sizes 4096x4096x4096,8192x8192x8192,$RAGGED --pad pair8x1024 \
    --also 128x256,rowwarp,e8 --also 128x256,rows,e8
step producer 45 python3 lab/ab/gemm_hopper_producer.py --tile 128x256 \
    --also-tile 256x128
SAN=/usr/local/cuda/bin/compute-sanitizer
if [ -x "$SAN" ]; then
    step memcheck 30 "$SAN" --tool memcheck --report-api-errors no python3 lab/gpu/hop3_memcheck.py \
        auto,rows 128x256,rowwarp,e8
fi
step gpu_tests 40 python3 -m pytest -o addopts="" -q -m gpu test/python/test_gemm_hopper.py \
    test/python/test_wgmma.py
echo "== the diagnosis, the candidates and the final tables"
grep -E "^  (timing|padding|fastest|candidate|f16|bf16)|^\| |^the form|^\(wgmma|SASS|^  gemm_hopper|^  pad |ERROR|Error" \
    "$out/candidates.txt" "$out/final.txt" | tee "$out/tables.txt"
grep -hE "^form|^  [0-9]+x" "$out"/producer*.txt 2>/dev/null | tee -a "$out/tables.txt"
grep -hE "memcheck call|ERROR SUMMARY" "$out"/memcheck.txt 2>/dev/null | tee -a "$out/tables.txt"
echo "== summary"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
