#!/usr/bin/env bash
# The second half of the merged tree's H200 check (after lab/gpu/device.sh ran ragged, gemmperf,
# wgmma and tma): every GPU-marked test in one pytest run, the conversion and softmax
# benchmarks, and compute-sanitizer memcheck of the new example kernels. Outputs under $OUT.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
CS="compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9"
step() {  # step NAME SECONDS COMMAND...
    local name=$1 limit=$2; shift 2
    local t0=$SECONDS
    timeout "$limit" "$@" >"$out/$name.txt" 2>&1
    echo "== $name: exit $? ($((SECONDS - t0)) s)"; tail -n 25 "$out/$name.txt"
}
step pytest_gpu 170 python3 -m pytest -o addopts="" -q -rs -m gpu -p no:cacheprovider \
    $(grep -l "mark.gpu" test/python/test_*.py | grep -v -E "test_tma_matrix|test_gpu_gemm|test_wgmma|test_gemm_hopper|test_misaligned_cost")
step bench_convert 60 python3 -m regcopy_bench.bench_convert
step bench_softmax 60 python3 -m regcopy_bench.bench_softmax --n 1024,1001,4096,4093,8192,16384
step memcheck_softmax 25 $CS regcopy-run --arg X=1001x4093 --arg Y=1001x4093 --grid 1001 --kernel softmax_4k examples/softmax.mlir
step memcheck_convert 25 $CS regcopy-run examples/convert_epilogue.mlir
step memcheck_strided 40 $CS regcopy-run --arg X=4001x4001:4003 --arg Y=4001x4001:4005 --grid 126,501 lab/gpu/strided_view.mlir
