#!/usr/bin/env bash
# Issue 34 at small N, on the H200: where the misaligned fallback loses to Triton's plain masked
# copy, and whether the tree's forms now keep up. Steps (each under a timeout; the script goes
# on when one fails and prints every exit status):
#   forms         lab/ragged/smalln_forms.py: the A/B on the fitted tiles of the tree's kernel
#                 (auto, forced predicated, forced staged; each also in 32-bit integers),
#                 Triton's kernel by hand (64- and 32-bit offsets) and a hand-staged one, one
#                 process, every output bit-exact first (GB/s, ratio to the form's aligned N)
#   sass          bench_ragged --sass (128-bit transfers, no local memory)
#   bench_auto    bench_ragged over the issue's ranges with the Triton column (the issue's table)
#   bench_FORM    bench_ragged with the misaligned form forced (every form the pass offers), on a
#                 sample of the same N: the cost model's choice should be the fastest
#   bench_softmax the softmax example's copies (bf16 rows at N = 1001, 4093 now store staged):
#                 compare with lab/results/h200_2026-12-03/final_b/bench_softmax.txt
#   pytest_gpu    the gpu-marked tests of the misaligned path
#   memcheck_*    compute-sanitizer memcheck of the fitted 512x8 and the 32x256 kernels,
#                 under every form
# Run from the repository root after `pip install --no-deps --no-build-isolation -e .`:
#   OUT=/tmp/out bash lab/gpu/smalln.sh        (at most 4 minutes; outputs under $OUT)
# What it should show: forms.txt, the staged forms (emitted: stores staged; stagedp: both;
# staged32: by hand) at >= 0.95x of their aligned N on the fitted tiles and within 2% of
# triton/triton32, where predicated is 0.6-0.9x; bench_auto.txt's issue table with regcopy /
# Triton >= 0.98x; bench_staged/bench_predicated the same N forced each way; no MISMATCH line;
# pytest and memcheck exit 0.
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
FORMS=$(python3 -c "from regcopy_passes.lower_reg_copy import CHOICES as c; print(' '.join(x for x in c['misaligned_stores'] if x != 'auto'))" 2>/dev/null || echo "realigned predicated")
step forms 110 python3 lab/ragged/smalln_forms.py
step sass 25 $B --sass
RANGES="--fitted 1:64 --narrow 17:65 --rows 65:257 --wide 4000:4161 --pair-iters 0"
step bench_auto 50 $B $RANGES
SAMPLE="--fitted 1:64 --narrow 17:33 --rows 65:101 --wide 4000:4013 --bf16 1000:1004 --i8 8192:8196 --iters 5 --pair-iters 0"
for f in $FORMS; do
  step "bench_$f" 20 $B --misaligned-stores "$f" $SAMPLE
done
step bench_softmax 40 python3 -m regcopy_bench.bench_softmax --n 1024,1001,4096,4093
step pytest_gpu 25 python3 -m pytest -o addopts="" -q -rs -m gpu -p no:cacheprovider \
  test/python/test_misaligned_cost.py test/python/test_staged.py test/python/test_bounds_sass.py \
  test/python/test_cuda_ragged.py
K=$(mktemp -d)
for f in $FORMS; do
  python3 - "$K" "$f" <<'PY'
import sys
from regcopy_bench import bench_ragged as b
for t in (b.FITTED[1], b.NARROW, b.ROWS):
    open(f"{sys.argv[1]}/ragged_{t.rows}x{t.cols}_{sys.argv[2]}.mlir", "w").write(
        b.kernel_text(t, False))
PY
done
CS="/usr/local/cuda/bin/compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9"
for f in $FORMS; do
  step "memcheck_512x8_$f" 12 $CS regcopy-run "$K/ragged_512x8_$f.mlir" --check \
    -p "lower-reg-copy{misaligned-stores=$f}" --arg X=1100x7 --arg Y=1100x7 --grid 3
  step "memcheck_32x256_$f" 12 $CS regcopy-run "$K/ragged_32x256_$f.mlir" --check \
    -p "lower-reg-copy{misaligned-stores=$f}" --arg X=40x259 --arg Y=40x259 --grid 4
done
echo
echo "== summary"
printf '%s\n' "${summary[@]}"
echo "== forms (lab/ragged/smalln_forms.py)"
grep -E "^tile|^mean|MISMATCH|bit-exact" "$OUT/forms.txt"
echo "== the issue's table (bench_auto)"
sed -n '/^misaligned N, ratio/,$p' "$OUT/bench_auto.txt"
for f in $FORMS; do
  echo "== bench_$f"; sed -n '/^misaligned N, ratio/,$p' "$OUT/bench_$f.txt"
done
grep -h MISMATCH "$OUT"/bench_*.txt || echo "no MISMATCH line"
