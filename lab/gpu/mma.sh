#!/usr/bin/env bash
# GPU steps of regcopy.mma and the GEMM (issue 32), on the H200, at most ~4 minutes:
#   bash lab/gpu/mma.sh        (outputs under $OUT, default /tmp/out; summary on stdout)
# 1. the GPU tests of the area (test_gpu_gemm.py, test_gpu_mma.py);
# 2. regcopy-run --check (GPU vs the CPU interpreter, bit for bit) of examples/gemm.mlir and
#    examples/gemm_any_k.mlir at small ragged sizes;
# 3. compute-sanitizer memcheck on one small ragged GEMM of each kernel;
# 4. the SASS of the GEMM kernels (HMMA.16816.F32 per K tile, LDSM, LDGSTS, no LDL/STL);
# 5. the benchmark against cuBLAS and Triton (regcopy_bench.bench_gemm).
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
python3 -m pip install -q --no-deps --no-build-isolation -e . >"$out/install.txt" 2>&1 \
    || echo "pip install -e . failed (see install.txt); trying the tree as it is"
declare -a summary
step() {  # step NAME SECONDS COMMAND...
    local name=$1 limit=$2; shift 2
    echo "== $name"
    timeout "$limit" "$@" >"$out/$name.txt" 2>&1
    local rc=$?
    tail -n 25 "$out/$name.txt"
    summary+=("$name: exit $rc")
}
step gpu_tests 60 python3 -m pytest -o addopts="" -q -m gpu test/python/test_gpu_gemm.py test/python/test_gpu_mma.py
step check_gemm 60 regcopy-run --check examples/gemm.mlir --arg A=200x40 --arg B=300x40 --arg D=200x300 --grid 2,2
step check_gemm_any_k 60 regcopy-run --check examples/gemm_any_k.mlir --arg A=130x37 --arg B=260x37 --arg D=130x260 --grid 2,2
if [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
    step memcheck_gemm 60 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 9 \
        regcopy-run examples/gemm.mlir --arg A=300x72 --arg B=520x72 --arg D=300x520 --grid 3,3
    step memcheck_gemm_any_k 60 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 9 \
        regcopy-run examples/gemm_any_k.mlir --arg A=300x77 --arg B=520x77 --arg D=300x520 --grid 3,3
fi
regcopy-opt -p lower-reg-copy -t sass examples/gemm.mlir >"$out/gemm.sass" 2>&1
echo "== sass (examples/gemm.mlir, both kernels): HMMA.16816.F32 $(grep -c 'HMMA.16816.F32' "$out/gemm.sass")" \
     "LDSM $(grep -c LDSM "$out/gemm.sass") LDGSTS $(grep -c LDGSTS "$out/gemm.sass")" \
     "LDL/STL $(grep -c -E 'LDL|STL' "$out/gemm.sass")"
step bench_gemm 200 python3 -m regcopy_bench.bench_gemm --iters 20
echo "== summary"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
