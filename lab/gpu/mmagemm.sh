#!/usr/bin/env bash
# GPU steps of the mma.sync GEMM work (issue 32's targets, issue 33's epilogue) on the H200,
# within ~4 minutes:
#   bash lab/gpu/mmagemm.sh        (outputs under $OUT, default /tmp/out; summary on stdout)
# Most important first, each step under `timeout` and the time left (235 s in all):
# 1. bench_gemm: first the cp.async candidates of regcopy_bench.gemm_kernels.CANDIDATES at
#    4096^3 and 8192^3 f16 (CTA tiles 128x256 / 256x128 / 128x128, ring shapes, where the
#    copies issue, the shared vs convert epilogue, 32-bit index math), each checked against
#    torch, the fastest named; then exact checks, mma.sync's measured peak and the table of the
#    example's kernel (and its other CTA tiles) at 4096^3, 8192^3 and 4095x4097x4093, f16 and
#    bf16, against cuBLAS and Triton, with the ragged/aligned ratio;
# 2. compute-sanitizer memcheck of one small ragged launch (M 300, N 370: N % 8 != 0, K 200:
#    the ring wraps) of examples/gemm.mlir and of the convert-epilogue kernels (128x256 with
#    the edge-prefetching loop, 128x256 and 256x128);
# 3. the GPU tests of the GEMM (test_gpu_gemm.py: the examples and every candidate bit-exact
#    at sizes ragged in M, N (N % 8 != 0) and K);
# 4. the SASS main-loop mix of every candidate (no GPU needed, recorded with the run).
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
    tail -n 60 "$out/$name.txt"
    summary+=("$name: exit $rc ($(( $(date +%s) - t0 ))s)")
}
step bench_gemm 165 python3 -m regcopy_bench.bench_gemm --iters 20 --candidates first \
    --sizes 4096x4096x4096,8192x8192x8192,4095x4097x4093
if [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
    python3 -c "from regcopy_bench.gemm_kernels import kernel_text as k; print(k('gemm_convert', 'f16', epilogue='convert', prefetch=True, edge=True) + k('gemm_convert_tall', 'bf16', epilogue='convert', cm=256, prefetch=True, edge=True))" \
        >"$out/convert_epilogue.mlir"
    step memcheck_gemm 25 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 \
        regcopy-run examples/gemm.mlir --arg A=300x200 --arg B=370x200 --arg D=300x370 --grid 3,3
    step memcheck_convert 25 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 \
        regcopy-run "$out/convert_epilogue.mlir" --arg A=300x200 --arg B=370x200 --arg D=300x370 --grid 3,3
fi
step gpu_tests 90 python3 -m pytest -o addopts="" -q -m gpu test/python/test_gpu_gemm.py
step sass_candidates 40 python3 -m regcopy_bench.bench_gemm --sass-only
echo "== summary"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
