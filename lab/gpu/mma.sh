#!/usr/bin/env bash
# GPU steps of regcopy.mma and the GEMM (issue 32) on the H200, within ~4 minutes:
#   bash lab/gpu/mma.sh        (outputs under $OUT, default /tmp/out; summary on stdout)
# Most important first, each step under `timeout` and the time left (235 s in all):
# 1. the benchmark against cuBLAS and Triton (regcopy_bench.bench_gemm: exact checks first,
#    mma.sync's measured peak, the table, the comparison of cp.async kernel candidates);
# 2. the SASS of examples/gemm.mlir (HMMA.16816.F32 per K tile, LDSM, LDGSTS, no LDL/STL);
# 3. regcopy-run --check (GPU vs the CPU interpreter, bit for bit) of examples/gemm.mlir at a
#    small ragged size;
# 4. compute-sanitizer memcheck on one small ragged GEMM (both kernels of gemm.mlir);
# 5. the GPU tests (test_gpu_gemm.py: both examples bit-exact at ragged sizes, odd K
#    included; test_gpu_mma.py: every dtype/shape pair of regcopy.mma against numpy).
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
    tail -n 40 "$out/$name.txt"
    summary+=("$name: exit $rc ($(( $(date +%s) - t0 ))s)")
}
step bench_gemm 170 python3 -m regcopy_bench.bench_gemm --iters 10
step sass 40 bash -c "regcopy-opt -p lower-reg-copy -t sass examples/gemm.mlir > '$out/gemm.sass' \
    && echo \"HMMA.16816.F32 \$(grep -c 'HMMA.16816.F32' '$out/gemm.sass') (2 kernels x 128: 4 k16 steps x 32 a 64-wide K tile)\" \
    && echo \"LDSM \$(grep -c LDSM '$out/gemm.sass') LDGSTS \$(grep -c LDGSTS '$out/gemm.sass')\" \
    && echo \"LDL/STL \$(grep -c -E '\\b(LDL|STL)\\b' '$out/gemm.sass')\""
step check_gemm 90 regcopy-run --check examples/gemm.mlir --arg A=100x40 --arg B=200x40 --arg D=100x200 --grid 1,1
if [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
    step memcheck_gemm 60 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 \
        regcopy-run examples/gemm.mlir --arg A=300x72 --arg B=520x72 --arg D=300x520 --grid 3,3
fi
step gpu_tests 120 python3 -m pytest -o addopts="" -q -m gpu test/python/test_gpu_gemm.py test/python/test_gpu_mma.py
echo "== summary"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
