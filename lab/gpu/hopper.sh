#!/usr/bin/env bash
# GPU steps of issue 35's second round (the Hopper GEMM) on the H200, within 130 seconds:
#   bash lab/gpu/hopper.sh        (outputs under $OUT, default /tmp/out; summary on stdout)
# Most important first, each step under `timeout` and the time left (125 s in all):
# 1. one process (bench_gemm_hopper): the candidates at the ragged size first, f16 —
#    the one-launch paddings of A and B (the old pair32, 32 x 256 a CTA, against the wider
#    CTA tiles of PADS: 8 x 2048 = bench_ragged's wide row tile, 16 x 1024, 8 x 1024; each
#    timed alone, its TB/s, and with the GEMM) and the rows epilogue with branch-realigned
#    against predicated misaligned stores (odd N), at 4095x4097x4093; then the
#    final table: the example's form (the CTA tile with the fewer waves, rows epilogue, the
#    fastest padding just measured) at 4096^3, 8192^3, 4095x4097x4093, f16 and bf16,
#    beside mma.sync, cuBLAS and Triton (exact checks first; SASS counts);
# 2. the gpu-marked wgmma / Hopper GEMM tests (bit-exact on integer-valued inputs, both tiles
#    and epilogues, the pad + GEMM pair, every padding of PADS; --check of wgmma_tile.mlir);
# 3. regcopy-run --check of @gemm_hopper (GPU against the CPU reference, a small size);
# 4. Nsight Compute: the tensor pipe's utilisation of one 4096^3 f16 launch (hopper_ncu.py),
#    where time is left.
# (Earlier candidates, ranked on 2026-12-03: lab/results/h200_2026-12-03/hopper/candidates.txt;
# --sass-only --candidates x prints the candidates' SASS, paddings included, without a GPU.)
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
t0=$(date +%s)
budget=125
python3 -m pip install -q --no-deps --no-build-isolation -e . >"$out/install.txt" 2>&1 \
    || echo "pip install -e . failed (see install.txt); using the tree as it is"
summary=()
step() {  # step NAME SECONDS COMMAND...: at most SECONDS, and never past the budget
    local name=$1 limit=$2; shift 2
    local left=$(( budget - ($(date +%s) - t0) ))
    if (( left < 10 )); then summary+=("$name: skipped (out of time)"); return; fi
    (( limit > left )) && limit=$left
    echo "== $name (limit ${limit}s)"
    timeout "$limit" "$@" >"$out/$name.txt" 2>&1
    local rc=$?
    tail -n 30 "$out/$name.txt"
    summary+=("$name: exit $rc ($(( $(date +%s) - t0 ))s)")
}
TMA='lower-reg-copy{transfer=tma}'
step bench 85 python3 -m regcopy_bench.bench_gemm_hopper --iters 10 \
    --candidates 4095x4097x4093 --forms '256x128,rows;256x128,rows-predicated' \
    --pads pair32,pair8x2048,pair16x1024,pair8x1024 --pad best \
    --sizes 4096x4096x4096,8192x8192x8192,4095x4097x4093
step gpu_tests 25 python3 -m pytest -o addopts="" -q -m gpu test/python/test_wgmma.py \
    test/python/test_gemm_hopper.py
step check 15 regcopy-run -p "$TMA" --kernel gemm_hopper --check examples/gemm_hopper.mlir \
    --arg A=70x72 --arg B=40x72 --arg D=70x40 --grid 1,1
if [ -x /usr/local/cuda/bin/ncu ]; then
    step ncu 10 python3 lab/gpu/hopper_ncu.py "$out"
fi
echo "== the paddings and the candidates at the ragged size, then the final table"
grep -E "^  (padding|fastest|candidate)|^\| |^the form" "$out/bench.txt" | tee "$out/tables.txt"
echo "== summary"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
