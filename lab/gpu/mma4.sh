#!/usr/bin/env bash
# Issue 32's odd-K target with the narrow edge tile (bench_gemm's `edge` variant: the example's
# 128 x 256 tiles, a CTA with at most 8 columns of D left running 64 x 8 warp tiles), on the
# H200 in at most 4 minutes:  OUT=/tmp/out bash lab/gpu/mma4.sh   (outputs under $OUT)
# 1. bench_gemm at 4096^3 and 4095x4097x4093, f16 and bf16, no candidate table: every CTA tile
#    (the edge variant beside 128x256, 128x128, 256x128, 128x128/4w), the padded routes part
#    by part; what it should show: pair+128x256+e8 at >= 0.85x of the aligned 4096^3 (pair+256x128,
#    the route until now: 0.81x), and the edge variant as fast as 128x256 at 4096^3;
# 2. the GPU tests of the edge tile (bit-exact at N = 257, 264, 300) and of the candidates;
# 3. compute-sanitizer memcheck of the edge tile's test at N = 257.
set -uo pipefail
cd "$(dirname "$0")/../.."
budget=235 tail_lines=40
. lab/gpu/steps.sh
step bench_gemm 150 python3 -m regcopy_bench.bench_gemm --no-rings --iters 20 \
    --sizes 4096x4096x4096,4095x4097x4093
step gpu_tests 60 python3 -m pytest -o addopts="" -q -m gpu test/python/test_gpu_gemm.py \
    -k "edge_tile or example"
SAN=/usr/local/cuda/bin/compute-sanitizer
if [ -x "$SAN" ]; then
    step memcheck 30 "$SAN" --tool memcheck --report-api-errors no python3 -m pytest \
        -o addopts="" -q -m gpu test/python/test_gpu_gemm.py -k "edge_tile_exact and 257"
fi
finish
