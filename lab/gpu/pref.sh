#!/usr/bin/env bash
# Issue 32's speed targets for the mma.sync GEMM (the prefetching loop as the example), on the
# H200, in at most 4 minutes:
#   OUT=/tmp/out bash lab/gpu/pref.sh      (outputs under $OUT; a summary on stdout)
# Run from the repository root after `pip install --no-deps --no-build-isolation -e .`.
# Most important first, every step under `timeout` and the time left (225 s in all):
# 1. bench_gemm in one process: the cp.async candidates first (each one's LDL/STL in both index
#    forms with this machine's NVRTC, then TFLOPS at 4096^3 and 8192^3, f16), then the table
#    of the example (the prefetching loop, copies first in a branch, shared epilogue) and its
#    other CTA tiles at 4096^3, 8192^3 and 4095x4097x4093, f16 and bf16, with the cuBLAS and
#    Triton columns, the SASS main loop in both index forms, the padded route part by part and
#    the ragged / aligned ratio, with the pair padding by CTA tile (32x256, 8x512, 4x1024) and
#    the 256x128 / 4-warp 128x128 kernels storing D's misaligned vectors predicated. What it
#    should show: every candidate "LDL/STL 0 (64-bit index) / 0 (32-bit)"; the example >= 0.55x
#    cuBLAS at both cubes (batch 1, 17:49: 0.65x / 0.57x f16, 0.62x / 0.59x bf16); ragged /
#    aligned (target 0.85; batch 1: 0.78 / 0.81 through pair + 256x128).
# 2. the GPU tests of the GEMM (test_gpu_gemm.py: the examples, the padded route and every
#    candidate in both index forms, bit-exact, ragged in M, N and K) and of the ragged
#    cp.async copies whose rounds now share one thread base (test_async_ragged,
#    test_gpu_async): all pass;
# 3. compute-sanitizer memcheck of one small ragged launch of examples/gemm.mlir (M 300,
#    N 370: N % 8 != 0, K 200: the ring wraps): 0 errors.
set -uo pipefail
cd "$(dirname "$0")/../.."
budget=225 tail_lines=40
. lab/gpu/steps.sh
python3 -c "from cuda.bindings import nvrtc; print('NVRTC', nvrtc.nvrtcVersion()[1:])" 2>&1 \
    | tee "$out/nvrtc.txt"
step bench_gemm 150 python3 -m regcopy_bench.bench_gemm --iters 20 --candidates first \
    --candidate-sizes 4096,8192 --sizes 4096x4096x4096,8192x8192x8192,4095x4097x4093 \
    --dtypes f16,bf16
step gpu_tests 50 python3 -m pytest -o addopts="" -q -m gpu test/python/test_gpu_gemm.py \
    test/python/test_async_ragged.py test/python/test_gpu_async.py
if [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
    step memcheck_gemm 25 /usr/local/cuda/bin/compute-sanitizer --tool memcheck \
        --report-api-errors no --error-exitcode 9 \
        regcopy-run examples/gemm.mlir --arg A=300x200 --arg B=370x200 --arg D=300x370 --grid 2,3
else
    summary+=("memcheck_gemm: skipped (no compute-sanitizer)")
fi
finish
grep -h "LDL/STL\|fastest\|ragged .*aligned\|^| " "$out/bench_gemm.txt" 2>/dev/null | tail -n 40
