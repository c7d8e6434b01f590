#!/usr/bin/env bash
# GPU steps of issue 35's third round (the wgmma GEMM's ragged size, hop3), second batch, on the
# H200 within 235 seconds:  bash lab/gpu/hop3.sh   (outputs under $OUT, default /tmp/out)
# (the first batch, 17:49: lab/results/h200_2026-12-03/hop3_b1/: the timing diagnosis, the
# paddings, the edge tile, the rowwarp epilogue, the producer warpgroup with setmaxnreg)
# Most important first, each step under `timeout` and the time left:
# 1. candidates (one process, f16) at 4096^3, 4095x4097x4096 (the padded GEMM alone) and
#    4095x4097x4093 (the user's call): the example's 256 x 128 form (narrow edge tile) against
#    the rowwarp epilogue converted by shuffles (conversion=shuffle: with the shared round trip
#    ptxas serializes the 256 x 128 K loop; rowwarp256: 128 x 256 with whole rows a warp),
#    and 128 x 256 rows for reference; the paddings
#    4x1024 (the example's), 2x1024, 4x512;
# 2. the final table: 4096^3, 8192^3, 4095x4097x4093, f16 and bf16, mma.sync, cuBLAS and
#    Triton columns, 2 interleaved rounds, each measurement after 0.3 s of idle GPU (batch 1
#    showed the SM clock at 1440 MHz under the 8192^3 rows, at the 700 W limit), the ragged
#    call also timed interleaved with the aligned one; the rowwarp-shuffle form beside it;
# 3. compute-sanitizer memcheck of one ragged call of the example's form;
# 4. the gpu-marked Hopper GEMM tests (every form, the pad + GEMM pair, the paddings).
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
step candidates 60 python3 -m regcopy_bench.bench_gemm_hopper --iters 20 \
    --candidates 4096x4096x4096,4095x4097x4096,$RAGGED \
    --forms '256x128,rows,e8;256x128,rowwarp-shuffle,e8;128x256,rowwarp256-shuffle,e8;128x256,rows' \
    --pads pair4x1024,pair2x1024,pair4x512 --pad best --sizes ''
step final 100 python3 -m regcopy_bench.bench_gemm_hopper --iters 20 --rounds 2 --cool 0.3 \
    --sizes 4096x4096x4096,8192x8192x8192,$RAGGED --also 256x128,rowwarp-shuffle,e8 \
    --also 128x256,rowwarp256-shuffle,e8
SAN=/usr/local/cuda/bin/compute-sanitizer
if [ -x "$SAN" ]; then
    step memcheck 25 "$SAN" --tool memcheck --report-api-errors no python3 lab/gpu/hop3_memcheck.py \
        auto
fi
step gpu_tests 60 python3 -m pytest -o addopts="" -q -m gpu test/python/test_gemm_hopper.py \
    -k "not wgmma_tile"
echo "== the diagnosis, the candidates and the final tables"
grep -E "^  (timing|padding|fastest|candidate|f16|bf16)|^\| |^the form|^\(every|SASS|^  gemm_hopper|^  pad |ERROR|Error" \
    "$out/candidates.txt" "$out/final.txt" | tee "$out/tables.txt"
grep -hE "memcheck call|ERROR SUMMARY" "$out"/memcheck.txt 2>/dev/null | tee -a "$out/tables.txt"
echo "== summary"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
