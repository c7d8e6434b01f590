#!/usr/bin/env bash
# Issue 34 after the short-row model fix (64x64 predicated below 25 columns, was 5), on the
# H200 in at most 4 minutes. Steps, most important first, each under a timeout; a step that
# would start past the budget is skipped (printed as such); every exit status is printed:
#   bench_auto    the issue's table: bench_ragged over the issue's ranges, Triton column
#   ab            lab/ragged/smalln4_ab.py: the fitted tiles whose short-row threshold moved
#                 (64x64 N = 17..37, 512x8, 256x16, 128x32 around theirs) with the test where
#                 the model puts it now (auto), where it was (auto_was), nowhere (auto_t0)
#                 and, on 64x64, at 29 (auto_t29), predicated (and with the staged kernel's
#                 16 KiB of shared memory, unused: predicated_smem), Triton by hand;
#                 32x256 N = 65..255 and 8x1024 N = 4001..4011: auto (realigned), predicated, staged through 32 KiB of slices (both
#                 ways), Triton by hand in its own layout (triton_cols, warps along the row)
#                 and stacked on rows; one process, real Triton (peer) on the same buffers,
#                 every output bit-exact
#   bench_rerun   bench_ragged again over the changed and the contested ranges (64x64
#                 N = 17..40, 32x256 N = 180..256): the run-to-run spread of the ratios
#   pytest_gpu    the gpu-marked tests of the misaligned path
#   memcheck_*    compute-sanitizer memcheck, --check against the CPU, on the forms the
#                 auto choice runs where it changed (64x64 N = 19, 23: predicated short
#                 rows; N = 25: staged) and on 1024x4 N = 3, 32x256 N = 219
#   sass          the SASS per element of every A/B form, and the SASS counts the short-row
#                 model assumes (test_short_rows -k whole: no GPU needed; the H200's NVRTC)
# Run from the repository root after `pip install --no-deps --no-build-isolation -e .`:
#   OUT=/tmp/out bash lab/gpu/smalln4.sh        (outputs under $OUT)
# What it should show: bench_auto's issue table with the 64x64 17..31 row at or near 0.98x of
# Triton at N = 17..23 (predicated) as well as 25..31; ab's tables (auto >= auto_was where the
# threshold moved, equal elsewhere); no MISMATCH line; pytest and memcheck exit 0.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
BUDGET=${SMALLN4_BUDGET:-225}
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
step bench_auto 50 $B --fitted 1:64 --narrow 17:65 --rows 65:257 --wide 4000:4161 \
  --bf16 "" --i8 "" --pair-iters 0
step ab 120 bash -c "cd lab/ragged && python3 smalln4_ab.py --iters 20"
step bench_rerun 30 $B --fitted "" --narrow 17:41 --rows 180:257 --wide "" --bf16 "" --i8 "" \
  --pair-iters 0
step pytest_gpu 30 python3 -m pytest -o addopts="" -q -rs -m gpu -p no:cacheprovider \
  test/python/test_staged.py test/python/test_short_rows.py test/python/test_misaligned_cost.py \
  test/python/test_cuda_ragged.py test/python/test_gpu_ragged.py
K=$(mktemp -d)
timeout 10 python3 - "$K" <<'PY'
import sys
from regcopy_bench import bench_ragged as b
for t in (b.FITTED[0], b.NARROW, b.ROWS):
    open(f"{sys.argv[1]}/ragged_{t.rows}x{t.cols}.mlir", "w").write(b.kernel_text(t, False))
PY
CS="/usr/local/cuda/bin/compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9"
for n in 19 23 25; do
  step "memcheck_64x64_n$n" 10 $CS regcopy-run "$K/ragged_64x64.mlir" --check \
    --arg "X=150x$n" --arg "Y=150x$n" --grid 3
done
step memcheck_1024x4_n3 10 $CS regcopy-run "$K/ragged_1024x4.mlir" --check \
  --arg X=2100x3 --arg Y=2100x3 --grid 3
step memcheck_32x256_n219 10 $CS regcopy-run "$K/ragged_32x256.mlir" --check \
  --arg X=40x219 --arg Y=40x219 --grid 2
step sass 40 bash -c "cd lab/ragged && python3 smalln4_ab.py --sass && cd ../.. && \
  python3 -m pytest -o addopts='' -q -p no:cacheprovider test/python/test_short_rows.py -k whole"
echo
echo "== summary ($SECONDS s)"
printf '%s\n' "${summary[@]}"
echo "== the issue's table (bench_auto)"
sed -n '/^misaligned N, ratio/,$p' "$OUT/bench_auto.txt"
echo "== bench_auto, 64x64 N = 17..32 (N | GB/s | vs aligned | Triton | vs aligned | ratio)"
awk '/^tile /{p = ($0 ~ /^tile 64 x 64/) && !seen++} p' "$OUT/bench_auto.txt" \
  | grep -E "^\|    (1[7-9]|2[0-9]|3[0-2]) \|" | cut -d'|' -f2,4,5,6,7,8
echo "== ab: ratio of each form to real Triton (peer; min / mean / N at >= 0.98x), per tile"
grep -E "^tile|^vs |^mean ratio|MISMATCH|bit-exact|no peer" "$OUT/ab.txt"
echo "== bench_rerun: the issue table's rows"
sed -n '/^misaligned N, ratio/,$p' "$OUT/bench_rerun.txt"
grep -h MISMATCH "$OUT"/bench_*.txt "$OUT/ab.txt" || echo "no MISMATCH line"
tail -3 "$OUT/pytest_gpu.txt"
