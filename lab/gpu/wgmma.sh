#!/usr/bin/env bash
# GPU steps of regcopy.wgmma and the Hopper GEMM (issue 35) on the H200, within ~4 minutes:
#   bash lab/gpu/wgmma.sh        (outputs under $OUT, default /tmp/out; summary on stdout)
# Most important first, each step under `timeout` and the time left (235 s in all):
# 1. the GPU tests: every wgmma case of test_wgmma.py (shared/register A, K-/MN-major B, each
#    swizzle, bf16) and the Hopper GEMM bit-exact (f16, bf16) against numpy;
# 2. the benchmark (regcopy_bench.bench_gemm_hopper): exact checks, then wgmma / mma.sync /
#    cuBLAS / Triton TFLOPS at 4096^3, 8192^3 and 4095x4097x4093 (padded rows);
# 3. the SASS of examples/gemm_hopper.mlir (HGMMA.64x256x16.F32, UTMALDG, no LDL/STL);
# 4. regcopy-run --check (GPU vs the CPU interpreter) of examples/gemm_hopper.mlir, ragged;
# 5. compute-sanitizer memcheck of one ragged Hopper GEMM;
# 6. Nsight Compute: the tensor pipe's utilisation of the 4096^3 f16 launch.
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
t0=$(date +%s)
budget=235
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
step gpu_tests 50 python3 -m pytest -o addopts="" -q -m gpu test/python/test_wgmma.py test/python/test_gemm_hopper.py
step bench 130 python3 -m regcopy_bench.bench_gemm_hopper --iters 10 \
    --sizes 4096x4096x4096,8192x8192x8192,4095x4097x4093
step sass 15 bash -c "regcopy-opt -p '$TMA' -t sass examples/gemm_hopper.mlir > '$out/gemm_hopper.sass' \
    && echo \"HGMMA.64x256x16.F32 \$(grep -c 'HGMMA.64x256x16.F32' '$out/gemm_hopper.sass') (2 kernels x 4)\" \
    && echo \"UTMALDG \$(grep -c UTMALDG '$out/gemm_hopper.sass')\" \
    && echo \"LDL/STL \$(grep -c -E '\\b(LDL|STL)\\b' '$out/gemm_hopper.sass')\""
step check 45 regcopy-run -p "$TMA" --check examples/gemm_hopper.mlir --arg A=70x72 --arg B=100x72 --arg D=70x100 --grid 1,1
if [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
    step memcheck 30 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --report-api-errors no \
        --error-exitcode 9 regcopy-run -p "$TMA" examples/gemm_hopper.mlir \
        --arg A=300x264 --arg B=520x264 --arg D=300x520 --grid 3,3
fi
if [ -x /usr/local/cuda/bin/ncu ]; then
    step ncu 30 /usr/local/cuda/bin/ncu -k regex:gemm_hopper --launch-skip 3 --launch-count 1 \
        --metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum \
        python3 -m regcopy_bench.bench_gemm_hopper --iters 1 --dtypes f16 --sizes 4096x4096x4096
fi
echo "== summary"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
