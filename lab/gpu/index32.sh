#!/usr/bin/env bash
# Issues 32 and 34 on the H200: 32-bit index math for runtime-shaped kernels, chosen per launch
# (backend/runtime/index_width.py). At most 60 s in all, most important first:
# 1. test_gpu_index_width.py: a copy of more than 2^31 int8 elements through the 64-bit compile,
#    one just under the 32-bit limit and a small one through the 32-bit compile, bit for bit;
# 2. lab/index32_gemm.py: the GEMM examples (gemm.mlir at 4096^3, gemm_any_k.mlir at
#    4095x4097x4093, f16) in both widths against cuBLAS, same process (both forms bit-equal);
# 3. bench_ragged over N = 1..64 on the fitted tiles and 17..64 on 64x64 with the Triton column,
#    as the runner chooses (32-bit here). The 64-bit comparison (--index 64) ran in the first
#    batch (15:46): rerun it with `$B --fitted 1:65 --narrow 17:65 --index 64` if needed.
# (The SASS counts of both forms need no GPU: python3 lab/index32_sass.py.)
# Run from the repository root after `pip install --no-deps --no-build-isolation -e .`:
#   OUT=/tmp/out bash lab/gpu/index32.sh        (every step has a timeout; outputs under $OUT)
# What it should show: pytest "3 passed"; gemm.txt: 32 / 64 above 1.0x, "ok (forms equal)" on
# both rows, the runner's choice 32-bit; bench_auto.txt: no MISMATCH, regcopy / Triton at small N
# as in the first batch's auto run (1..15: 11 of 12 >= 0.98x; 17..31 on 128x32: 12 of 12).
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
step pytest_gpu 20 python3 -m pytest -o addopts="" -q -rs -m gpu test/python/test_gpu_index_width.py
step gemm 22 python3 lab/index32_gemm.py --iters 10
B="python3 -m regcopy_bench.bench_ragged --wide= --rows= --bf16= --i8= --pair-iters 0 --iters 5"
step bench_auto 14 $B --fitted 1:65 --narrow 17:65
echo
echo "== summary"
printf '%s\n' "${summary[@]}"
grep -E "passed|failed|SKIP" "$OUT/pytest_gpu.txt" | tail -3
echo "== gemm"; cat "$OUT/gemm.txt" | tail -6
echo "== bench_auto (the issue's table)"; sed -n '/^misaligned N, ratio/,$p' "$OUT/bench_auto.txt"
grep -h MISMATCH "$OUT"/bench_*.txt || echo "no MISMATCH line"
