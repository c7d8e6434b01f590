#!/usr/bin/env bash
# Issues 32 and 34 on the H200: 32-bit index math for runtime-shaped kernels, chosen per launch
# (backend/runtime/index_width.py). Steps:
# 1. the GPU tests of the runner and printer touched (test_gpu_index_width.py: a copy of more
#    than 2^31 int8 elements through the 64-bit compile, one just under the limit and a small
#    one through the 32-bit compile, bit for bit; the ragged/strided/launch GPU tests, which
#    now run the 32-bit form; test_compute_gpu.py, whose bench_softmax run picks the form);
# 2. bench_ragged over N = 1..64 on the fitted tiles and 17..64 on 64x64 with the Triton
#    column, as the runner chooses (--index auto: 32-bit here), then the same with --index 64
#    (the 64-bit compile, what every runtime-shaped kernel ran before): same GPU, same session;
# 3. bench_gemm at 4096^3 and 4095x4097x4093 (f16) with cuBLAS and Triton, auto then 64-bit.
# (The SASS counts of both forms need no GPU: python3 lab/index32_sass.py.)
# Run from the repository root after `pip install --no-deps --no-build-isolation -e .`:
#   OUT=/tmp/out bash lab/gpu/index32.sh        (at most 4 minutes: every step has a timeout).
# What it should show: pytest exit 0 (3 tests of test_gpu_index_width.py pass, none skipped);
# bench_auto.txt's regcopy / Triton ratios at small N above bench_64.txt's (issue 34: 0.62-0.89x
# with 64-bit math); gemm_auto.txt's regcopy / cuBLAS above gemm_64.txt's (issue 32: 0.44-0.46x);
# no MISMATCH line, every check "ok".
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
summary=()
step() {  # step NAME SECONDS COMMAND...: run with a timeout, log to $OUT/NAME.txt, keep going
  local name=$1 limit=$2; shift 2
  local t0=$SECONDS
  timeout "$limit" "$@" >"$OUT/$name.txt" 2>&1
  local rc=$?
  summary+=("$name: exit $rc ($((SECONDS - t0)) s)")
  echo "== $name: exit $rc ($((SECONDS - t0)) s)"
}
step pytest_gpu 60 python3 -m pytest -o addopts="" -q -rs -m gpu \
  test/python/test_gpu_index_width.py test/python/test_gpu_ragged.py \
  test/python/test_gpu_strided.py test/python/test_gpu_launch.py \
  test/python/test_compute_gpu.py
B="python3 -m regcopy_bench.bench_ragged --wide= --rows= --bf16= --i8= --pair-iters 0 --iters 5"
step bench_auto 50 $B --fitted 1:65 --narrow 17:65
step bench_64 30 $B --fitted 1:65 --narrow 17:65 --index 64
G="python3 -m regcopy_bench.bench_gemm --dtypes f16 --sizes 4096x4096x4096,4095x4097x4093 --no-rings --iters 10"
step gemm_auto 55 $G
step gemm_64 40 $G --index 64
echo
echo "== summary"
printf '%s\n' "${summary[@]}"
grep -E "passed|failed|SKIP" "$OUT/pytest_gpu.txt" | tail -5
for f in bench_auto bench_64; do
  echo "== $f (the issue's table)"; sed -n '/^misaligned N, ratio/,$p' "$OUT/$f.txt" | head -30
done
for f in gemm_auto gemm_64; do
  echo "== $f"; grep -E "^\| f16|check|MISMATCH|Error|error" "$OUT/$f.txt" | head -8
done
grep -h MISMATCH "$OUT"/bench_*.txt || echo "no MISMATCH line"
