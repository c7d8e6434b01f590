#!/usr/bin/env bash
# Issue 34 (ragged rows at small N) and issue 31 items 4-5, on the H200: bench_ragged over the
# issue's ranges with the Triton column (every N of both systems checked bit for bit before
# timing), the misaligned-store forms forced each way on the same ranges (does the cost model
# pick the faster one?), the SASS checks, the GPU tests, memcheck on both forms.
# Run from the repository root after `pip install --no-deps --no-build-isolation -e .`:
#   OUT=/tmp/out bash lab/gpu/ragged.sh        (at most 4 minutes: every step has a
#   timeout; outputs under $OUT). What it should show: bench_auto.txt ends with the issue's
#   table (misaligned N by band, regcopy and Triton, regcopy / Triton >= 0.98x), the bf16 N =
#   1001 and int8 N = 8193 rows with their Triton column; bench_realigned/predicated.txt the
#   same N with each store form forced (the model's choice should be the faster: predicated
#   on 1024x4..256x16, realigned on 128x32..8x1024); no MISMATCH line; pytest and memcheck
#   exit 0.
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
B="python3 -m regcopy_bench.bench_ragged"
# N: every N of 1..64 on the fitted tiles, 17..64 on 64x64, 65..256 on 32x256, 4000..4160 on
# 8x1024 (the issue's table); the versioned/promised pairs are bench_ragged's default run's.
RANGES="--fitted 1:33 --narrow 17:65 --rows 65:257 --wide 4000:4161 --pair-iters 0"
step sass 25 $B --sass
step bench_auto 105 $B $RANGES
# the forms forced, on a sample of the same N (A/B of the cost model's choice, same process
# order as above: each run is its own process, compare each to its own aligned N)
SAMPLE="--fitted 1:33 --narrow 33:65 --rows 65:101 --wide 4000:4013 --bf16 1000:1004 --i8 8192:8196 --iters 5 --pair-iters 0"
step bench_realigned 25 $B --misaligned-stores realigned $SAMPLE
step bench_predicated 25 $B --misaligned-stores predicated $SAMPLE
step pytest_gpu 25 python3 -m pytest -o addopts="" -q -m gpu test/python/test_misaligned_cost.py \
  test/python/test_bounds_sass.py test/python/test_cuda_ragged.py
# memcheck: the fitted 1024x4 kernel (predicated stores) and the 32x256 one (realigned)
K=$(mktemp -d)
python3 - "$K" <<'PY'
import sys
from regcopy_bench import bench_ragged as b
for t in (b.FITTED[0], b.ROWS):
    open(f"{sys.argv[1]}/ragged_{t.rows}x{t.cols}.mlir", "w").write(b.kernel_text(t, False))
PY
CS=/usr/local/cuda/bin/compute-sanitizer
step memcheck_1024x4 17 $CS --tool memcheck --error-exitcode 9 regcopy-run \
  "$K/ragged_1024x4.mlir" --check --arg X=1100x3 --arg Y=1100x3 --grid 2
step memcheck_32x256 17 $CS --tool memcheck --error-exitcode 9 regcopy-run \
  "$K/ragged_32x256.mlir" --check --arg X=40x259 --arg Y=40x259 --grid 4
echo
echo "== summary"
printf '%s\n' "${summary[@]}"
echo "== the issue's table (bench_auto)"
sed -n '/^misaligned N, ratio/,$p' "$OUT/bench_auto.txt"
for f in bench_realigned bench_predicated; do
  echo "== $f"; sed -n '/^misaligned N, ratio/,$p' "$OUT/$f.txt"
done
grep -h MISMATCH "$OUT"/bench_*.txt || echo "no MISMATCH line"
