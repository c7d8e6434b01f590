#!/usr/bin/env bash
# GPU steps of the mma.sync GEMM (issue 32's targets, issue 33's epilogue) on the H200, within
# ~2 minutes (the final run's share):
#   bash lab/gpu/mmagemm.sh        (outputs under $OUT, default /tmp/out; summary on stdout)
# Most important first, each step under `timeout` and the time left (125 s in all):
# 1. bench_gemm: exact checks, mma.sync's measured peak, the SASS main loop of the example
#    (both index forms), and the table of the example's kernel (and its other CTA tiles;
#    the padded route for odd K) at 4096^3, 8192^3 and 4095x4097x4093, f16 and bf16, against
#    cuBLAS and Triton, with the 32- vs 64-bit index forms and the ragged/aligned ratio. The
#    candidates were ranked by the run of 15:46 (lab/results/h200_2026-12-03/mmagemm) and are
#    not rerun (--no-rings; `--candidates first` reruns them);
# 2. compute-sanitizer memcheck of one small ragged launch of examples/gemm.mlir (M 300,
#    N 370: N % 8 != 0, K 200: the ring wraps);
# 3. the GPU tests of the GEMM (test_gpu_gemm.py: the examples, the padded route and every
#    candidate in both index forms, bit-exact at sizes ragged in M, N and K).
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
    tail -n 45 "$out/$name.txt"
    summary+=("$name: exit $rc ($(( $(date +%s) - t0 ))s)")
}
step bench_gemm 75 python3 -m regcopy_bench.bench_gemm --iters 20 --no-rings \
    --sizes 4096x4096x4096,8192x8192x8192,4095x4097x4093
if [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
    step memcheck_gemm 20 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 \
        regcopy-run examples/gemm.mlir --arg A=300x200 --arg B=370x200 --arg D=300x370 --grid 3,3
fi
step gpu_tests 45 python3 -m pytest -o addopts="" -q -m gpu test/python/test_gpu_gemm.py
# 4. if time is left: the candidates at 4096^3 and 8192^3 (f16), for the one not yet timed:
#    the prefetching loop with the convert epilogue issuing its copies before the last k16
#    step with no branch (no local memory in either index form under NVRTC 13.5); the step
#    prints every candidate's LDL/STL in both index forms with the H200's NVRTC first
step candidates 60 python3 -m regcopy_bench.bench_gemm --iters 20 --candidates first \
    --candidate-sizes 4096,8192 --sizes 1024x1024x1024 --dtypes f16
echo "== summary"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
