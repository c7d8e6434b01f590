#!/usr/bin/env bash
# Issue 34 at small N, on the H200, in at most 100 s (the final run of every branch's script in
# one call). Steps, most important first, each under a timeout that keeps the sum of the limits
# under 100 s; a step that would start past the budget is skipped (printed as such); every exit
# status is printed:
#   bench_auto    the issue's table: bench_ragged over the issue's ranges, Triton column, auto
#   bench_FORM    the forms forced (realigned, predicated, staged: staged loads too) only where
#                 the choice is in doubt: the 1024x4 tile at N = 1..4 (auto stages the stores;
#                 N = 1 ran at 0.72x of Triton so, forced predicated 0.98x, realigned 0.96x)
#                 and the 64x64 tile at N = 17..40 (auto 0.81x of aligned at 17..31; forced
#                 predicated won 17..19, staged won 33..39; staged loads not yet measured)
#   pytest_gpu    the gpu-marked tests of the misaligned path
#   memcheck_*    compute-sanitizer memcheck, one kernel a form (512x8 staged, 64x64
#                 predicated, 32x256 realigned), --check against the CPU
# Run from the repository root after `pip install --no-deps --no-build-isolation -e .`:
#   OUT=/tmp/out bash lab/gpu/smalln.sh        (outputs under $OUT)
# What it should show: bench_auto's issue table (regcopy / Triton >= 0.98x per band); in the
# forced runs, which form is fastest at 1024x4 N = 1..3 and 64x64 N = 17..39 (the candidates
# for the cost model's choice there); no MISMATCH line; pytest and memcheck exit 0.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
BUDGET=${SMALLN_BUDGET:-100}
summary=()
step() {  # step NAME SECONDS COMMAND...: run with a timeout, log to $OUT/NAME.txt, keep going
  local name=$1 limit=$2; shift 2
  if (( SECONDS + limit > BUDGET )); then
    summary+=("$name: skipped (${SECONDS} s used of $BUDGET)"); echo "== $name: skipped"; return
  fi
  local t0=$SECONDS
  timeout "$limit" "$@" >"$OUT/$name.txt" 2>&1
  local rc=$?
  summary+=("$name: exit $rc ($((SECONDS - t0)) s)")
  echo "== $name: exit $rc ($((SECONDS - t0)) s)"
}
B="python3 -m regcopy_bench.bench_ragged"
step bench_auto 32 $B --fitted 1:64 --narrow 17:65 --rows 65:257 --wide 4000:4161 \
  --bf16 "" --i8 "" --pair-iters 0
DOUBT="--fitted 1:5 --narrow 17:41 --rows '' --wide '' --bf16 '' --i8 '' --iters 5 --pair-iters 0"
for f in staged predicated realigned; do
  step "bench_$f" 11 bash -c "$B --misaligned-stores $f $DOUBT"
done
step pytest_gpu 16 python3 -m pytest -o addopts="" -q -rs -m gpu -p no:cacheprovider \
  test/python/test_staged.py test/python/test_misaligned_cost.py test/python/test_cuda_ragged.py
K=$(mktemp -d)
timeout 5 python3 - "$K" <<'PY'
import sys
from regcopy_bench import bench_ragged as b
for t in (b.FITTED[1], b.NARROW, b.ROWS):
    open(f"{sys.argv[1]}/ragged_{t.rows}x{t.cols}.mlir", "w").write(b.kernel_text(t, False))
PY
CS="/usr/local/cuda/bin/compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9"
step memcheck_512x8_staged 6 $CS regcopy-run "$K/ragged_512x8.mlir" --check \
  -p "lower-reg-copy{misaligned-stores=staged}" --arg X=1100x7 --arg Y=1100x7 --grid 3
step memcheck_64x64_predicated 6 $CS regcopy-run "$K/ragged_64x64.mlir" --check \
  -p "lower-reg-copy{misaligned-stores=predicated}" --arg X=150x19 --arg Y=150x19 --grid 3
step memcheck_32x256_realigned 6 $CS regcopy-run "$K/ragged_32x256.mlir" --check \
  -p "lower-reg-copy{misaligned-stores=realigned}" --arg X=40x259 --arg Y=40x259 --grid 4
echo
echo "== summary ($SECONDS s)"
printf '%s\n' "${summary[@]}"
echo "== the issue's table (bench_auto)"
sed -n '/^misaligned N, ratio/,$p' "$OUT/bench_auto.txt"
for f in staged predicated realigned; do
  echo "== bench_$f (forced; 1024x4 N = 1..4, 64x64 N = 17..40)"
  grep -E "^\|     [1-4] \||^\|    [1-4][0-9] \|" "$OUT/bench_$f.txt" | cut -d'|' -f2,4,5,6,8
done
grep -h MISMATCH "$OUT"/bench_*.txt || echo "no MISMATCH line"
