#!/usr/bin/env bash
# GPU steps of the GEMM speed work (issue 32, follow-up) on the H200, within ~4 minutes:
#   bash lab/gpu/gemmperf.sh        (outputs under $OUT, default /tmp/out; summary on stdout)
# Most important first, each step under `timeout` and the time left (235 s in all):
# 1. bench_gemm (exact checks, mma.sync's measured peak, the table against cuBLAS and Triton,
#    the padded route's time split into pad A + pad B + GEMM, and the cp.async candidates of
#    regcopy_bench.gemm_kernels.CANDIDATES at 4096^3 and 8192^3 with the fastest named);
# 2. compute-sanitizer memcheck of examples/gemm.mlir at a ragged size whose K (200) wraps the
#    3-slot ring and ends in a partial K tile;
# 3. the GPU tests of the GEMM (test_gpu_gemm.py: the examples and every candidate bit-exact).
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
    if (( left < 15 )); then summary+=("$name: skipped (out of time)"); return; fi
    (( limit > left )) && limit=$left
    echo "== $name (limit ${limit}s)"
    timeout "$limit" "$@" >"$out/$name.txt" 2>&1
    local rc=$?
    tail -n 45 "$out/$name.txt"
    summary+=("$name: exit $rc ($(( $(date +%s) - t0 ))s)")
}
step bench_gemm 140 python3 -m regcopy_bench.bench_gemm
if [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
    step memcheck_gemm 40 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 \
        regcopy-run examples/gemm.mlir --arg A=300x200 --arg B=520x200 --arg D=300x520 --grid 3,3
fi
step gpu_tests 90 python3 -m pytest -o addopts="" -q -m gpu test/python/test_gpu_gemm.py
echo "== summary"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
